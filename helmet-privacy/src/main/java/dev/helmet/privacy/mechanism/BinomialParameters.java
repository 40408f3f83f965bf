package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.BinomialDpEvent;
import dev.helmet.privacy.noise.DiscreteNoise;

/**
 * cpSGD's encoding on the distributed discrete Gaussian's pipeline (clip, rotation, scaling by
 * gamma, conditional rounding to a squared norm bound B), with each client's noise the centred
 * binomial Bin(N, 1/2) - N/2 per coordinate (Agarwal, Suresh, Yu, Kumar, McMahan, NeurIPS 2018).
 * The rounding bounds every client's integer vector: L2 <= sqrt(B), L-infinity <= floor(sqrt(B))
 * (no coordinate of an integer vector exceeds its L2 norm, and coordinates are integers) and L1 <=
 * min(B, sqrt(D B)), the sensitivities its Theorem 1 needs.
 *
 * @param c the L2 clip of each client's vector, before scaling
 * @param gamma the scale gamma > 0; c gamma below 2^30
 * @param beta the conditional rounding's parameter in [0, 1)
 * @param trials N, each client's binomial trials: even, in [2, 2^52]
 * @param bits b, in [2, 64]: values are sent modulo 2^b
 */
public record BinomialParameters(double c, double gamma, double beta, long trials, int bits) {
  public BinomialParameters {
    Checks.require(c > 0 && Double.isFinite(c), "clip norm c must be positive. Provided value: " + c);
    Checks.require(gamma > 0 && Double.isFinite(gamma), "gamma must be positive. Provided value: " + gamma);
    Checks.require(c * gamma < 0x1p30, "c gamma must be below 2^30. Provided value: " + c * gamma);
    Checks.require(beta >= 0 && beta < 1, "beta must be in [0, 1). Provided value: " + beta);
    Checks.require(trials >= 2 && trials % 2 == 0 && trials <= DiscreteNoise.MAX_BINOMIAL_TRIALS,
        "binomial trials must be even and in [2, 2^52]. Provided value: " + trials);
    Checks.inRange("bits", bits, 2, 64);
  }

  /** The variance of one client's noise, N / 4. */
  public double variance() {
    return trials / 4.0;
  }

  /** m - 1 = 2^b - 1 as a bit mask (all ones for b = 64). */
  public long mask() {
    return bits == 64 ? -1L : (1L << bits) - 1;
  }

  /**
   * The parameters whose noise has at least standard deviation {@code sigma}: trials 4 sigma^2
   * rounded up to an even number (more noise), at least 2 and at most 2^52.
   */
  public static BinomialParameters forSigma(double c, double gamma, double beta, double sigma, int bits) {
    return new BinomialParameters(c, gamma, beta, trialsForSigma(sigma), bits);
  }

  /** The trials whose noise has at least standard deviation sigma: 4 sigma^2 rounded up to even, in [2, 2^52]. */
  public static long trialsForSigma(double sigma) {
    double half = Math.ceil(2 * sigma * sigma);
    return half >= 0x1p51 ? DiscreteNoise.MAX_BINOMIAL_TRIALS : Math.max(2, 2 * (long) half);
  }

  /** The conditional rounding of the scaled vectors (radius c gamma) in padded dimension D. */
  public ConditionalRounding rounding(int paddedDimension) {
    return new ConditionalRounding(c * gamma, paddedDimension, beta);
  }

  /** Fills {@code out} with one client's noise share. */
  public void fillNoise(long[] out, DiscreteNoise noise) {
    noise.fillCentredBinomial(out, trials);
  }

  /**
   * Adds {@code parties} clients' noise shares into {@code out}: one draw of their total where it
   * fits one binomial (2^52 trials), else one per client; the same distribution either way.
   */
  public void addNoise(long[] out, DiscreteNoise noise, int parties) {
    long[] tmp = new long[out.length];
    boolean whole = trials <= DiscreteNoise.MAX_BINOMIAL_TRIALS / parties;
    for (int p = 0; p < (whole ? 1 : parties); p++) {
      noise.fillCentredBinomial(tmp, whole ? trials * parties : trials);
      for (int j = 0; j < out.length; j++) {
        out[j] += tmp[j];
      }
    }
  }

  /**
   * One round's release for the accountant: {@code parties} clients' noise, Bin(parties N, 1/2) in
   * total (binomials with one p add up), and the rounding's sensitivities (rounded up).
   */
  public BinomialDpEvent event(int parties, int paddedDimension) {
    Checks.positive("parties", parties);
    ConditionalRounding r = rounding(paddedDimension);
    Checks.require(trials <= DiscreteNoise.MAX_BINOMIAL_TRIALS / parties, "the " + parties + " parties' binomial "
        + "trials (" + trials + " each) exceed 2^52 in all");
    return new BinomialDpEvent(trials * parties, r.l1Sensitivity(), r.l2Sensitivity(),
        r.lInfSensitivity(), paddedDimension);
  }
}
