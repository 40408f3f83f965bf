package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.RandomBits;

/**
 * A client's encoding in the Skellam mixture mechanism (Bao et al., PVLDB 15(11), 2022, Algorithm 4
 * with the clip of Algorithm 5): a gradient of dimension d becomes D = 2^ceil(log2 d) values in [0,
 * 2^b), ready for secure aggregation modulo 2^b:
 *
 * <ol>
 *   <li>rotate: g = H D_xi x / sqrt(D) with the round's public signs ({@link RandomizedHadamard});
 *   <li>scale: g = gamma g;
 *   <li>clip: sum_j phi(|g_j|) <= c and ceil|g_j| <= Delta_inf, exactly ({@link MixtureClip});
 *   <li>round: floor(g_j) + Bernoulli(g_j - floor(g_j)), exactly ({@link StochasticRounding});
 *   <li>noise: + Sk(lambda, lambda) per coordinate, exactly ({@link DiscreteNoise#fillSkellam});
 *   <li>reduce modulo 2^b.
 * </ol>
 *
 * <p><b>Clipping.</b> The privacy guarantee needs only the clip of step 3, which this class always
 * applies, so {@code encode} accepts any finite gradient: no L2 clip is needed for privacy.
 * Callers that want DP-SGD's semantics clip to L2 norm Delta_2 before calling and set c = gamma^2
 * Delta_2^2 (the paper's choice, Sections 5 and 6). The rotation preserves the L2 norm, so after
 * scaling sum_j |g_j|^2 <= c already; as phi(t) = t^2 + p - p^2, the mixture clip then shrinks
 * the vector only as far as the rounding variance sum_j (p_j - p_j^2) requires. The rotation runs
 * in floating point and is not exactly orthonormal, which does not matter: the clip's conditions
 * are checked on the very values that are rounded.
 *
 * <p><b>Randomness.</b> The Bernoulli trials and the Skellam noise come from one {@link
 * RandomBits} source, secure by default; the rotation's signs are public. Not thread-safe: one
 * encoder per client thread.
 */
public final class SmmEncoder {
  private final RandomizedHadamard rotation;
  private final SmmParameters params;
  private final RandomBits bits;
  private final DiscreteNoise noise;

  /** An encoder whose rounding and noise come from a fresh {@link RandomBits#secure()} source. */
  public SmmEncoder(RandomizedHadamard rotation, SmmParameters params) {
    this(rotation, params, RandomBits.secure());
  }

  /**
   * An encoder on the given bits: pass {@link RandomBits#insecureForTesting} only in tests, where
   * the noise need not protect anything.
   */
  public SmmEncoder(RandomizedHadamard rotation, SmmParameters params, RandomBits bits) {
    this.rotation = Checks.notNull("rotation", rotation);
    this.params = Checks.notNull("parameters", params);
    this.bits = Checks.notNull("random bits", bits);
    this.noise = new DiscreteNoise(bits);
  }

  /** Whether the rounding and the noise come from a cryptographically secure source. */
  public boolean isSecure() {
    return bits.isSecure();
  }

  /** The rotation (its dimension is the gradient's). */
  public RandomizedHadamard rotation() {
    return rotation;
  }

  /** The mechanism's parameters. */
  public SmmParameters parameters() {
    return params;
  }

  /**
   * Steps 1-3, the deterministic part (Algorithm 4 lines 1-3): the rotated, scaled and clipped
   * gradient, of length D, whose coordinates satisfy the clip's conditions exactly. {@link #encode}
   * rounds exactly these values.
   */
  public double[] scaleAndClip(double[] gradient) {
    double[] g = rotation.rotate(Checks.notNull("gradient", gradient));
    double gamma = params.gamma();
    for (int j = 0; j < g.length; j++) {
      g[j] *= gamma;
    }
    return MixtureClip.clip(g, params.c(), params.deltaInf());
  }

  /**
   * The message for secure aggregation: D values in [0, 2^b) (for b = 64, any long, read as
   * unsigned). The noise vector is drawn first, before the gradient is looked at, so that its
   * sampling time (which depends on the values drawn, see {@link DiscreteNoise}) is independent of
   * the gradient.
   */
  public long[] encode(double[] gradient) {
    Checks.notNull("gradient", gradient);
    int padded = rotation.paddedDimension();
    long[] out = new long[padded];
    noise.fillSkellam(out, params.lambdaNum(), params.lambdaDen());
    double[] clipped = scaleAndClip(gradient);
    long[] rounded = new long[padded];
    StochasticRounding.roundAll(clipped, rounded, bits);
    long mask = params.mask();
    for (int j = 0; j < padded; j++) {
      // |rounded| <= Delta_inf <= 2^50 and a Skellam below 2^41 in all but astronomically rare
      // draws; even an overflow would wrap modulo 2^64, which the mask reduces correctly.
      out[j] = (rounded[j] + out[j]) & mask;
    }
    return out;
  }
}
