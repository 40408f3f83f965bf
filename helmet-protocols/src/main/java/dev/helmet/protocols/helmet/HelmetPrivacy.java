package dev.helmet.protocols.helmet;

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
 *     aggregation threshold); 0 means all parties
 */
public record HelmetPrivacy(
    double epsilon, double delta, double honestFraction, Protection protection, int minContributors) {
  public HelmetPrivacy {
    Checks.positive("epsilon", epsilon);
    Checks.openUnit("delta", delta);
    Checks.halfOpenUnit("honest fraction", honestFraction);
    Checks.notNull("protection", protection);
    Checks.nonNegative("min contributors", minContributors);
  }

  /** Record-level protection with every party contributing. */
  public static HelmetPrivacy of(double epsilon, double delta, double honestFraction) {
    return new HelmetPrivacy(epsilon, delta, honestFraction, Protection.record(), 0);
  }
}
