package dev.helmet.privacy.accounting;

import dev.helmet.privacy.event.BinomialDpEvent;

/**
 * The (eps, delta) guarantee of one release of cpSGD's binomial mechanism ({@link BinomialDpEvent}),
 * Theorem 1 of Agarwal, Suresh, Yu, Kumar and McMahan (NeurIPS 2018), at p = 1/2 and quantisation
 * scale s = 1: for N p (1 - p) >= max(23 ln(10 d / delta), 2 Dinf) the release is (eps, delta)-DP
 * with
 *
 * <pre>
 *   eps = D2 sqrt(2 ln(1.25/delta)) / sqrt(Npq)
 *       + (D2 c_p sqrt(ln(10/delta)) + D1 b_p) / (Npq (1 - delta/10))
 *       + ((2/3) Dinf ln(1.25/delta) + Dinf d_p ln(20 d/delta) ln(10/delta)) / Npq
 * </pre>
 *
 * with b_p = (2/3)(p^2 + q^2) + 1 - 2p, c_p = sqrt(2)(3p^3 + 3q^3 + 2p^2 + 2q^2) and d_p = (4/3)(p^2 +
 * q^2) (the paper's equations (17), (12), (16); at p = 1/2: 1/3, 1.75 sqrt(2), 2/3). Logarithms are
 * natural. Outside the condition the theorem says nothing, and eps is infinite here.
 *
 * <p>Checked against an independent instantiation of the same theorem (private-attribution/ipa,
 * ipa-core/src/protocol/dp: eps in (0.6375, 0.6376) at N = 2000, delta = 1e-6, d = 1 and unit
 * sensitivities; the smallest N reaching eps 1 there is 1483). About thirty double operations,
 * each within 2^-53 relative, so the result is raised by 1e-12 relative to stay an upper bound.
 */
public final class BinomialMechanismDp {
  private static final double P = 0.5;
  private static final double Q = 1 - P;
  private static final double B_P = 2.0 / 3 * (P * P + Q * Q) + 1 - 2 * P;
  private static final double C_P = Math.sqrt(2) * (3 * P * P * P + 3 * Q * Q * Q + 2 * P * P + 2 * Q * Q);
  private static final double D_P = 4.0 / 3 * (P * P + Q * Q);

  private BinomialMechanismDp() {}

  /** Whether Theorem 1's condition holds for {@code trials} at this delta. */
  public static boolean valid(double trials, double lInf, int dimension, double delta) {
    double npq = trials * P * Q;
    return delta > 0 && delta < 1 && npq >= Math.max(23 * Math.log(10.0 * dimension / delta), 2 * lInf);
  }

  /** eps of one release at {@code delta} (infinite outside the theorem's condition). */
  public static double epsilon(BinomialDpEvent e, double delta) {
    return epsilon(e.trials(), e.l1Sensitivity(), e.l2Sensitivity(), e.lInfSensitivity(), e.dimension(), delta);
  }

  /** As {@link #epsilon(BinomialDpEvent, double)}, for any (also odd) number of trials. */
  static double epsilon(double trials, double l1, double l2, double lInf, int dimension, double delta) {
    if (!valid(trials, lInf, dimension, delta)) {
      return Double.POSITIVE_INFINITY;
    }
    double npq = trials * P * Q;
    double l125 = Math.log(1.25 / delta);
    double l10 = Math.log(10 / delta);
    double first = l2 * Math.sqrt(2 * l125) / Math.sqrt(npq);
    double second = (l2 * C_P * Math.sqrt(l10) + l1 * B_P) / (npq * (1 - delta / 10));
    double third = (2.0 / 3 * lInf * l125 + lInf * D_P * Math.log(20.0 * dimension / delta) * l10) / npq;
    return (first + second + third) * (1 + 1e-12);
  }
}
