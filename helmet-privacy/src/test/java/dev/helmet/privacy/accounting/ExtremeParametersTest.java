package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.BinomialDpEvent;
import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.NoOpDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SkellamDpEvent;
import dev.helmet.privacy.event.SlackDpEvent;
import org.junit.jupiter.api.Test;

/**
 * Accepted but extreme parameters, where an overflow or a rounding once under-reported the
 * privacy loss (each case was found by probing the accountants; the old value is in its comment).
 * Every accountant must fail closed there: a larger eps, an infinite one, or a clear refusal.
 */
class ExtremeParametersTest {

  @Test
  void pldRefusesDeltasBelowWhatItResolves() {
    // Was eps 0.001 at sigma 8100, delta 1e-300 (exact: 0.00453): the mass at infinity below
    // 1.1e-16 rounded to 0 and delta above the grid became 0.
    PldAccountant a = new PldAccountant().compose(new GaussianDpEvent(8100), 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.epsilon(1e-300));
    assertTrue(e.getMessage().startsWith("the PLD accountant resolves delta down to 1.0E-10"), e.getMessage());
    assertEquals(PldAccountant.SMALLEST_DELTA, a.delta(1));
    double exact = new GaussianAccountant().compose(new GaussianDpEvent(8100)).epsilon(1e-10);
    assertTrue(a.epsilon(1e-10) >= exact, a.epsilon(1e-10) + " < " + exact);
  }

  @Test
  void pldRefusesNoiseMultipliersWhoseLossesOverflowNamingTheLimit() {
    // Was "a privacy loss or delta evaluated to NaN at 1.3e308" at sigma 1e300: 2 sigma^2 overflowed.
    for (DpEvent e : new DpEvent[] {new GaussianDpEvent(1e300), new PoissonSampledDpEvent(0.01, new GaussianDpEvent(1e151)),
        new PoissonSampledDpEvent(0.01, new GaussianDpEvent(1e300), NeighbourRelation.REPLACE_ONE)}) {
      IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> new PldAccountant().compose(e));
      assertTrue(x.getMessage().startsWith("the PLD accountant handles noise multipliers up to 1.0E150"), x.getMessage());
    }
    // At the limit it still works, and the eps is as small as the exact one (0 to double precision).
    double eps = new PldAccountant().compose(new GaussianDpEvent(PldAccountant.MAX_NOISE_MULTIPLIER)).epsilon(1e-5);
    double exact = new GaussianAccountant().compose(new GaussianDpEvent(PldAccountant.MAX_NOISE_MULTIPLIER))
        .epsilon(1e-5);
    assertTrue(eps >= exact && eps < 1e-3, eps + " vs " + exact);
  }

  @Test
  void pldKeepsSmallFailureMassesThroughComposition() {
    // 10^6 steps of slack 1e-15 fail with probability 1 - (1 - 1e-15)^(10^6), about 1e-9; 1 - (1 -
    // a)(1 - b) rounded each step's 1e-15 to a multiple of 1.1e-16 (0.08 % low).
    PldAccountant a = new PldAccountant().compose(new SlackDpEvent(1e-15, new NoOpDpEvent()), 1_000_000);
    double expected = -Math.expm1(1_000_000 * Math.log1p(-1e-15));
    assertEquals(expected, a.delta(0), 1e-6 * expected);
  }

  @Test
  void smmTauDividesBeforeItOverflows() {
    // 2 lambda = infinity made tau 0 (eps 10.1 where 8.5e5 was due); c / lambda first is the same bound.
    double normal = SkellamMixtureRdp.tau(4, 1e8, 1e6);
    assertEquals((1.2 * 4 + 1) / 2 * 1e8 / (2 * 1e6), normal);
    assertEquals(SkellamMixtureRdp.tau(4, 100, 1), SkellamMixtureRdp.tau(4, 1e308, 1e306), 1e-12);
    assertEquals(SkellamMixtureRdp.tau(4, 1, 1), SkellamMixtureRdp.tau(4, 1.7e308, 1.7e308), 1e-12);
  }

  @Test
  void skellamDividesByMuBeforeItOverflows() {
    // 4 mu = infinity made the Gaussian part 0 (eps 0.070 where 12.3 was due).
    // The Gaussian part a L2^2 / (4 mu) = 0.005; the discrete part's first term is about 1e-310.
    double huge = SkellamRdp.rdp(new SkellamDpEvent(1e308, 1e153, 1e306), 2);
    assertTrue(huge >= 0.005 && huge <= 0.005 * (1 + 1e-9), "rdp " + huge);
  }

  @Test
  void distributedDiscreteGaussianDividesBeforeItOverflows() {
    // n sigma^2 = infinity made the bound 0 (eps 1.3e-4 where 12.3 was due).
    var huge = new DistributedDiscreteGaussianDpEvent(1e154, 2, 1e153, 1e153, 10);
    var scaled = new DistributedDiscreteGaussianDpEvent(1e4, 2, 1e3, 1e3, 10);
    double expected = RdpAccountant.distributedDiscreteGaussian(scaled, 3);
    assertEquals(expected, RdpAccountant.distributedDiscreteGaussian(huge, 3), 1e-9 * expected);
  }

  @Test
  void approximateDpAccountingIsNeverNanAndCountsArePositive() {
    var step = new PoissonSampledDpEvent(1e-320, new BinomialDpEvent(1000, 10, 10, 10, 1));
    double eps = new ApproxDpAccountant().compose(step, 100).epsilon(1e-320);
    assertTrue(!Double.isNaN(eps) && eps >= 0, "eps " + eps);
    assertThrows(IllegalArgumentException.class, () -> new ApproxDpAccountant().compose(step, -1)); // was eps -inf
    assertThrows(IllegalArgumentException.class, () -> new ApproxDpAccountant().compose(step, 0));
  }

  @Test
  void rdpOrdersMustBeFinite() {
    // An infinite order made eps and delta NaN.
    assertThrows(IllegalArgumentException.class, () -> new RdpAccountant(new double[] {2, Double.POSITIVE_INFINITY}));
  }
}
