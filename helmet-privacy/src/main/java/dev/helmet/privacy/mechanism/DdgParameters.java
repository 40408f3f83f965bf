package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;

/**
 * The parameters of the distributed discrete Gaussian encoding (Kairouz, Liu, Steinke, ICML 2021,
 * Algorithm 1), shared by every client and the server of a round. Their gamma is a grid step; here,
 * as in SMM ({@link SmmParameters}), gamma is the scale: one unit of the ring is 1/gamma of the
 * gradient's units.
 *
 * @param c the L2 clip of each client's vector, before scaling (the paper's c; Bao et al. take 1)
 * @param gamma the scale gamma > 0; c gamma below 2^30
 * @param beta the conditional rounding's parameter in [0, 1) ({@link
 *     ConditionalRounding#DEFAULT_BETA} = e^-0.5 as recommended)
 * @param sigma2Num numerator of each client's discrete Gaussian parameter sigma^2 = sigma2Num /
 *     sigma2Den, in grid units (0: no noise, for tests and for measuring the rounding alone)
 * @param sigma2Den denominator of sigma^2, > 0
 * @param bits b, in [2, 64]: values are sent modulo 2^b
 */
public record DdgParameters(double c, double gamma, double beta, long sigma2Num, long sigma2Den, int bits) {
  public DdgParameters {
    Checks.require(c > 0 && Double.isFinite(c), "clip norm c must be positive. Provided value: " + c);
    Checks.require(gamma > 0 && Double.isFinite(gamma), "gamma must be positive. Provided value: " + gamma);
    Checks.require(c * gamma < 0x1p30, "c gamma must be below 2^30. Provided value: " + c * gamma);
    Checks.require(beta >= 0 && beta < 1, "beta must be in [0, 1). Provided value: " + beta);
    Checks.require(sigma2Num >= 0 && sigma2Den > 0,
        "sigma^2 = num/den must have num >= 0 and den > 0. Provided value: " + sigma2Num + "/" + sigma2Den);
    Checks.inRange("bits", bits, 2, 64);
  }

  /** sigma^2 as a double (for reports; the sampler uses the exact rational). */
  public double sigma2() {
    return (double) sigma2Num / sigma2Den;
  }

  /** m - 1 = 2^b - 1 as a bit mask (all ones for b = 64). */
  public long mask() {
    return bits == 64 ? -1L : (1L << bits) - 1;
  }

  /** The conditional rounding of the scaled vectors (radius c gamma) in padded dimension D. */
  public ConditionalRounding rounding(int paddedDimension) {
    return new ConditionalRounding(c * gamma, paddedDimension, beta);
  }

  /**
   * One round's release for the accountant: the sum of {@code parties} clients' discrete Gaussians
   * (the noise present for both neighbouring data sets, see {@link
   * DistributedDiscreteGaussianDpEvent}) over D coordinates, with the rounding's L2 and L1
   * sensitivities (rounded up). sigma is rounded down (by a relative 2^-48, more than the error of
   * the two conversions, the division and the square root): less noise assumed costs more privacy,
   * as the bound (Kairouz et al., Prop. 14) decreases in sigma.
   *
   * @throws IllegalStateException when sigma is below 1/2 (including no noise): Prop. 14 needs
   *     sigma >= 1/2
   */
  public DistributedDiscreteGaussianDpEvent event(int parties, int paddedDimension) {
    Checks.positive("parties", parties);
    double sigma = Math.sqrt((double) sigma2Num / sigma2Den) * (1 - 0x1p-48);
    if (!(sigma >= 0.5)) {
      throw new IllegalStateException("the distributed discrete Gaussian bound needs sigma >= 1/2. Provided value: "
          + sigma);
    }
    ConditionalRounding r = rounding(paddedDimension);
    return new DistributedDiscreteGaussianDpEvent(sigma, parties, r.l2Sensitivity(), r.l1Sensitivity(),
        paddedDimension);
  }
}
