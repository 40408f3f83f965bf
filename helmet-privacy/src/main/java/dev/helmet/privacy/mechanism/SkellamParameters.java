package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.SkellamDpEvent;

/**
 * The parameters of the distributed Skellam encoding (Agarwal, Kairouz, Liu, NeurIPS 2021, Section
 * 4: the distributed discrete Gaussian's clip, rotation, scaling and conditional rounding, with
 * Skellam noise), shared by every client and the server of a round. Not the Skellam mixture
 * mechanism ({@link SmmParameters}), which rounds without conditioning and accounts differently.
 *
 * @param c the L2 clip of each client's vector, before scaling
 * @param gamma the scale gamma > 0 (the paper's s); c gamma below 2^30
 * @param beta the conditional rounding's parameter in [0, 1) ({@link
 *     ConditionalRounding#DEFAULT_BETA} = e^-0.5 as recommended)
 * @param lambdaNum numerator of each client's Skellam parameter lambda = lambdaNum / lambdaDen:
 *     noise Sk(lambda, lambda), variance 2 lambda, per coordinate (0: no noise)
 * @param lambdaDen denominator of lambda, > 0; lambda must be below 2^40
 * @param bits b, in [2, 64]: values are sent modulo 2^b
 */
public record SkellamParameters(double c, double gamma, double beta, long lambdaNum, long lambdaDen, int bits) {
  public SkellamParameters {
    Checks.require(c > 0 && Double.isFinite(c), "clip norm c must be positive. Provided value: " + c);
    Checks.require(gamma > 0 && Double.isFinite(gamma), "gamma must be positive. Provided value: " + gamma);
    Checks.require(c * gamma < 0x1p30, "c gamma must be below 2^30. Provided value: " + c * gamma);
    Checks.require(beta >= 0 && beta < 1, "beta must be in [0, 1). Provided value: " + beta);
    Checks.require(lambdaNum >= 0 && lambdaDen > 0 && lambdaNum / lambdaDen < (1L << 40),
        "lambda = num/den must be >= 0 and below 2^40 (den > 0). Provided value: " + lambdaNum + "/" + lambdaDen);
    Checks.inRange("bits", bits, 2, 64);
  }

  /** lambda as a double (for reports; the sampler uses the exact rational). */
  public double lambda() {
    return (double) lambdaNum / lambdaDen;
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
   * One round's release for the accountant: the rounding's L2 and L1 sensitivities (rounded up) and
   * mu = parties lambda, the total Skellam parameter of the noise present for both neighbouring data
   * sets (see {@link SkellamDpEvent}), rounded down by a relative 2^-48 (more than the error of the
   * conversions, the division and the product): the bound decreases in mu.
   *
   * @throws IllegalStateException without noise (lambda = 0)
   */
  public SkellamDpEvent event(int parties, int paddedDimension) {
    Checks.positive("parties", parties);
    if (lambdaNum == 0) {
      throw new IllegalStateException("the Skellam bound needs noise: lambda is 0");
    }
    double mu = (double) parties * lambdaNum / lambdaDen * (1 - 0x1p-48);
    ConditionalRounding r = rounding(paddedDimension);
    return new SkellamDpEvent(mu, r.l2Sensitivity(), r.l1Sensitivity());
  }
}
