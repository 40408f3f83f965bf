package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;

/**
 * The parameters of the Skellam mixture mechanism's encoding (Bao et al., PVLDB 15(11), 2022,
 * Algorithms 4-6), shared by every client and the server of a round. The privacy guarantee of a
 * round (Theorem 5 with Corollary 1: (alpha, tau)-RDP with tau = (1.2 alpha + 1)/2 c / (2 n
 * lambda) for n clients' noise, valid for Delta_inf within Eq. (3)) is the accountant's business;
 * these are the values it must be given.
 *
 * @param gamma the scale gamma > 0 applied after the rotation: one unit of the ring is 1/gamma of
 *     the gradient's units
 * @param c the bound on sum_j phi(|g_j|) of a scaled gradient g (see {@link MixtureClip}), in
 *     [2^-900, 2^90]; c = gamma^2 Delta_2^2 matches DP-SGD's L2 clip Delta_2 (the paper takes
 *     Delta_2 = 1)
 * @param deltaInf the bound Delta_inf on ceil|g_j|, an integer in [1, 2^50], chosen from Eq. (3)
 * @param lambdaNum numerator of each client's Skellam parameter lambda = lambdaNum / lambdaDen
 *     (lambda = 0: no noise, for tests and for measuring the rounding error alone)
 * @param lambdaDen denominator of lambda, > 0; lambda must be below 2^40
 * @param bits b, in [2, 64]: values are sent modulo m = 2^b (a long read as unsigned for b = 64)
 */
public record SmmParameters(
    double gamma, double c, long deltaInf, long lambdaNum, long lambdaDen, int bits) {
  public SmmParameters {
    Checks.positive("gamma", gamma);
    Checks.require(c >= MixtureClip.MIN_C && c <= MixtureClip.MAX_C,
        "c must be in [2^-900, 2^90]. Provided value: " + c);
    Checks.require(deltaInf >= 1 && deltaInf <= MixtureClip.MAX_DELTA_INF,
        "Delta_inf must be in [1, 2^50]. Provided value: " + deltaInf);
    Checks.require(lambdaNum >= 0 && lambdaDen > 0 && lambdaNum / lambdaDen < (1L << 40),
        "lambda = num/den must be >= 0 and below 2^40 (den > 0). Provided value: "
            + lambdaNum + "/" + lambdaDen);
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
}
