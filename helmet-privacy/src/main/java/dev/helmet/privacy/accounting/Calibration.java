package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.DpEvent;
import java.util.function.DoubleFunction;
import java.util.function.Supplier;

/**
 * One calibration routine for every mechanism and accountant: the smallest noise multiplier whose
 * event meets a target (eps, delta). It needs only that more noise never costs more privacy.
 */
public final class Calibration {
  /** Relative margin added to every calibrated noise multiplier (see {@link #noiseMultiplier}). */
  public static final double SAFETY = 1e-9;

  private Calibration() {}

  /**
   * The noise multiplier sigma for which {@code eventForSigma.apply(sigma)} is (eps, delta)-DP
   * according to a fresh accountant from {@code accountants}.
   *
   * <p>Bisection on log sigma, keeping the invariant that the upper end meets the target; the upper
   * end is returned, raised by a further 1e-9 relative, so the result never overshoots: {@code
   * delta(eps) <= delta} holds for the returned sigma with room for the floating-point error of
   * the accountant (about 1e-14 relative for the Gaussian curve) and of the arithmetic that turns
   * sigma into a noise scale. The returned sigma exceeds the exact answer by about 1e-9 relative.
   *
   * @throws IllegalArgumentException if no sigma up to 1e9 reaches the target
   */
  public static double noiseMultiplier(
      DoubleFunction<DpEvent> eventForSigma, Supplier<PrivacyAccountant> accountants, double epsilon, double delta) {
    return noiseMultiplier(eventForSigma, accountants, epsilon, delta, 1e-10);
  }

  /**
   * As above, stopping the bisection once the bracket is within {@code relativeTolerance}: for
   * accountants whose every evaluation is expensive (PLD) and whose own discretisation is coarser
   * than 1e-10. The returned sigma still meets the target (it is the bracket's upper end, checked
   * by the accountant); it may exceed the smallest such sigma by up to the tolerance.
   */
  public static double noiseMultiplier(DoubleFunction<DpEvent> eventForSigma, Supplier<PrivacyAccountant> accountants,
      double epsilon, double delta, double relativeTolerance) {
    Checks.require(relativeTolerance >= 1e-12 && relativeTolerance < 0.1,
        "relative tolerance must be in [1e-12, 0.1). Provided value: " + relativeTolerance);
    Checks.positive("epsilon", epsilon);
    Checks.openUnit("delta", delta);
    double hi = 1;
    double lo;
    if (meets(eventForSigma, accountants, hi, epsilon, delta)) {
      lo = hi;
      do {
        hi = lo;
        lo = hi / 2;
        if (lo < 1e-9) {
          return hi;
        }
      } while (meets(eventForSigma, accountants, lo, epsilon, delta));
    } else {
      do {
        lo = hi;
        hi = lo * 2;
        if (hi > 1e9) {
          throw new IllegalArgumentException("no noise multiplier up to 1e9 gives epsilon " + epsilon
              + " at delta " + delta);
        }
      } while (!meets(eventForSigma, accountants, hi, epsilon, delta));
    }
    while (hi / lo - 1 > relativeTolerance) {
      double mid = Math.sqrt(lo * hi);
      if (meets(eventForSigma, accountants, mid, epsilon, delta)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return hi * (1 + SAFETY);
  }

  private static boolean meets(
      DoubleFunction<DpEvent> eventForSigma, Supplier<PrivacyAccountant> accountants, double sigma,
      double epsilon, double delta) {
    PrivacyAccountant a = accountants.get().compose(eventForSigma.apply(sigma));
    return a.delta(epsilon) <= delta;
  }

  /** The eps at {@code delta} of {@code event} according to a fresh accountant. */
  public static double epsilon(DpEvent event, Supplier<PrivacyAccountant> accountants, double delta) {
    return accountants.get().compose(event).epsilon(delta);
  }
}
