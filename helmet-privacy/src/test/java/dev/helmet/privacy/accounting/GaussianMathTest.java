package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.ComposedDpEvent;
import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NoOpDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.List;
import org.apache.commons.numbers.gamma.Erfc;
import org.junit.jupiter.api.Test;

class GaussianMathTest {

  /** SPEC 1.4 golden value: the analytic Gaussian (Balle and Wang 2018) at eps = 1, delta = 1e-5. */
  @Test
  void sigma3point7306IsEpsilonOneAtDeltaOneInHundredThousand() {
    double eps = new GaussianAccountant().compose(new GaussianDpEvent(3.7306316348)).epsilon(1e-5);
    assertEquals(1.0, eps, 1e-9);
  }

  /** SPEC 1.4 golden value: sigma = sqrt(3), K_comp = 3 gives delta(1) = 0.126936. */
  @Test
  void threeReleasesWithSigmaRootThreeHaveDeltaPoint126936AtEpsilonOne() {
    double delta = new GaussianAccountant().compose(new GaussianDpEvent(Math.sqrt(3)), 3).delta(1);
    assertEquals(0.126936, delta, 1e-6);
  }

  /** The naive formula, accurate where nothing overflows or cancels. */
  private static double naive(double eps, double mu) {
    return 0.5 * Erfc.value((eps / mu - mu / 2) / Math.sqrt(2))
        - Math.exp(eps) * 0.5 * Erfc.value((eps / mu + mu / 2) / Math.sqrt(2));
  }

  /**
   * delta(eps) = E[(1 - e^(eps - L))_+] for the privacy loss L ~ N(mu^2/2, mu^2): integrated here
   * with composite Simpson on [eps, mu^2/2 + 40 mu], 200000 intervals.
   */
  private static double integrated(double eps, double mu) {
    double mean = mu * mu / 2;
    double lo = eps;
    double hi = Math.max(eps, mean) + 40 * mu;
    int n = 200_000;
    double h = (hi - lo) / n;
    double sum = 0;
    for (int i = 0; i <= n; i++) {
      double l = lo + i * h;
      double z = (l - mean) / mu;
      double f = (1 - Math.exp(eps - l)) * Math.exp(-z * z / 2) / (mu * Math.sqrt(2 * Math.PI));
      sum += f * (i == 0 || i == n ? 1 : i % 2 == 1 ? 4 : 2);
    }
    return sum * h / 3;
  }

  @Test
  void closedFormAgreesWithNumericalIntegrationOfThePrivacyLoss() {
    for (double mu : new double[] {0.1, 0.5, 1, 2, 5}) {
      for (double eps : new double[] {0, 0.1, 0.5, 1, 3, 8}) {
        double exact = GaussianMath.delta(eps, mu);
        double numeric = integrated(eps, mu);
        if (numeric > 1e-250) {
          assertEquals(numeric, exact, 1e-9 * Math.max(numeric, 1e-300) + 1e-15,
              "mu " + mu + " eps " + eps);
        }
      }
    }
  }

  @Test
  void stableFormMatchesTheNaiveFormulaWhereTheNaiveOneIsAccurate() {
    for (double mu : new double[] {0.3, 1, 3}) {
      for (double eps : new double[] {0, 0.2, 1, 2}) {
        assertEquals(naive(eps, mu), GaussianMath.delta(eps, mu), 1e-13, "mu " + mu + " eps " + eps);
      }
    }
  }

  @Test
  void largeEpsilonStaysFiniteWhereTheNaiveFormulaBreaks() {
    double d = GaussianMath.delta(800, 30);
    assertTrue(d > 0 && d < 1e-20, String.valueOf(d));
    assertTrue(!Double.isFinite(naive(800, 30)), "e^800 overflows in the naive formula");
    assertEquals(0.0, GaussianMath.delta(5, 0)); // no release, no loss
  }

  @Test
  void deltaFallsWithEpsilonAndRisesWithMu() {
    double prev = 1;
    for (double eps = 0; eps < 20; eps += 0.25) {
      double d = GaussianMath.delta(eps, 1.3);
      assertTrue(d <= prev, "eps " + eps);
      prev = d;
    }
    prev = 0;
    for (double mu = 0.05; mu < 10; mu *= 1.3) {
      double d = GaussianMath.delta(1, mu);
      assertTrue(d >= prev, "mu " + mu);
      prev = d;
    }
  }

  @Test
  void epsilonIsTheConservativeInverseOfDelta() {
    for (double mu : new double[] {0.05, 0.3, 1, 4, 20}) {
      for (double delta : new double[] {1e-3, 1e-5, 1e-9}) {
        double eps = GaussianMath.epsilon(delta, mu);
        assertTrue(GaussianMath.delta(eps, mu) <= delta, "never a larger delta than asked");
        if (eps > 0) {
          assertTrue(GaussianMath.delta(eps * (1 - 1e-9), mu) > delta, "and not loose: mu " + mu);
        }
      }
    }
  }

  @Test
  void compositionOfGaussiansIsOneGaussianWithTheRootSumOfInversSquares() {
    GaussianAccountant a = new GaussianAccountant().compose(new SelfComposedDpEvent(new GaussianDpEvent(2), 4));
    GaussianAccountant b = new GaussianAccountant().compose(new GaussianDpEvent(1));
    assertEquals(b.mu(), a.mu(), 1e-15);
    GaussianAccountant c = new GaussianAccountant().compose(
        new ComposedDpEvent(List.of(new GaussianDpEvent(3), new NoOpDpEvent(), new GaussianDpEvent(4))));
    assertEquals(1 / 2.4, c.mu(), 1e-15); // 1/9 + 1/16 = 25/144
    assertTrue(a.supports(new ComposedDpEvent(List.of(new NoOpDpEvent()))));
    // a composite is supported only if every part is: the exact Gaussian accountant cannot account
    // the distributed discrete Gaussian, however deeply it is nested
    var nested = new ComposedDpEvent(List.of(new GaussianDpEvent(1),
        new SelfComposedDpEvent(new DistributedDiscreteGaussianDpEvent(2, 10, 1, 1, 1), 3)));
    assertFalse(a.supports(nested));
    assertTrue(new RdpAccountant().supports(nested));
    assertThrows(UnsupportedEventException.class, () -> new GaussianAccountant().compose(nested));
  }

  /** Group privacy (Helmet Cor. 5.4): sensitivity G is the same as noise multiplier sigma / G. */
  @Test
  void groupOfTwoWithSigmaTwoIsOneRecordWithSigmaOne() {
    double group = new GaussianAccountant().compose(new GaussianDpEvent(2.0 / 2)).epsilon(1e-5);
    double single = new GaussianAccountant().compose(new GaussianDpEvent(1.0)).epsilon(1e-5);
    assertEquals(single, group, 0);
  }

  /** A noise multiplier whose 1 / sigma^2 overflows gives no privacy, not "mu must be finite". */
  @Test
  void anOverflowingMuIsNoPrivacy() {
    GaussianAccountant a = new GaussianAccountant().compose(new GaussianDpEvent(1e-200));
    assertEquals(Double.POSITIVE_INFINITY, a.epsilon(1e-5));
    assertEquals(1, a.delta(100));
    assertThrows(IllegalArgumentException.class, () -> a.epsilon(0));
  }
}
