package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;

/**
 * The sum of {@code parties} independent discrete Gaussians N_Z(0, sigma^2) per coordinate of a
 * d-dimensional integer vector whose L2 and L1 sensitivities are given (in grid units): the
 * distributed discrete Gaussian mechanism of Kairouz, Liu and Steinke (ICML 2021). Only honest
 * parties count; others' noise is post-processing.
 *
 * @param sigma each party's discrete Gaussian parameter sigma (sigma^2 the scale, not exactly the
 *     variance), at least 1/2
 * @param parties number of independent noise contributions in the sum
 * @param l2Sensitivity L2 sensitivity of the summed integer vector
 * @param l1Sensitivity L1 sensitivity of the summed integer vector
 * @param dimension d
 */
public record DistributedDiscreteGaussianDpEvent(
    double sigma, int parties, double l2Sensitivity, double l1Sensitivity, int dimension) implements DpEvent {
  public DistributedDiscreteGaussianDpEvent {
    Checks.require(sigma >= 0.5 && Double.isFinite(sigma), "sigma must be >= 1/2. Provided value: " + sigma);
    Checks.positive("parties", parties);
    Checks.positive("L2 sensitivity", l2Sensitivity);
    Checks.positive("L1 sensitivity", l1Sensitivity);
    Checks.positive("dimension", dimension);
    Sensitivities.requireOrdered(l1Sensitivity, l2Sensitivity);
  }

  @Override
  public String describe() {
    return String.format("distributed discrete Gaussian(sigma=%.6g, parties=%d, L2=%.6g, L1=%.6g, d=%d)", sigma,
        parties, l2Sensitivity, l1Sensitivity, dimension);
  }
}
