package dev.helmet.protocols.algorithm;

import dev.helmet.core.util.Checks;

/**
 * How far a party's Gaussian noise may be clamped before it is encoded into the summation ring, and
 * what the clamp costs in delta. Gaussian noise is unbounded, a ring is not: each party clamps every
 * noise coordinate at k standard deviations. A clamp that fires makes the run differ from the
 * accounted mechanism, on an event of probability at most {@code p = count 2 exp(-k^2 / 2)} (the
 * Gaussian tail bound P[|Z| > k] <= 2 exp(-k^2/2), union bound over {@code count} = rounds x
 * parties x coordinates), which costs {@code (1 + e^eps) p} of delta. k is at least 12 and widens
 * until that charge is below 1 % of delta; the mechanism is calibrated for the rest.
 *
 * @param stds k, the clamp in standard deviations
 * @param deltaTail the delta the clamp costs (an upper bound)
 */
public record NoiseClamp(double stds, double deltaTail) {
  /**
   * The clamp for {@code count} noise coordinates in the whole run at target (eps, delta).
   *
   * @param count rounds x parties x coordinates
   */
  public static NoiseClamp of(double count, double epsilon, double delta) {
    Checks.require(count >= 1, "noise coordinates must be >= 1. Provided value: " + count);
    Checks.positive("epsilon", epsilon);
    Checks.openUnit("delta", delta);
    // ln((1 + e^eps) count), stable for any eps.
    double logCharge = Math.log(count) + epsilon + Math.log1p(Math.exp(-epsilon));
    double logTarget = Math.log(delta / 100);
    // 1 + 1e-9 rounds the constant 2 up, so the computed charge is never below the true bound.
    double stds = Math.max(12, Math.sqrt(2 * (Math.log(2 * (1 + 1e-9)) + logCharge - logTarget)));
    double tail = Math.exp(logCharge + Math.log(2 * (1 + 1e-9)) - stds * stds / 2);
    return new NoiseClamp(stds, tail);
  }
}
