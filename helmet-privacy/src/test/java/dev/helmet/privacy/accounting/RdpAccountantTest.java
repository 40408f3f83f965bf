package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import org.junit.jupiter.api.Test;

class RdpAccountantTest {

  /**
   * Golden values: the Gaussian mechanism's RDP curve alpha / (2 sigma^2) through the improved
   * conversion, minimised over alpha on a 1e-4 grid in Python: sigma = 1 gives 4.7283869852 (alpha
   * 5.43), sigma = 5 gives 0.7943147743 (alpha 21.5) at delta = 1e-5. The accountant's coarser
   * grid may only round up, by a little.
   */
  @Test
  void gaussianConversionMatchesGoldenValues() {
    double e1 = new RdpAccountant().compose(new GaussianDpEvent(1)).epsilon(1e-5);
    double e5 = new RdpAccountant().compose(new GaussianDpEvent(5)).epsilon(1e-5);
    assertTrue(e1 >= 4.7283869852 - 1e-9 && e1 <= 4.7283869852 * (1 + 1e-4), String.valueOf(e1));
    assertTrue(e5 >= 0.7943147743 - 1e-9 && e5 <= 0.7943147743 * (1 + 1e-4), String.valueOf(e5));
  }

  @Test
  void rdpIsNeverTighterThanTheExactGaussianCurve() {
    for (double sigma : new double[] {0.5, 1, 3, 7.03, 30}) {
      for (int k : new int[] {1, 10}) {
        double rdp = new RdpAccountant().compose(new SelfComposedDpEvent(new GaussianDpEvent(sigma), k)).epsilon(1e-5);
        double exact = new GaussianAccountant().compose(new SelfComposedDpEvent(new GaussianDpEvent(sigma), k))
            .epsilon(1e-5);
        assertTrue(rdp >= exact, "sigma " + sigma + " k " + k + ": rdp " + rdp + " < exact " + exact);
        assertTrue(rdp < exact * 1.6 + 0.1, "and not absurdly loose: " + rdp + " vs " + exact);
      }
    }
  }

  @Test
  void deltaAndEpsilonAreConsistentInverses() {
    RdpAccountant a = new RdpAccountant().compose(new GaussianDpEvent(2));
    double eps = a.epsilon(1e-6);
    assertTrue(a.delta(eps) <= 1e-6 * (1 + 1e-9));
    assertTrue(a.delta(eps * 0.99) > 1e-6);
  }

  /**
   * With sigma of many grid units the correction tau vanishes, and the distributed discrete
   * Gaussian is accounted exactly like a continuous Gaussian with multiplier sqrt(n) sigma / D2.
   */
  @Test
  void distributedDiscreteGaussianWithLargeSigmaIsTheGaussianBound() {
    var ddg = new DistributedDiscreteGaussianDpEvent(2000, 500, 9000, 9000 * 90, 8000);
    double e = new RdpAccountant().compose(ddg).epsilon(1e-5);
    double g = new RdpAccountant().compose(new GaussianDpEvent(Math.sqrt(500) * 2000 / 9000)).epsilon(1e-5);
    assertEquals(g, e, 1e-12);
  }

  /** With sigma below a grid unit the correction is visible and only ever costs privacy. */
  @Test
  void smallSigmaPaysTheDistributedCorrection() {
    var ddg = new DistributedDiscreteGaussianDpEvent(0.6, 100, 1, 1, 50);
    double e = new RdpAccountant().compose(ddg).epsilon(1e-5);
    double g = new RdpAccountant().compose(new GaussianDpEvent(Math.sqrt(100) * 0.6)).epsilon(1e-5);
    assertTrue(e > g, e + " <= " + g);
    double tau = 10 * 99 * Math.exp(-Math.PI * Math.PI * 0.36); // the largest term bounds the others
    assertTrue(tau > 1e-3, "the example must make tau matter: " + tau);
  }

  /**
   * tau, whose every term the accountant used to sum for each order, is bounded in blocks beyond
   * the first 4096 terms: never below the plain sum (written out here term by term, in Kahan
   * summation), within 1 % of it where tau matters (sigma <= 2), and equal to it up to 4097 parties
   * while no term drops below 1e-300 (after such a term, that term bounds the rest, as before).
   */
  @Test
  void theDistributedCorrectionIsBoundedInBlocksAndNeverBelowItsSum() {
    for (double sigma : new double[] {0.5, 0.6, 1, 2, 4, 5.95, 8.4}) {
      for (int n : new int[] {2, 100, 4097, 4098, 100_000, 3_000_000}) {
        double s2 = sigma * sigma;
        double sum = 0;
        double c = 0;
        for (int k = 1; k < n; k++) {
          double y = Math.exp(-2 * Math.PI * Math.PI * s2 * k / (k + 1.0)) - c;
          double t = sum + y;
          c = (t - sum) - y;
          sum = t;
        }
        double plain = 10 * sum;
        double got = RdpAccountant.ddgTau(s2, n);
        String what = "sigma " + sigma + " n " + n + ": " + got + " vs " + plain;
        assertTrue(got >= plain * (1 - 1e-12), what);
        if (sigma <= 2) {
          assertTrue(got <= plain * 1.01, what);
        }
        if (n <= 4097 && sigma <= 4) { // no term below 1e-300 (at sigma 4 the smallest is e^-316 = 5e-138)
          assertEquals(plain, got, 2e-12 * plain, what);
        }
      }
    }
    // Terms below the smallest double (sigma 20: e^-3948) count as that double, not as 0.
    assertTrue(RdpAccountant.ddgTau(400, 10) > 0);
  }

  @Test
  void calibrationWithRdpNeverOvershoots() {
    for (double eps : new double[] {0.3, 1, 4}) {
      double s = Calibration.noiseMultiplier(x -> new DistributedDiscreteGaussianDpEvent(x, 400, 5000, 5000 * 50, 2500),
          RdpAccountant::new, eps, 1e-5);
      double got = new RdpAccountant().compose(new DistributedDiscreteGaussianDpEvent(s, 400, 5000, 5000 * 50, 2500))
          .epsilon(1e-5);
      assertTrue(got <= eps * (1 + 1e-9), eps + " -> " + got);
    }
  }
}
