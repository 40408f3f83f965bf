package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.event.SkellamDpEvent;
import dev.helmet.privacy.event.SkellamMixtureDpEvent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.Test;

class PoissonSubsampledRdpTest {
  private static final MathContext MC = new MathContext(60);

  /** Bao et al.'s gamma = 64 setting: DDG over 240 clients and Skellam of the same variance. */
  private static final DistributedDiscreteGaussianDpEvent DDG =
      new DistributedDiscreteGaussianDpEvent(60, 240, 143.7776, 20672, 65536);
  private static final SkellamDpEvent SKELLAM = new SkellamDpEvent(240 * 1800.0, 143.7776, 20672);

  /**
   * Zhu and Wang's general bound written out in 60-digit decimal arithmetic: the sum
   * (1-q)^(a-1)(a q - q + 1) + C(a,2) q^2 (1-q)^(a-2) e^eps(2) + 3 sum_{l>=3} C(a,l) q^l (1-q)^(a-l)
   * e^((l-1) eps(l)) directly, without the rearrangement the class uses, its log by Newton's method.
   */
  private static double generalFormula(IntToDoubleFunction eps, double q, int a, boolean factorThree) {
    BigDecimal bq = new BigDecimal(q);
    BigDecimal one = BigDecimal.ONE;
    BigDecimal omq = one.subtract(bq);
    BigDecimal sum = omq.pow(a - 1, MC).multiply(bq.multiply(BigDecimal.valueOf(a)).subtract(bq).add(one), MC);
    for (int l = 2; l <= a; l++) {
      BigDecimal term = new BigDecimal(binomial(a, l)).multiply(bq.pow(l, MC), MC).multiply(omq.pow(a - l, MC), MC)
          .multiply(exp(new BigDecimal(eps.applyAsDouble(l)).multiply(BigDecimal.valueOf(l - 1))), MC);
      if (factorThree && l >= 3) {
        term = term.multiply(BigDecimal.valueOf(3));
      }
      sum = sum.add(term, MC);
    }
    return log(sum).divide(BigDecimal.valueOf(a - 1), MC).doubleValue();
  }

  /** The helper equals the formula to its stated 1e-10 margin, and never falls below it. */
  @Test
  void subsampledBoundsEqualTheGeneralFormula() {
    for (DpEvent e : new DpEvent[] {DDG, SKELLAM}) {
      IntToDoubleFunction eps = l -> RdpAccountant.rdpOf(e, l);
      for (double q : new double[] {0.004, 1e-5, 0.3, 0.9}) {
        for (int a : new int[] {2, 3, 5, 8, 32, 100}) {
          for (boolean three : new boolean[] {true, false}) {
            double exact = generalFormula(eps, q, a, three);
            double got = PoissonSubsampledRdp.bound(eps, q, a, three);
            String what = e.describe() + " q " + q + " a " + a + (three ? "" : " paper");
            assertTrue(got >= exact, what + ": " + got + " < " + exact);
            assertTrue(got <= exact * (1 + 2e-10), what + ": " + got + " vs " + exact);
          }
          assertEquals(PoissonSubsampledRdp.bound(eps, q, a, true), PoissonSubsampledRdp.rdp(eps, q, a));
        }
      }
    }
  }

  /** For order 2 the factor 3 does not enter; the bound there is log(1 + q^2 (e^eps(2) - 1)). */
  @Test
  void atOrderTwoTheBoundIsClosedForm() {
    double eps2 = 0.7;
    double q = 0.01;
    double expected = Math.log1p(q * q * Math.expm1(eps2));
    assertEquals(expected, PoissonSubsampledRdp.rdp(l -> eps2, q, 2), 1e-9 * expected);
    assertEquals(0, PoissonSubsampledRdp.rdp(l -> 0, q, 2), "no privacy loss, none after sampling");
  }

  @Test
  void nonIntegerOrdersTakeTheNextIntegersValueAndQOneIsTheMechanism() {
    IntToDoubleFunction eps = l -> RdpAccountant.rdpOf(SKELLAM, l);
    assertEquals(PoissonSubsampledRdp.rdp(eps, 0.01, 6), PoissonSubsampledRdp.rdp(eps, 0.01, 5.5));
    assertEquals(PoissonSubsampledRdp.rdp(eps, 0.01, 2), PoissonSubsampledRdp.rdp(eps, 0.01, 1.3));
    assertEquals(eps.applyAsDouble(7), PoissonSubsampledRdp.rdp(eps, 1, 6.5));
    assertEquals(Double.POSITIVE_INFINITY, PoissonSubsampledRdp.rdp(l -> l > 3 ? Double.POSITIVE_INFINITY : 1, 0.1, 4));
    assertThrows(IllegalArgumentException.class, () -> PoissonSubsampledRdp.rdp(eps, 0, 2));
    assertThrows(IllegalArgumentException.class, () -> PoissonSubsampledRdp.rdp(eps, 0.5, 1));
  }

  /**
   * The accountant composes min(general bound, unsampled RDP) at each order (the unsampled alone
   * above order 256), for the distributed discrete Gaussian and the Skellam mechanism.
   */
  @Test
  void theAccountantsCurveIsTheSmallerOfTheSubsampledAndTheUnsampledBound() {
    double[] orders = {1.5, 2, 2.5, 3, 10, 64, 200.5, 256, 300, 5000};
    for (DpEvent e : new DpEvent[] {DDG, SKELLAM}) {
      for (double q : new double[] {0.004, 0.9}) {
        double[] curve = RdpAccountant.curve(new PoissonSampledDpEvent(q, e), orders);
        for (int i = 0; i < orders.length; i++) {
          double alpha = orders[i];
          double unsampled = RdpAccountant.rdpOf(e, alpha);
          double expected = Math.ceil(alpha) > 256 ? unsampled
              : Math.min(unsampled, PoissonSubsampledRdp.rdp(l -> RdpAccountant.rdpOf(e, l), q, alpha));
          assertEquals(expected, curve[i], e.describe() + " q " + q + " alpha " + alpha);
          assertTrue(curve[i] <= unsampled);
        }
      }
    }
  }

  /**
   * A distributed discrete Gaussian with sigma of many grid units is accounted as a Gaussian: its
   * general subsampled bound must lie above the exact subsampled Gaussian RDP (Mironov, Talwar,
   * Zhang), and within the factor 3 of it.
   */
  @Test
  void theGeneralBoundIsAboveTheExactSampledGaussian() {
    DistributedDiscreteGaussianDpEvent ddg = new DistributedDiscreteGaussianDpEvent(100, 1, 100, 100, 10);
    double q = 0.01;
    for (int a : new int[] {2, 3, 8, 32, 128}) {
      double general = PoissonSubsampledRdp.rdp(l -> RdpAccountant.rdpOf(ddg, l), q, a);
      double exact = SampledGaussianRdp.rdp(q, 1, a);
      assertTrue(general >= exact, "a " + a + ": " + general + " < " + exact);
      // every term of the general sum is at most 3 times the exact one; plus the 1e-10 margin
      assertTrue(general <= (exact + Math.log(3) / (a - 1)) * (1 + 2e-10), "a " + a + ": " + general + " vs " + exact);
    }
  }

  /** Sampling helps, and T rounds compose: eps grows with q and with the number of rounds. */
  @Test
  void epsGrowsWithTheSamplingRateAndTheRounds() {
    for (DpEvent e : new DpEvent[] {DDG, SKELLAM}) {
      double prev = 0;
      for (double q : new double[] {0.001, 0.004, 0.016, 0.064, 1}) {
        double eps = new RdpAccountant().compose(new SelfComposedDpEvent(new PoissonSampledDpEvent(q, e), 1000))
            .epsilon(1e-5);
        assertTrue(eps > prev, e.describe() + " q " + q + ": " + eps + " <= " + prev);
        prev = eps;
      }
    }
  }

  /** The SMM accountant still agrees with its own exact decimal computation after delegating. */
  @Test
  void skellamMixtureRdpDelegatesToTheHelper() {
    SkellamMixtureDpEvent smm = new SkellamMixtureDpEvent(1428, 4096, 4);
    for (int a : new int[] {2, 3, 5}) { // Delta 4 is valid up to order 5
      IntToDoubleFunction tau = l -> SkellamMixtureRdp.tau(l, 4096, 1428);
      assertEquals(PoissonSubsampledRdp.bound(tau, 0.004, a, true),
          SkellamMixtureRdp.subsampledRdp(smm, 0.004, a, SkellamMixtureRdp.Subsampling.GENERAL));
      assertEquals(PoissonSubsampledRdp.bound(tau, 0.004, a, false),
          SkellamMixtureRdp.subsampledRdp(smm, 0.004, a, SkellamMixtureRdp.Subsampling.PAPER));
    }
  }

  /**
   * Above order 256 the bound builds its binomials by a running sum and widens its margin to a
   * relative 1e-12 a: it stays above the decimal formula and within that margin. Bao et al.'s
   * mixture at lambda 1e7 (Delta 1) is valid up to order 1915, the orders a large Skellam parameter
   * brings into play.
   */
  @Test
  void largeOrdersStayAboveTheFormulaWithinTheirMargin() {
    IntToDoubleFunction tau = l -> SkellamMixtureRdp.tau(l, 4096, 1e7);
    for (int a : new int[] {257, 600, 1500}) {
      for (boolean three : new boolean[] {true, false}) {
        double exact = generalFormula(tau, 0.004, a, three);
        double got = PoissonSubsampledRdp.bound(tau, 0.004, a, three);
        assertTrue(got >= exact, "a " + a + ": " + got + " < " + exact);
        assertTrue(got <= exact * (1 + 2e-12 * a), "a " + a + ": " + got + " vs " + exact);
      }
    }
  }

  /**
   * Sampling rates far below 1e-15 make the parts of each term large (|l log q| up to 745 l) and
   * the margin grows with them: the bound stays above the decimal formula. A bound that would be
   * subnormal (where doubles lose relative precision) is raised to 2^-999; an exact 0 stays 0. The
   * subnormal case is a reviewer's: order 300, q = 1e-156, sigma 1000 gave 1.50000074e-316 against
   * an exact 1.5000007500e-316.
   */
  @Test
  void tinySamplingRatesAndSubnormalBoundsStayAboveTheFormula() {
    IntToDoubleFunction gaussian = l -> l / (2.0 * 5 * 5);
    for (double q : new double[] {1e-40, 1e-100}) {
      for (int a : new int[] {3, 100, 300}) {
        double exact = tinyFormula(gaussian, q, a);
        double got = PoissonSubsampledRdp.bound(gaussian, q, a, true);
        assertTrue(got >= exact && got <= exact * (1 + 1e-7), "q " + q + " a " + a + ": " + got + " vs " + exact);
      }
    }
    assertEquals(0x1p-999, PoissonSubsampledRdp.bound(l -> l / 2e6, 1e-156, 300, true));
    assertEquals(0x1p-999, PoissonSubsampledRdp.bound(l -> l / 2e6, 1e-300, 100, true));
    assertEquals(0.0, PoissonSubsampledRdp.bound(l -> 0, 1e-300, 100, false)); // (the factor 3 makes it positive)
  }

  /**
   * The general bound where the sum is 1 + x with x below 1e-20 (60 digits cannot hold 1 + x): x =
   * sum_{l>=2} C(a,l) q^l (1-q)^(a-l) (c_l e^((l-1) eps(l)) - 1), the l = 0 and 1 terms being those
   * of ((1-q) + q)^a = 1, and log(1 + x) = x - x^2/2 + x^3/3 to far below the 60 digits.
   */
  private static double tinyFormula(IntToDoubleFunction eps, double q, int a) {
    BigDecimal bq = new BigDecimal(q);
    BigDecimal omq = BigDecimal.ONE.subtract(bq);
    BigDecimal x = BigDecimal.ZERO;
    for (int l = 2; l <= a; l++) {
      BigDecimal e = exp(new BigDecimal(eps.applyAsDouble(l)).multiply(BigDecimal.valueOf(l - 1)));
      BigDecimal c = (l >= 3 ? e.multiply(BigDecimal.valueOf(3)) : e).subtract(BigDecimal.ONE);
      x = x.add(new BigDecimal(binomial(a, l)).multiply(bq.pow(l, MC), MC).multiply(omq.pow(a - l, MC), MC)
          .multiply(c, MC), MC);
    }
    assertTrue(x.compareTo(new BigDecimal("1e-20")) < 0, "x " + x);
    BigDecimal log = x.subtract(x.pow(2).divide(BigDecimal.valueOf(2), MC)).add(x.pow(3).divide(BigDecimal.valueOf(3), MC));
    return log.divide(BigDecimal.valueOf(a - 1), MC).doubleValue();
  }

  /** The compensated running sum gives log C(n, k) to 1e-11 absolute, against exact integers. */
  @Test
  void binomialRowsMatchExactBinomials() {
    for (int n : new int[] {257, 10_001}) {
      double[] row = PoissonSubsampledRdp.logBinomialRow(n);
      assertEquals(n + 1, row.length);
      for (int k : new int[] {0, 1, 2, 3, n / 3, n / 2, n - 1, n}) {
        BigInteger c = binomial(n, k);
        int shift = Math.max(0, c.bitLength() - 60); // log c = log(c >> s) + s log 2, c >> s exact in 60 bits
        double exact = Math.log(c.shiftRight(shift).doubleValue()) + shift * Math.log(2);
        assertEquals(exact, row[k], 1e-11 + 1e-15 * exact, "n " + n + " k " + k);
      }
    }
  }

  /**
   * The accountant's SMM curve, computed once per integer order, equals the bound at each order of
   * its grid; at lambda 1e9 every order of the grid up to 10^4 is valid, and the curve is finite.
   */
  @Test
  void theSmmCurveEqualsTheBoundAtEveryOrderOfTheGrid() {
    for (double lambda : new double[] {1428, 1e9}) {
      SkellamMixtureDpEvent smm = new SkellamMixtureDpEvent(lambda, 4096, 1);
      double[] curve = RdpAccountant.curve(new PoissonSampledDpEvent(0.004, smm), RdpAccountant.ORDERS);
      for (int i = 0; i < curve.length; i += 7) {
        assertEquals(SkellamMixtureRdp.subsampledRdp(smm, 0.004, RdpAccountant.ORDERS[i],
            SkellamMixtureRdp.Subsampling.GENERAL), curve[i], "lambda " + lambda + " order " + RdpAccountant.ORDERS[i]);
      }
      assertTrue(lambda < 1e9 || Double.isFinite(curve[curve.length - 1]), "order 10001 is valid at lambda 1e9");
    }
  }

  private static BigInteger binomial(int n, int k) {
    BigInteger r = BigInteger.ONE;
    for (int i = 1; i <= k; i++) {
      r = r.multiply(BigInteger.valueOf(n - k + i)).divide(BigInteger.valueOf(i));
    }
    return r;
  }

  /** e^x for x >= 0: e^(x/2^k) by its Taylor series, squared k times. */
  private static BigDecimal exp(BigDecimal x) {
    int k = 0;
    BigDecimal y = x;
    while (y.compareTo(BigDecimal.ONE) > 0) {
      y = y.divide(BigDecimal.valueOf(2), MC);
      k++;
    }
    BigDecimal sum = BigDecimal.ONE;
    BigDecimal term = BigDecimal.ONE;
    for (int i = 1; i < 200; i++) {
      term = term.multiply(y, MC).divide(BigDecimal.valueOf(i), MC);
      sum = sum.add(term, MC);
      if (term.signum() == 0 || term.compareTo(sum.ulp()) < 0) {
        break;
      }
    }
    for (int i = 0; i < k; i++) {
      sum = sum.multiply(sum, MC);
    }
    return sum;
  }

  /** ln(s) for s > 0 by Newton's method on e^y = s, from the double estimate. */
  private static BigDecimal log(BigDecimal s) {
    BigDecimal y = new BigDecimal(Math.log(s.doubleValue()));
    for (int i = 0; i < 8; i++) {
      BigDecimal ey = y.signum() >= 0 ? exp(y) : BigDecimal.ONE.divide(exp(y.negate()), MC);
      y = y.add(s.subtract(ey, MC).divide(ey, MC), MC);
    }
    return y;
  }
}
