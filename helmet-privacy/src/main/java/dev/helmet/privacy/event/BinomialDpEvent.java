package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;

/**
 * One release of the binomial mechanism of cpSGD (Agarwal, Suresh, Yu, Kumar, McMahan, NeurIPS
 * 2018, "cpSGD: Communication-efficient and differentially-private distributed SGD", Theorem 1): an
 * integer vector of dimension d whose L1, L2 and L-infinity sensitivities are given (in grid units,
 * quantisation scale s = 1, for add-or-remove-one neighbours) plus independent centred binomial
 * noise Bin(N, 1/2) - N/2 per coordinate. It has no Renyi curve (a shifted binomial has mass where
 * the unshifted one has none), only an (eps, delta) guarantee for each delta: accounted by {@link
 * dev.helmet.privacy.accounting.ApproxDpAccountant}.
 *
 * <p>{@code trials} is the total of the noise present for both neighbouring data sets: n clients
 * adding Bin(N/n, 1/2) each give Bin(N, 1/2), as binomials with one p are closed under summation.
 * Only honest clients' noise counts.
 *
 * @param trials N, the total trials of the noise in the released sum, >= 1
 * @param l1Sensitivity L1 sensitivity of the integer vector
 * @param l2Sensitivity L2 sensitivity
 * @param lInfSensitivity L-infinity sensitivity
 * @param dimension d, the coordinates released
 */
public record BinomialDpEvent(long trials, double l1Sensitivity, double l2Sensitivity, double lInfSensitivity,
    int dimension) implements DpEvent {
  public BinomialDpEvent {
    Checks.require(trials >= 1, "binomial trials must be at least 1. Provided value: " + trials);
    for (double s : new double[] {l1Sensitivity, l2Sensitivity, lInfSensitivity}) {
      Checks.require(s > 0 && Double.isFinite(s), "sensitivities must be positive and finite. Provided values: "
          + l1Sensitivity + ", " + l2Sensitivity + ", " + lInfSensitivity);
    }
    Checks.positive("dimension", dimension);
    Sensitivities.requireOrdered(l1Sensitivity, l2Sensitivity);
    Checks.require(lInfSensitivity <= l2Sensitivity, "L-infinity sensitivity " + lInfSensitivity
        + " is above L2 sensitivity " + l2Sensitivity + ": no vector's largest coordinate exceeds its L2 norm. "
        + "Were the two swapped?");
  }

  @Override
  public String describe() {
    return String.format("Binomial(N=%d, p=1/2, L1=%.6g, L2=%.6g, Linf=%.6g, d=%d)", trials, l1Sensitivity,
        l2Sensitivity, lInfSensitivity, dimension);
  }
}
