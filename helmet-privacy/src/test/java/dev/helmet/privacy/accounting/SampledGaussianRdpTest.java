package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SampledGaussianRdpTest {
  /** Opacus's default orders: 1.1, 1.2, ..., 10.9, then 12, 13, ..., 63. */
  private static final double[] OPACUS_ORDERS = DoubleStream.concat(
      IntStream.range(1, 100).mapToDouble(x -> 1 + x / 10.0), IntStream.range(12, 64).mapToDouble(x -> x)).toArray();

  /**
   * Golden value from Opacus's RDP accountant test (test_get_privacy_spent / the DP-SGD example
   * numbers): sigma = 1.5, q = 0.04, 2250 steps, delta = 1e-5 gives eps = 7.32911117143 over its
   * default orders with the improved RDP-to-DP conversion.
   */
  @Test
  void matchesOpacusOnItsOrders() {
    RdpAccountant a = new RdpAccountant(OPACUS_ORDERS);
    a.compose(new PoissonSampledDpEvent(0.04, new GaussianDpEvent(1.5)), 2250);
    assertEquals(7.32911117143, a.epsilon(1e-5), 1e-8);
    RdpAccountant fine = new RdpAccountant();
    fine.compose(new PoissonSampledDpEvent(0.04, new GaussianDpEvent(1.5)), 2250);
    assertTrue(fine.epsilon(1e-5) <= 7.32911117143 + 1e-9, "a finer grid is never worse: " + fine.epsilon(1e-5));
  }

  /** Integer and fractional formulas agree where both apply, and q = 1 is the plain Gaussian. */
  @Test
  void integerAndFractionalOrdersAgree() {
    for (double q : new double[] {0.001, 0.01, 0.1, 0.5}) {
      for (double sigma : new double[] {0.7, 1, 2, 5}) {
        for (int alpha : new int[] {2, 3, 8, 32}) {
          double exact = SampledGaussianRdp.logAInteger(q, sigma, alpha);
          double series = SampledGaussianRdp.logAFractional(q, sigma, alpha + 1e-9);
          assertEquals(exact, series, 1e-6 * Math.max(1, Math.abs(exact)),
              "q=" + q + " sigma=" + sigma + " alpha=" + alpha);
        }
      }
    }
    assertEquals(3.0 / (2 * 4), SampledGaussianRdp.rdp(1, 2, 3), 1e-15);
  }

  /** Subsampling never hurts, and RDP grows with the order. */
  @Test
  void subsamplingAmplifiesAndRdpIsMonotoneInTheOrder() {
    double prev = 0;
    for (double alpha : new double[] {1.5, 2, 2.5, 4, 10.5, 30}) {
      double r = SampledGaussianRdp.rdp(0.01, 1.1, alpha);
      assertTrue(r <= alpha / (2 * 1.1 * 1.1), "amplification at alpha " + alpha);
      assertTrue(r >= prev, "monotone at alpha " + alpha);
      prev = r;
    }
  }

  /**
   * A noise multiplier so small that (k^2 - k) / (2 sigma^2) overflows gives no privacy: eps is
   * infinite, not the NaN of infinity minus infinity that the log-sum-exp once returned (and that
   * `privacy epsilon --accountant rdp` printed at sigma 1e-200 with sampling).
   */
  @Test
  void anOverflowingOrderIsInfiniteNotNan() {
    assertEquals(Double.POSITIVE_INFINITY, SampledGaussianRdp.logAInteger(0.01, 1e-200, 3));
    var event = new PoissonSampledDpEvent(0.01, new GaussianDpEvent(1e-200));
    assertEquals(Double.POSITIVE_INFINITY, new RdpAccountant().compose(event, 10).epsilon(1e-5));
  }
}
