package dev.helmet.protocols.shared;

import dev.helmet.core.preprocess.Preprocessing;

/**
 * Defaults every algorithm shares: the input row bound and normalisation, and the privacy target a
 * run gets when it names none. Chosen once on validation data (docs/defaults.md) and fixed in code.
 */
public final class CommonDefaults {
  private CommonDefaults() {}

  /** Every row normalised to norm c = 10: scale-free for any embedding, and the intercept (norm 1)
   * costs little: c' = sqrt(101). */
  public static final double CLIP_BOUND = 10;

  /** Normalise rows to norm c (true) rather than only clip long rows. */
  public static final boolean NORMALISE = true;

  /** The privacy target of a run that names none: (0.5, 1e-5), honest fraction 0.5. */
  public static final double EPSILON = 0.5;
  public static final double DELTA = 1e-5;
  public static final double HONEST_FRACTION = 0.5;

  /** The default preprocessing. */
  public static Preprocessing preprocessing() {
    return new Preprocessing(CLIP_BOUND, NORMALISE);
  }
}
