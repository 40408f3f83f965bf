package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.function.DoubleFunction;
import java.util.function.DoubleUnaryOperator;
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

  /** An accountant whose delta(eps) at noise multiplier sigma is {@code curve(sigma)}, counting its uses. */
  private static final class Curve implements PrivacyAccountant {
    final DoubleUnaryOperator curve;
    final java.util.List<Double> probes = new java.util.ArrayList<>();
    int evaluations;
    double sigma = Double.NaN;

    Curve(DoubleUnaryOperator curve) {
      this.curve = curve;
    }

    @Override
    public String name() {
      return "curve";
    }

    @Override
    public boolean supportsMechanism(DpEvent event) {
      return event instanceof GaussianDpEvent;
    }

    @Override
    public PrivacyAccountant compose(DpEvent event, int count) {
      sigma = ((GaussianDpEvent) event).noiseMultiplier();
      return this;
    }

    @Override
    public double epsilon(double delta) {
      throw new UnsupportedOperationException();
    }

    @Override
    public double delta(double epsilon) {
      evaluations++;
      probes.add(sigma);
      return curve.applyAsDouble(sigma);
    }
  }

  @Test
  void aSmoothCurveTakesFarFewerEvaluationsThanBisection() {
    // The analytic Gaussian's delta(eps) is smooth in sigma: with regula falsi (Illinois) a whole
    // calibration to 1e-10 took 14, 11 and 8 evaluations here (bracketing included), where
    // bisection took 39, 36 and 36 (measured on the code before and after the change).
    for (double eps : new double[] {0.1, 1, 10}) {
      Curve c = new Curve(s -> new GaussianAccountant().compose(new GaussianDpEvent(s)).delta(eps));
      double sigma = Calibration.noiseMultiplier(GaussianDpEvent::new, () -> c, eps, 1e-5);
      // 14 bounds it tightly: plain regula falsi (no Illinois halving) took 16 at eps 0.1.
      assertTrue(c.evaluations <= 14, "eps " + eps + ": " + c.evaluations + " evaluations");
      // Met, and tight: 1.2e-9 below it (more than the tolerance and the safety margin) is not.
      assertTrue(c.curve.applyAsDouble(sigma) <= 1e-5, "eps " + eps);
      assertTrue(c.curve.applyAsDouble(sigma * (1 - 1.2e-9)) > 1e-5, "eps " + eps);
    }
  }

  @Test
  void aStepCurveIsStillBracketedToTheToleranceAndMet() {
    // delta(eps) jumps from 1 to 0 at sigma = e: no slope to interpolate; the search falls back to
    // bisection and returns the first sigma past the step, within the tolerance.
    Curve c = new Curve(s -> s >= Math.E ? 0 : 1);
    double sigma = Calibration.noiseMultiplier(GaussianDpEvent::new, () -> c, 1, 1e-5, 1e-6);
    assertTrue(sigma >= Math.E && sigma <= Math.E * (1 + 1.1e-6), "sigma " + sigma);
    // 23 evaluations: bisection's rate (without the fallback on a non-finite log delta, 79).
    assertTrue(c.evaluations <= 25, c.evaluations + " evaluations");
    // A staircase (like RDP's integer orders): the answer is the first stair at or below the target.
    Curve stairs = new Curve(s -> Math.pow(10, -Math.floor(4 * s)));
    double st = Calibration.noiseMultiplier(GaussianDpEvent::new, () -> stairs, 1, 1e-5, 1e-8);
    assertTrue(st >= 1.25 && st <= 1.25 * (1 + 2e-8), "sigma " + st);
    // Regula falsi alone crawls along a stair by quarter-tolerance steps (tens of thousands of
    // evaluations here); the bisection fallback keeps it near bisection's count.
    assertTrue(stairs.evaluations <= 100, stairs.evaluations + " evaluations");
  }

  @Test
  void metIsDecidedOnDeltaItselfNotOnItsLogarithm() {
    // Between sigma 2 and 3 delta(eps) is one ulp above the target: its logarithm rounds to the
    // target's, but the target is not met there.
    Curve c = new Curve(s -> s < 2 ? 1 : s < 3 ? Math.nextUp(1e-5) : 0);
    double sigma = Calibration.noiseMultiplier(GaussianDpEvent::new, () -> c, 1, 1e-5, 1e-6);
    assertTrue(sigma >= 3 && sigma <= 3 * (1 + 1.1e-6), "sigma " + sigma);
    // An accountant that says delta is below zero (none here does) meets any target.
    Curve negative = new Curve(s -> s >= 2 ? -1e-20 : 1);
    double n = Calibration.noiseMultiplier(GaussianDpEvent::new, () -> negative, 1, 1e-5, 1e-6);
    assertTrue(n >= 2 && n <= 2 * (1 + 1.1e-6), "sigma " + n);
  }

  @Test
  void theBracketIsFoundByDoublingOrHalvingFromOne() {
    Curve up = new Curve(s -> s >= 5 ? 0 : 1);
    Calibration.noiseMultiplier(GaussianDpEvent::new, () -> up, 1, 1e-5, 1e-3);
    assertEquals(java.util.List.of(1.0, 2.0, 4.0, 8.0), up.probes.subList(0, 4));
    assertTrue(up.probes.subList(4, up.probes.size()).stream().allMatch(s -> s > 4 && s < 8), "" + up.probes);
    Curve down = new Curve(s -> s >= 0.3 ? 0 : 1);
    Calibration.noiseMultiplier(GaussianDpEvent::new, () -> down, 1, 1e-5, 1e-3);
    assertEquals(java.util.List.of(1.0, 0.5, 0.25), down.probes.subList(0, 3));
  }

  @Test
  void theToleranceIsRelativeAtBothEndsOfTheRange() {
    for (double root : new double[] {0.4e9, 3e-9}) {
      for (double tol : new double[] {1e-12, 1e-4}) {
        Curve c = new Curve(s -> 1e-5 * Math.pow(root / s, 50));
        double sigma = Calibration.noiseMultiplier(GaussianDpEvent::new, () -> c, 1, 1e-5, tol);
        assertTrue(c.curve.applyAsDouble(sigma) <= 1e-5, root + " " + tol);
        assertTrue(sigma <= root * (1 + tol + 1e-9 + 1e-14), root + " " + tol + ": sigma " + sigma);
        assertTrue(c.evaluations <= 30 + 12, root + " " + tol + ": " + c.evaluations + " evaluations");
      }
    }
  }

  @Test
  void theSearchCoversOneBillionthToOneBillion() {
    // Every sigma meets the target: the floor, 1e-9, is probed and returned (raised by SAFETY).
    Curve free = new Curve(s -> 0);
    double f = Calibration.noiseMultiplier(GaussianDpEvent::new, () -> free, 1, 1e-5, 1e-6);
    assertEquals(1e-9 * (1 + Calibration.SAFETY), f);
    assertEquals(1e-9, free.probes.get(free.probes.size() - 1));
    // Answers just above the floor and just below the ceiling are found to the tolerance (2^-29
    // and 2^29 are the last powers of two inside the range).
    for (double root : new double[] {1.2e-9, 6e8}) {
      Curve c = new Curve(s -> s >= root ? 0 : 1);
      double sigma = Calibration.noiseMultiplier(GaussianDpEvent::new, () -> c, 1, 1e-5, 1e-6);
      assertTrue(sigma >= root && sigma <= root * (1 + 1.1e-6), root + ": sigma " + sigma);
    }
    // No sigma up to 1e9 meets it: 1e9 itself was probed before giving up.
    Curve never = new Curve(s -> 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Calibration.noiseMultiplier(GaussianDpEvent::new, () -> never, 1, 1e-5, 1e-6));
    assertEquals("no noise multiplier up to 1e9 gives epsilon 1.0 at delta 1.0E-5", e.getMessage());
    assertEquals(1e9, never.probes.get(never.probes.size() - 1));
    assertEquals(31, never.evaluations);
  }

  @Test
  void anAccountantThatGivesNanNeverMeetsTheTarget() {
    // Below sigma 3 the accountant has no answer (NaN): such a sigma must not be returned.
    Curve c = new Curve(s -> s < 3 ? Double.NaN : Math.exp(-s));
    double sigma = Calibration.noiseMultiplier(GaussianDpEvent::new, () -> c, 1, 1e-5, 1e-6);
    assertEquals(-Math.log(1e-5), sigma, 1e-5);
    Curve nan = new Curve(s -> s < 3 ? Double.NaN : 0);
    double n = Calibration.noiseMultiplier(GaussianDpEvent::new, () -> nan, 1, 1e-5, 1e-6);
    assertTrue(n >= 3 && n <= 3 * (1 + 1.1e-6), "sigma " + n);
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
    for (double tol : new double[] {0, 1e-13, 0.1, Double.NaN}) {
      IllegalArgumentException t = assertThrows(IllegalArgumentException.class,
          () -> Calibration.noiseMultiplier(releases(1), GaussianAccountant::new, 1, 1e-5, tol));
      assertTrue(t.getMessage().startsWith("relative tolerance must be in [1e-12, 0.1)"), t.getMessage());
    }
  }

  /** A search over another parameter stops at its own largest value and refuses with its own words. */
  @Test
  void aSearchStopsAtItsLargestValueWithItsOwnRefusal() {
    Calibration.Search search = new Calibration.Search(GaussianDpEvent::new, 1e-6, 16,
        target -> "nothing up to 16 gives " + target);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Calibration.smallest(search, GaussianAccountant::new, 0.1, 1e-5));
    assertEquals("nothing up to 16 gives 0.1", e.getMessage());
    double sigma = Calibration.smallest(search, GaussianAccountant::new, 1, 1e-5);
    assertEquals(3.7306316348, sigma, 1e-5 * 3.73);
    assertTrue(new GaussianAccountant().compose(new GaussianDpEvent(sigma)).epsilon(1e-5) <= 1);
  }
}
