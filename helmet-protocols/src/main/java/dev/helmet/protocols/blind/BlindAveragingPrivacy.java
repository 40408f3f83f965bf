package dev.helmet.protocols.blind;

import dev.helmet.protocols.shared.HonestParties;
import dev.helmet.protocols.privacy.Protection;
import dev.helmet.core.util.Checks;

/**
 * The privacy target of one blind-averaging release.
 *
 * @param epsilon target eps
 * @param delta target delta
 * @param honestFraction t: at least {@code t w} parties add their noise honestly; the others'
 *     noise is not counted (Helmet Alg. 3). t = 0.5 doubles the noise variance, t = 1 trusts all.
 * @param protection the protected unit
 * @param minContributors the fewest contributors the noise is calibrated for (the secure
 *     aggregation threshold); 0 derives it from {@code dropoutTolerance}
 * @param dropoutTolerance with {@code minContributors = 0}: the fraction of parties that may drop,
 *     so the noise is calibrated for {@code floor((1 - dropoutTolerance) w)} contributors (0: all)
 * @param publishedParties the parties the honest fraction is a fraction of: a networked session's
 *     published number (colluders floor((1 - t) P), whatever roster is enrolled: T3-3); 0: the roster
 */
public record BlindAveragingPrivacy(
    double epsilon, double delta, double honestFraction, Protection protection, int minContributors,
    double dropoutTolerance, int publishedParties) {
  public BlindAveragingPrivacy {
    Checks.positive("epsilon", epsilon);
    Checks.openUnit("delta", delta);
    Checks.halfOpenUnit("honest fraction", honestFraction);
    Checks.notNull("protection", protection);
    Checks.nonNegative("min contributors", minContributors);
    Checks.require(dropoutTolerance >= 0 && dropoutTolerance < 1,
        "dropout tolerance must be in [0, 1). Provided value: " + dropoutTolerance);
    Checks.nonNegative("published parties", publishedParties);
  }

  /** The target with the roster as the base of the honest fraction. */
  public BlindAveragingPrivacy(double epsilon, double delta, double honestFraction, Protection protection, int minContributors,
      double dropoutTolerance) {
    this(epsilon, delta, honestFraction, protection, minContributors, dropoutTolerance, 0);
  }

  /** The parties the honest fraction counts colluders of, for a roster of {@code roster}. */
  public int colluderBase(int roster) {
    return HonestParties.colluderBase(roster, publishedParties);
  }

  /** The fewest contributors among {@code parties} the noise is calibrated for. */
  public int minContributors(int parties) {
    if (minContributors > 0) {
      return minContributors;
    }
    return Math.max(1, (int) Math.floor((1 - dropoutTolerance) * parties + 1e-9));
  }

  /** Record-level protection with every party contributing. */
  public static BlindAveragingPrivacy of(double epsilon, double delta, double honestFraction) {
    return new BlindAveragingPrivacy(epsilon, delta, honestFraction, Protection.record(), 0, 0);
  }
}
