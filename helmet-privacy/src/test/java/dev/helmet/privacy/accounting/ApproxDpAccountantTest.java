package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.BinomialDpEvent;
import dev.helmet.privacy.event.DpEventJson;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import org.junit.jupiter.api.Test;

/** cpSGD's binomial mechanism and its (eps, delta) accountant. */
class ApproxDpAccountantTest {

  /**
   * Golden values of an independent instantiation of cpSGD's Theorem 1 (private-attribution/ipa,
   * ipa-core/src/protocol/dp/mod.rs, tests test_epsilon_simple_aggregation_case and
   * test_num_bernoulli_simple_aggregation_case): p = 1/2, s = 1, delta = 1e-6, d = 1, unit
   * sensitivities; N = 2000 gives eps in (0.6375, 0.6376), and 1483 is the smallest N with eps <= 1.
   */
  @Test
  void theoremOneMatchesAnIndependentImplementation() {
    double eps = BinomialMechanismDp.epsilon(2000, 1, 1, 1, 1, 1e-6);
    assertTrue(eps > 0.6375 && eps < 0.6376, "eps " + eps);
    assertTrue(BinomialMechanismDp.epsilon(1483, 1, 1, 1, 1, 1e-6) <= 1);
    assertTrue(BinomialMechanismDp.epsilon(1482, 1, 1, 1, 1, 1e-6) > 1);
  }

  /**
   * Distinct sensitivities and d > 1 (which the golden values above cannot tell apart), by hand:
   * N = 1e7 (Npq = 2.5e6), d = 65,536, L1 = 4096, L2 = 64, Linf = 60, delta = 1e-6: the three terms
   * are 64 sqrt(2 ln 1.25e6) / 1581.14 = 0.214488, (64 c_p sqrt(ln 1e7) + 4096/3) / 2.5e6 = 0.000800
   * and ((2/3) 60 ln 1.25e6 + 60 (2/3) ln(1.31072e12) ln 1e7) / 2.5e6 = 0.007420: eps 0.2227011 (the
   * sum in Python: 0.22270108859453566). 100 rounds at q = 0.02, delta 1e-5 in all: linear
   * composition gives 0.46357151, advanced composition at the best of the 99 splits 0.23864018 (the
   * same grid in Python).
   */
  @Test
  void distinctSensitivitiesAndCompositionMatchHandComputedValues() {
    BinomialDpEvent e = new BinomialDpEvent(10_000_000, 4096, 64, 60, 65_536);
    assertEquals(0.22270108859453566, BinomialMechanismDp.epsilon(e, 1e-6), 1e-11);
    double eps = new ApproxDpAccountant().compose(new PoissonSampledDpEvent(0.02, e), 100).epsilon(1e-5);
    assertEquals(0.23864017721064495, eps, 1e-10);
  }

  @Test
  void outsideTheTheoremsConditionThereIsNoGuarantee() {
    // N/4 >= 23 ln(10 d / delta): at d = 1, delta = 1e-6, 23 ln(1e7) = 370.7, so N/4 >= 370.7 needs N >= 1483.
    assertTrue(BinomialMechanismDp.valid(1483, 1, 1, 1e-6));
    assertFalse(BinomialMechanismDp.valid(1482, 1, 1, 1e-6));
    assertEquals(Double.POSITIVE_INFINITY, BinomialMechanismDp.epsilon(1482, 1, 1, 1, 1, 1e-6));
    // ... and N/4 >= 2 Dinf.
    assertFalse(BinomialMechanismDp.valid(4000, 600, 1, 1e-6));
    ApproxDpAccountant never = new ApproxDpAccountant();
    never.compose(new BinomialDpEvent(1000, 300, 300, 300, 1)); // N/4 = 250 < 2 Dinf at every delta
    assertEquals(1.0, never.delta(100.0), "no delta below 1/2 gives any eps");
    // N = 1000, d = 1: the condition 250 >= 23 ln(10 / delta) needs delta >= 10 exp(-250/23) = 1.90e-4.
    ApproxDpAccountant some = new ApproxDpAccountant();
    some.compose(new BinomialDpEvent(1000, 1, 1, 1, 1));
    assertEquals(Double.POSITIVE_INFINITY, some.epsilon(1.8e-4));
    assertTrue(some.delta(100.0) >= 1.90e-4 && some.delta(100.0) < 1.91e-4, "delta " + some.delta(100.0));
  }

  @Test
  void oneUnsampledReleaseIsTheoremOne() {
    BinomialDpEvent e = new BinomialDpEvent(100_000, 30, 8, 5, 64);
    double eps = new ApproxDpAccountant().compose(e).epsilon(1e-5);
    assertEquals(BinomialMechanismDp.epsilon(e, 1e-5), eps, 1e-10);
  }

  /**
   * k Poisson-sampled releases, recomputed here from the two composition theorems with the same
   * grid of delta splits: the accountant returns the smaller, and never more than either.
   */
  @Test
  void sampledRoundsComposeByTheBetterOfLinearAndAdvancedComposition() {
    BinomialDpEvent e = new BinomialDpEvent(4_000_000, 2000, 40, 40, 1024);
    double q = 0.01;
    int k = 500;
    double delta = 1e-5;
    double eps = new ApproxDpAccountant().compose(new SelfComposedDpEvent(new PoissonSampledDpEvent(q, e), k))
        .epsilon(delta);
    double linear = k * Math.log(1 + q * (Math.exp(BinomialMechanismDp.epsilon(e, delta / k / q)) - 1));
    double advanced = Double.POSITIVE_INFINITY;
    for (int i = 1; i < 100; i++) {
      double slack = delta * i / 100;
      double e1 = Math.log(1 + q * (Math.exp(BinomialMechanismDp.epsilon(e, (delta - slack) / k / q)) - 1));
      advanced = Math.min(advanced, Math.sqrt(2 * k * Math.log(1 / slack)) * e1 + k * e1 * (Math.exp(e1) - 1));
    }
    assertEquals(Math.min(linear, advanced), eps, 1e-9 * eps);
    assertTrue(advanced < linear, "at 500 rounds advanced composition wins: " + advanced + " vs " + linear);
    // delta(eps) inverts epsilon(delta), erring high.
    ApproxDpAccountant a = new ApproxDpAccountant();
    a.compose(new PoissonSampledDpEvent(q, e), k);
    double d = a.delta(eps);
    assertTrue(d >= delta * (1 - 1e-6) && d <= delta * (1 + 1e-6), "delta " + d);
  }

  @Test
  void calibrationFindsTheFewestTrialsForTheTarget() {
    java.util.function.DoubleFunction<dev.helmet.privacy.event.DpEvent> event = x -> new SelfComposedDpEvent(
        new PoissonSampledDpEvent(0.004, new BinomialDpEvent(2 * (long) Math.ceil(x / 2), 85_760, 335, 335, 65_536)),
        1000);
    double n = Calibration.noiseMultiplier(event, ApproxDpAccountant::new, 3, 1e-5);
    assertTrue(new ApproxDpAccountant().compose(event.apply(n)).epsilon(1e-5) <= 3);
    assertTrue(new ApproxDpAccountant().compose(event.apply(n * 0.99)).epsilon(1e-5) > 3);
  }

  @Test
  void eventsRoundTripThroughJsonAndReplaceOneIsRefused() {
    BinomialDpEvent e = new BinomialDpEvent(12_345_678, 85_760, 335.5, 335, 65_536);
    assertEquals(e, DpEventJson.fromJson(DpEventJson.toJson(e)));
    assertTrue(Accountants.named("approx-dp").get().supports(new PoissonSampledDpEvent(0.1, e)));
    assertFalse(new ApproxDpAccountant().supports(new PoissonSampledDpEvent(0.1, e, NeighbourRelation.REPLACE_ONE)));
    assertFalse(new RdpAccountant().supports(e), "RDP has no curve for the binomial mechanism");
    assertThrows(IllegalArgumentException.class, () -> new BinomialDpEvent(0, 1, 1, 1, 1));
  }
}
