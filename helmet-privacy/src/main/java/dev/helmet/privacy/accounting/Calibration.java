package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.DpEvent;
import java.util.function.DoubleFunction;
import java.util.function.Supplier;

/**
 * One calibration routine for every mechanism and accountant: the smallest noise multiplier (or
 * other free parameter, {@link Search}) whose event meets a target (eps, delta). It needs only that
 * more noise never costs more privacy.
 */
public final class Calibration {
  /** Relative margin added to every calibrated noise multiplier (see {@link #noiseMultiplier}). */
  public static final double SAFETY = 1e-9;
  /** The search's range of noise multipliers (the upper end is {@link Search#max()} in general). */
  private static final double MIN_SIGMA = 1e-9;
  private static final double MAX_SIGMA = 1e9;

  private Calibration() {}

  /**
   * The noise multiplier sigma for which {@code eventForSigma.apply(sigma)} is (eps, delta)-DP
   * according to a fresh accountant from {@code accountants}.
   *
   * <p>A bracketed search on log sigma ({@link #noiseMultiplier(DoubleFunction, Supplier, double,
   * double, double)}) whose upper end always meets the target; the upper end is returned, raised by
   * a further 1e-9 relative, so the result never overshoots: {@code delta(eps) <= delta} holds for
   * the returned sigma with room for the floating-point error of the accountant (about 1e-14
   * relative for the Gaussian curve) and of the arithmetic that turns sigma into a noise scale. The
   * returned sigma exceeds the exact answer by about 1e-9 relative. The search covers sigma in [1e-9,
   * 1e9]: when 1e-9 already meets the target, 1e-9 (raised the same way) is returned.
   *
   * @throws IllegalArgumentException if no sigma up to 1e9 reaches the target
   */
  public static double noiseMultiplier(
      DoubleFunction<DpEvent> eventForSigma, Supplier<PrivacyAccountant> accountants, double epsilon, double delta) {
    return noiseMultiplier(eventForSigma, accountants, epsilon, delta, 1e-10);
  }

  /**
   * As above, stopping once the bracket is within {@code relativeTolerance}: for accountants whose
   * every evaluation is expensive (PLD) and whose own discretisation is coarser than 1e-10. The
   * bracket's upper end was checked by the accountant; the returned sigma is that end raised by
   * {@link #SAFETY}, which meets the target because more noise never costs more privacy. It may
   * exceed the smallest such sigma by up to the tolerance plus {@code SAFETY}.
   *
   * <p>The search doubles or halves sigma from 1 until it brackets the answer, then narrows the
   * bracket by regula falsi on (log sigma, log delta(eps)) with the Illinois modification, which
   * converges superlinearly where delta(eps) is smooth in sigma (a PLD calibration needs about half
   * the accountant evaluations of bisection). It falls back to the bracket's midpoint where the
   * interpolation is not defined (delta 0 or not finite) and keeps every probe at least a quarter of
   * the tolerance inside the bracket, so the bracket shrinks at every step whatever the accountant
   * returns. Correctness needs only that the upper end meets the target (it is only ever set to a
   * probe the accountant passed) and that more noise never costs more privacy. At most about 4
   * evaluations halve the bracket (the bisection fallback below), so with the at most 31 evaluations
   * of bracketing the search ends within about 190 evaluations even at a tolerance of 1e-12.
   *
   * @throws IllegalArgumentException if no sigma up to 1e9 reaches the target, or the tolerance is
   *     outside [1e-12, 0.1)
   */
  public static double noiseMultiplier(DoubleFunction<DpEvent> eventForSigma, Supplier<PrivacyAccountant> accountants,
      double epsilon, double delta, double relativeTolerance) {
    return smallest(new Search(eventForSigma, relativeTolerance, MAX_SIGMA, null), accountants, epsilon, delta);
  }

  /**
   * How to search a mechanism's free parameter x (a noise multiplier, a Skellam lambda, a binomial
   * mechanism's standard deviation): its event at each x, more x never costing more privacy.
   *
   * @param eventAt the event at x
   * @param relativeTolerance where the search stops, in [1e-12, 0.1) (see {@link #noiseMultiplier(
   *     DoubleFunction, Supplier, double, double, double)})
   * @param max the largest x tried (above 1); 1e9 for noise multipliers
   * @param unreachable the refusal when x = max misses the target, given the target eps (null: "no
   *     noise multiplier up to 1e9 gives epsilon ..."): a mechanism whose eps has a floor names it
   */
  public record Search(DoubleFunction<DpEvent> eventAt, double relativeTolerance, double max,
      DoubleFunction<String> unreachable) {
    public Search {
      Checks.notNull("event", eventAt);
      Checks.require(relativeTolerance >= 1e-12 && relativeTolerance < 0.1,
          "relative tolerance must be in [1e-12, 0.1). Provided value: " + relativeTolerance);
      Checks.require(max > 1 && max < Double.POSITIVE_INFINITY, "the search's largest value must be above 1 and "
          + "finite. Provided value: " + max);
    }

    /** A search over noise multipliers in [1e-9, 1e9] at the default tolerance, 1e-10. */
    public static Search noiseMultiplier(DoubleFunction<DpEvent> eventForSigma) {
      return new Search(eventForSigma, 1e-10, MAX_SIGMA, null);
    }

    /** The same search stopping at another tolerance. */
    public Search withTolerance(double tolerance) {
      return new Search(eventAt, tolerance, max, unreachable);
    }
  }

  /**
   * The one calibration routine: the smallest x in [1e-9, {@code search.max()}] (rounded up, as
   * {@link #noiseMultiplier(DoubleFunction, Supplier, double, double, double)} describes, which is
   * this search over noise multipliers up to 1e9) whose event meets (eps, delta) according to a
   * fresh accountant from {@code accountants}.
   *
   * @throws IllegalArgumentException if x = {@code search.max()} misses the target (the search's
   *     {@code unreachable} message)
   */
  public static double smallest(Search search, Supplier<PrivacyAccountant> accountants, double epsilon,
      double delta) {
    Checks.positive("epsilon", epsilon);
    Checks.openUnit("delta", delta);
    DoubleFunction<DpEvent> eventForSigma = search.eventAt();
    double relativeTolerance = search.relativeTolerance();
    double max = search.max();
    double hi = 1;
    double lo;
    double fHi = gap(eventForSigma, accountants, hi, epsilon, delta);
    double fLo;
    if (fHi <= 0) {
      do {
        if (hi <= MIN_SIGMA) {
          return hi * (1 + SAFETY); // the floor itself meets the target
        }
        lo = Math.max(hi / 2, MIN_SIGMA);
        fLo = gap(eventForSigma, accountants, lo, epsilon, delta);
        if (fLo <= 0) {
          hi = lo;
          fHi = fLo;
        }
      } while (fLo <= 0);
    } else {
      do {
        if (hi >= max) {
          throw new IllegalArgumentException(search.unreachable() != null ? search.unreachable().apply(epsilon)
              : "no noise multiplier up to 1e9 gives epsilon " + epsilon + " at delta " + delta);
        }
        lo = hi;
        fLo = fHi;
        hi = Math.min(lo * 2, max);
        fHi = gap(eventForSigma, accountants, hi, epsilon, delta);
      } while (!(fHi <= 0));
    }
    // Invariant: hi meets the target (fHi <= 0), lo does not (fLo > 0 or NaN; the Illinois halving
    // may round a tiny fLo to 0, which only sends the next probe to the clamp), lo < hi.
    double minStep = Math.log1p(relativeTolerance) / 4;
    int kept = 0; // +1: lo was kept on the last step(s), -1: hi was
    double halvedAt = Math.log(hi / lo);
    int sinceHalved = 0;
    while (hi / lo - 1 > relativeTolerance) {
      double xLo = Math.log(lo);
      double xHi = Math.log(hi);
      // Bisect when three probes have not halved the bracket (delta(eps) need not be smooth: RDP's
      // integer orders, PLD's grid), so the search is never slower than a quarter of bisection's rate.
      double x = sinceHalved < 3 && fLo > fHi && Double.isFinite(fLo) && Double.isFinite(fHi)
          ? xLo + fLo * (xHi - xLo) / (fLo - fHi)
          : Double.NaN;
      if (Double.isNaN(x)) {
        x = xLo + (xHi - xLo) / 2;
      }
      // At least minStep inside: once the estimate has converged onto an end, the probe lands just
      // past it and closes the bracket.
      x = Math.max(xLo + minStep, Math.min(xHi - minStep, x));
      double mid = Math.exp(x);
      if (!(mid > lo && mid < hi)) { // a guard only: the bracket stays wider than 4 minStep
        mid = Math.sqrt(lo * hi);
        if (!(mid > lo && mid < hi)) {
          break;
        }
      }
      double f = gap(eventForSigma, accountants, mid, epsilon, delta);
      if (f <= 0) {
        hi = mid;
        fHi = f;
        if (kept == 1) {
          fLo /= 2; // Illinois: lo stayed twice in a row; halve its weight so the next probe lands nearer it
        }
        kept = 1;
      } else {
        lo = mid;
        fLo = f;
        if (kept == -1) {
          fHi /= 2;
        }
        kept = -1;
      }
      if (Math.log(hi / lo) <= halvedAt / 2) {
        halvedAt = Math.log(hi / lo);
        sinceHalved = 0;
      } else {
        sinceHalved++;
      }
    }
    return hi * (1 + SAFETY);
  }

  /**
   * log delta(eps) - log delta for a fresh accountant at {@code sigma}: at most 0 exactly when the
   * target is met ({@code -infinity} when delta(eps) is 0 or less; NaN, which never meets it, when
   * the accountant gives NaN).
   */
  private static double gap(DoubleFunction<DpEvent> eventForSigma, Supplier<PrivacyAccountant> accountants,
      double sigma, double epsilon, double delta) {
    double d = accountants.get().compose(eventForSigma.apply(sigma)).delta(epsilon);
    if (Double.isNaN(d)) {
      return Double.NaN;
    }
    double g = Math.log(d) - Math.log(delta);
    // Whether the target is met is decided on delta itself, not on its rounded logarithm.
    if (d <= delta) {
      return d > 0 ? Math.min(g, 0) : Double.NEGATIVE_INFINITY; // d <= 0 (no accountant should say so) meets it
    }
    return Math.max(g, Double.MIN_VALUE);
  }

  /** The eps at {@code delta} of {@code event} according to a fresh accountant. */
  public static double epsilon(DpEvent event, Supplier<PrivacyAccountant> accountants, double delta) {
    return accountants.get().compose(event).epsilon(delta);
  }
}
