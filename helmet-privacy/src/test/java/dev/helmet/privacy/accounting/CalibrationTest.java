package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.function.DoubleFunction;
import org.junit.jupiter.api.Test;

class CalibrationTest {

  private static DoubleFunction<DpEvent> releases(int k) {
    return s -> k == 1 ? new GaussianDpEvent(s) : new SelfComposedDpEvent(new GaussianDpEvent(s), k);
  }

  @Test
  void recoversTheAnalyticGaussianGoldenValue() {
    double sigma = Calibration.noiseMultiplier(releases(1), GaussianAccountant::new, 1, 1e-5);
    assertEquals(3.7306316348, sigma, 1e-8);
  }

  @Test
  void neverYieldsALargerEpsilonThanAskedAndIsTight() {
    for (int k : new int[] {1, 3, 10, 100}) {
      for (double eps : new double[] {0.01, 0.1, 0.3, 0.5, 1, 2, 5, 20}) {
        for (double delta : new double[] {1e-2, 1e-5, 1e-10}) {
          double sigma = Calibration.noiseMultiplier(releases(k), GaussianAccountant::new, eps, delta);
          double got = Calibration.epsilon(releases(k).apply(sigma), GaussianAccountant::new, delta);
          // The true eps is <= the target (delta(target) <= delta is what calibration checks); the
          // reported eps is rounded up by at most the eps bisection width, 1e-12 relative.
          assertTrue(got <= eps * (1 + 2e-12), String.format("k=%d eps=%g delta=%g: got %g", k, eps, delta, got));
          double looser = Calibration.epsilon(releases(k).apply(sigma * (1 - 1e-6)), GaussianAccountant::new, delta);
          assertTrue(looser > eps, "a slightly smaller sigma must overshoot: k=" + k + " eps=" + eps);
        }
      }
    }
  }

  @Test
  void moreReleasesNeedMoreNoiseBySqrtK() {
    double one = Calibration.noiseMultiplier(releases(1), GaussianAccountant::new, 0.5, 1e-5);
    double ten = Calibration.noiseMultiplier(releases(10), GaussianAccountant::new, 0.5, 1e-5);
    assertEquals(Math.sqrt(10), ten / one, 1e-8);
  }

  @Test
  void outOfRangeTargetsAreRejectedWithTheirName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Calibration.noiseMultiplier(releases(1), GaussianAccountant::new, 0, 1e-5));
    assertEquals("epsilon must be > 0 and finite. Provided value: 0.0", e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> Calibration.noiseMultiplier(releases(1), GaussianAccountant::new, 1, 1));
    assertThrows(IllegalArgumentException.class,
        () -> Calibration.noiseMultiplier(releases(1), GaussianAccountant::new, Double.NaN, 1e-5));
  }
}
