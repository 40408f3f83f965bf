package dev.helmet.privacy.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.accounting.GaussianMath;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EpsilonLowerBoundTest {
  @Test
  void clopperPearsonMatchesItsClosedFormsAndAReferenceValue() {
    // k = 0: P[Bin(n, p) = 0] = (1 - p)^n = alpha.  k = n - 1: 1 - p^n = alpha.
    assertEquals(1 - Math.pow(0.05, 1.0 / 50), EpsilonLowerBound.clopperPearsonUpper(0, 50, 0.05), 1e-12);
    assertEquals(Math.pow(0.95, 1.0 / 50), EpsilonLowerBound.clopperPearsonUpper(49, 50, 0.05), 1e-12);
    assertEquals(1, EpsilonLowerBound.clopperPearsonUpper(50, 50, 0.05));
    // R 4.x, binom.test(5, 100)$conf.int: [0.01643188, 0.11283491] (two-sided 95 %: one-sided 2.5 %).
    assertEquals(0.11283491, EpsilonLowerBound.clopperPearsonUpper(5, 100, 0.025), 1e-7);
  }

  @Test
  void theBoundIsTheDpInequalityWithBothRatesAtTheirUpperBounds() {
    assertEquals(Math.log((1 - 1e-5 - 0.2) / 0.1), EpsilonLowerBound.bound(0.1, 0.2, 1e-5), 1e-12);
    assertEquals(0, EpsilonLowerBound.bound(0.6, 0.5, 0)); // worse than guessing tells nothing
    assertEquals(0, EpsilonLowerBound.bound(0.1, 1, 0));
  }

  @Test
  void perfectlySeparatedTrialsGiveTheMostThatCountsAllow() {
    double[] d = new double[200];
    double[] n = new double[200];
    for (int i = 0; i < 200; i++) {
      d[i] = i % 7;
      n[i] = 10 + i % 5;
    }
    EpsilonLowerBound.Result r = EpsilonLowerBound.of(d, n, 0, 0.95);
    assertEquals(0, r.falsePositives());
    assertEquals(0, r.falseNegatives());
    double cp = 1 - Math.pow(0.025, 1.0 / 100);
    assertEquals(Math.log((1 - cp) / cp), r.epsilon(), 1e-9);
    assertTrue(r.largerMeansNeighbour());
    EpsilonLowerBound.Result swapped = EpsilonLowerBound.of(n, d, 0, 0.95);
    assertFalse(swapped.largerMeansNeighbour());
    assertEquals(r.epsilon(), swapped.epsilon(), 1e-12);
  }

  @Test
  void identicalDistributionsGiveNearlyNothing() {
    Random rnd = new Random(7);
    double[] d = new double[20_000];
    double[] n = new double[20_000];
    for (int i = 0; i < d.length; i++) {
      d[i] = rnd.nextGaussian();
      n[i] = rnd.nextGaussian();
    }
    double eps = EpsilonLowerBound.of(d, n, 1e-5, 0.95).epsilon();
    assertTrue(eps < 0.05, "eps_lb " + eps + " for two draws of one distribution");
  }

  @Test
  void gaussianMechanismAtEpsilonOneIsAuditedToMoreThanHalfOfItAndNeverAboveIt() {
    // The likelihood-ratio test of the Gaussian mechanism: a score is the release projected on the
    // direction of the neighbours' difference, N(0, 1) on D and N(mu, 1) on D', mu = sensitivity / sigma,
    // with mu the largest that is (1, 1e-5)-DP by the exact curve (Balle and Wang 2018).
    double lo = 0;
    double hi = 5;
    for (int i = 0; i < 100; i++) {
      double mid = (lo + hi) / 2;
      if (GaussianMath.delta(1, mid) <= 1e-5) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    double mu = lo;
    Random rnd = new Random(11);
    int trials = 1_000_000;
    double[] d = new double[trials];
    double[] n = new double[trials];
    for (int i = 0; i < trials; i++) {
      d[i] = rnd.nextGaussian();
      n[i] = mu + rnd.nextGaussian();
    }
    EpsilonLowerBound.Result r = EpsilonLowerBound.of(d, n, 1e-5, 0.95);
    assertTrue(r.epsilon() >= 0.5, "eps_lb " + r.epsilon() + " at mu " + mu);
    assertTrue(r.epsilon() <= 1, "eps_lb " + r.epsilon() + " above the true eps 1");
    // An under-scaled noise (sigma halved) must be caught: its eps_lb exceeds the printed 1.
    for (int i = 0; i < trials; i++) {
      n[i] = 2 * mu + rnd.nextGaussian();
    }
    assertTrue(EpsilonLowerBound.of(d, n, 1e-5, 0.95).epsilon() > 1);
  }

  @Test
  void badInputIsRefusedWithItsName() {
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> EpsilonLowerBound.of(new double[] {1, 2, Double.NaN, 3}, new double[] {1, 2, 3, 4}, 0, 0.95))
        .getMessage().contains("NaN"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> EpsilonLowerBound.of(new double[] {1, 2}, new double[] {1, 2, 3, 4}, 0, 0.95))
        .getMessage().contains("at least 4 trials"));
    assertThrows(IllegalArgumentException.class,
        () -> EpsilonLowerBound.of(new double[4], new double[4], 1, 0.95));
    assertThrows(IllegalArgumentException.class, () -> EpsilonLowerBound.clopperPearsonUpper(5, 4, 0.05));
  }
}
