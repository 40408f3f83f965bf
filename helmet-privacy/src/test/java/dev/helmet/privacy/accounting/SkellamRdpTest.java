package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SkellamDpEvent;
import java.math.BigDecimal;
import java.math.MathContext;
import org.junit.jupiter.api.Test;

class SkellamRdpTest {
  private static final MathContext MC = new MathContext(40);

  /**
   * Agarwal, Kairouz, Liu (NeurIPS 2021), the multi-dimensional Skellam mechanism's RDP, in exact
   * decimal arithmetic: alpha D2^2/(4 mu) + min(((2 alpha - 1) D2^2 + 6 D1)/(16 mu^2), 3 D1/(4 mu)).
   */
  private static BigDecimal paperFormula(int alpha, double mu, double l2, double l1) {
    BigDecimal a = BigDecimal.valueOf(alpha);
    BigDecimal m = new BigDecimal(mu);
    BigDecimal d2sq = new BigDecimal(l2).pow(2);
    BigDecimal d1 = new BigDecimal(l1);
    BigDecimal gaussian = a.multiply(d2sq).divide(m.multiply(BigDecimal.valueOf(4)), MC);
    BigDecimal first = a.multiply(BigDecimal.valueOf(2)).subtract(BigDecimal.ONE).multiply(d2sq)
        .add(d1.multiply(BigDecimal.valueOf(6))).divide(m.pow(2).multiply(BigDecimal.valueOf(16)), MC);
    BigDecimal second = d1.multiply(BigDecimal.valueOf(3)).divide(m.multiply(BigDecimal.valueOf(4)), MC);
    return gaussian.add(first.min(second));
  }

  /**
   * The same bound in the parametrisation of the authors' accounting code (google-research/federated,
   * distributed_dp/accounting_utils.py, _skellam_rdp): sensitivities l2 = D2/s, l1 = D1/s in the
   * units before scaling by s, central variance v = 2 mu/s^2, and a/(2 v) l2^2 + min(((2a - 1) s
   * l2^2 + 6 l1)/(4 s^3 v^2), 3 l1/(2 s v)). Written out here independently to check the unit
   * conversion.
   */
  private static BigDecimal referenceForm(int alpha, double mu, double l2, double l1, double s) {
    BigDecimal a = BigDecimal.valueOf(alpha);
    BigDecimal sc = new BigDecimal(s);
    BigDecimal v = new BigDecimal(mu).multiply(BigDecimal.valueOf(2)).divide(sc.pow(2), MC);
    BigDecimal l2s = new BigDecimal(l2).divide(sc, MC);
    BigDecimal l1s = new BigDecimal(l1).divide(sc, MC);
    BigDecimal rdp = a.divide(v.multiply(BigDecimal.valueOf(2)), MC).multiply(l2s.pow(2));
    BigDecimal first = a.multiply(BigDecimal.valueOf(2)).subtract(BigDecimal.ONE).multiply(sc).multiply(l2s.pow(2))
        .add(l1s.multiply(BigDecimal.valueOf(6))).divide(sc.pow(3).multiply(v.pow(2)).multiply(BigDecimal.valueOf(4)),
            MC);
    BigDecimal second = l1s.multiply(BigDecimal.valueOf(3)).divide(sc.multiply(v).multiply(BigDecimal.valueOf(2)), MC);
    return rdp.add(first.min(second));
  }

  @Test
  void rdpMatchesThePapersFormulaAndTheReferenceParametrisation() {
    double[][] cases = {
        // mu, D2, D1: small noise (L1 branch), Bao et al.'s gamma = 64 setting, large noise
        {100, 2, 4}, {3.3e6, 143.7776, 20672}, {25, 1, 1}, {1e9, 5000, 250000}, {0.7, 1, 1}};
    for (double[] c : cases) {
      for (int alpha : new int[] {2, 3, 7, 32, 256}) {
        BigDecimal exact = paperFormula(alpha, c[0], c[1], c[2]);
        double got = SkellamRdp.rdp(new SkellamDpEvent(c[0], c[1], c[2]), alpha);
        assertTrue(new BigDecimal(got).compareTo(exact) >= 0, "rounded up: " + got + " vs " + exact);
        assertEquals(exact.doubleValue(), got, 2e-12 * exact.doubleValue(), "alpha " + alpha);
        BigDecimal ref = referenceForm(alpha, c[0], c[1], c[2], 1.0 / 64);
        assertEquals(0, exact.round(new MathContext(30)).compareTo(ref.round(new MathContext(30))),
            exact + " vs " + ref);
      }
    }
  }

  /** By hand: mu = 100, D2 = 2, D1 = 4, alpha = 3: 0.03 + min(44/160000, 0.03) = 0.030275. */
  @Test
  void aHandComputedValue() {
    double got = SkellamRdp.rdp(new SkellamDpEvent(100, 2, 4), 3);
    assertTrue(got >= 0.030275 && got <= 0.030275 * (1 + 2e-12), String.valueOf(got));
  }

  /** A non-integer order is charged the next integer's value (an upper bound, RDP being monotone). */
  @Test
  void nonIntegerOrdersTakeTheNextIntegersValue() {
    SkellamDpEvent e = new SkellamDpEvent(1000, 10, 300);
    assertEquals(SkellamRdp.rdp(e, 5), SkellamRdp.rdp(e, 4.2));
    assertEquals(SkellamRdp.rdp(e, 2), SkellamRdp.rdp(e, 1.01));
  }

  /**
   * With much noise the discreteness term vanishes and the mechanism is accounted like a Gaussian
   * of the same variance 2 mu (multiplier sqrt(2 mu)/D2), never better.
   */
  @Test
  void withMuchNoiseItApproachesTheGaussianOfTheSameVarianceFromAbove() {
    double mu = 2e6;
    double l2 = 1000;
    double sk = new RdpAccountant().compose(new SkellamDpEvent(mu, l2, l2 * l2)).epsilon(1e-5);
    double g = new RdpAccountant().compose(new GaussianDpEvent(Math.sqrt(2 * mu) / l2)).epsilon(1e-5);
    assertTrue(sk >= g, sk + " < " + g);
    assertTrue(sk <= g * 1.01, sk + " vs " + g);
  }

  @Test
  void theAccountantSupportsItPlainAndPoissonSampledUnderAddOrRemoveOnly() {
    SkellamDpEvent e = new SkellamDpEvent(5000, 100, 10000);
    RdpAccountant acc = new RdpAccountant();
    assertTrue(acc.supports(e));
    assertTrue(acc.supports(new PoissonSampledDpEvent(0.01, e)));
    assertFalse(acc.supports(new PoissonSampledDpEvent(0.01, e, NeighbourRelation.REPLACE_ONE)));
    assertFalse(new PldAccountant().supports(e));
    assertFalse(new GaussianAccountant().supports(e));
  }

  /** Calibrating mu (as sigma = sqrt(mu)) for a target never overshoots it. */
  @Test
  void calibrationNeverOvershoots() {
    for (double eps : new double[] {0.5, 2, 8}) {
      double s = Calibration.noiseMultiplier(x -> new PoissonSampledDpEvent(0.01,
          new SkellamDpEvent(x * x, 143.8, 20672)), RdpAccountant::new, eps, 1e-5);
      double got = new RdpAccountant().compose(new PoissonSampledDpEvent(0.01, new SkellamDpEvent(s * s, 143.8,
          20672))).epsilon(1e-5);
      assertTrue(got <= eps * (1 + 1e-9), eps + " -> " + got);
      assertTrue(got >= eps * 0.999, "and close: " + got);
    }
  }
}
