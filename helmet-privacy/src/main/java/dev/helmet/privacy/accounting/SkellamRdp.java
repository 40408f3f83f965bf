package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.SkellamDpEvent;

/**
 * Renyi DP of the multi-dimensional Skellam mechanism (Agarwal, Kairouz, Liu, NeurIPS 2021, "The
 * Skellam Mechanism for Differentially Private Federated Learning", Theorem 3.5; Corollary 4.1
 * states the same bound for the scaled mechanism in the units before scaling): for an integer
 * shift of L2 norm at most D2 and L1 norm at most D1 and noise Sk(mu, mu) per coordinate,
 *
 * <pre>
 *   eps(alpha) = alpha D2^2 / (4 mu) + min( ((2 alpha - 1) D2^2 + 6 D1) / (16 mu^2), 3 D1 / (4 mu) ).
 * </pre>
 *
 * The first term is the Gaussian mechanism's with the same variance 2 mu; the second is the
 * price of discreteness, which vanishes as mu grows. The authors' accounting code
 * (google-research/federated, distributed_dp/accounting_utils.py) evaluates it in the units before
 * scaling by s, with central variance v = 2 mu / s^2 and sensitivities D/s; substituting gives the
 * form above (the tests check the two agree).
 *
 * <p><b>Orders.</b> The bound is evaluated at integer orders only, and a non-integer order is
 * charged the value at ceil(alpha): RDP is non-decreasing in the order, so this is an upper bound
 * whether or not the theorem also covers non-integer orders, and the reference code itself uses
 * only integer orders. The result is rounded up by a relative 1e-12, covering the rounding of the
 * dozen operations (each within half an ulp).
 */
public final class SkellamRdp {
  private static final double ROUND_UP = 1 + 1e-12;

  private SkellamRdp() {}

  /** The RDP of one release at order {@code alpha > 1} (charged as ceil(alpha)). */
  public static double rdp(SkellamDpEvent e, double alpha) {
    Checks.require(alpha > 1, "RDP order must be above 1. Provided value: " + alpha);
    double a = Math.ceil(alpha);
    double mu = e.mu();
    double d2sq = e.l2Sensitivity() * e.l2Sensitivity();
    double d1 = e.l1Sensitivity();
    double gaussian = a * d2sq / (4 * mu);
    double discrete = Math.min(((2 * a - 1) * d2sq + 6 * d1) / (16 * mu * mu), 3 * d1 / (4 * mu));
    if (!(16 * mu * mu < Double.POSITIVE_INFINITY)) { // mu above about 2.5e153: divide by mu first, not by an infinity
      gaussian = a * (d2sq / mu) / 4;
      discrete = Math.min(((2 * a - 1) * (d2sq / mu) + 6 * (d1 / mu)) / (16 * mu), 3 * (d1 / mu) / 4);
    }
    return (gaussian + discrete) * ROUND_UP;
  }
}
