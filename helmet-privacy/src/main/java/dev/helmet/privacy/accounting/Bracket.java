package dev.helmet.privacy.accounting;

import java.util.function.DoubleUnaryOperator;

/**
 * A bracket a < b on a non-decreasing function g around a target: g(a) is on the low side (g(a)
 * <= target, or g(a) < target if strict) and g(b) on the high side. {@link #narrow} shrinks it by
 * safeguarded secant steps, each at least half the tolerance long, so that once the estimate has
 * converged the next point lands just past it and closes the bracket.
 *
 * <p>Only the side of each evaluation moves the ends, exactly as in bisection, and every point is
 * evaluated strictly inside the current bracket: whatever the rounding in g, a is always the
 * largest point evaluated on the low side, b the smallest evaluated on the high side above it.
 */
final class Bracket {
  private static final int MAX_STEPS = 400;

  private final DoubleUnaryOperator g;
  private final boolean strict;
  double target;
  double a;
  double fa;
  double b;
  double fb;
  /** The number of evaluations of g so far. */
  long evaluations;

  Bracket(DoubleUnaryOperator g, boolean strict) {
    this.g = g;
    this.strict = strict;
  }

  /**
   * g(x) - target.
   *
   * @throws IllegalStateException if g(x) is NaN: neither side is safe for every caller (a NaN
   *     privacy loss on the high side would misplace a threshold, a NaN delta there would pass as met)
   */
  double value(double x) {
    evaluations++;
    double gx = g.applyAsDouble(x);
    if (Double.isNaN(gx)) {
      throw new IllegalStateException("the PLD accountant could not bound this mechanism: a privacy loss or"
          + " delta evaluated to NaN at " + x);
    }
    return gx - target;
  }

  /** Whether g(x) - target = v is on the low side. */
  boolean low(double v) {
    return strict ? v < 0 : v <= 0;
  }

  /**
   * With a and fa set (on the low side), finds b: evaluates x (> a), then x + step, x + 3 step, ...
   * (doubling steps), moving a up past every low-side point. False if no high-side point was found
   * after {@code tries} evaluations; a is then the last point tried.
   */
  boolean expandUp(double x, double step, int tries) {
    for (int k = 0; k < tries; k++) {
      double v = value(x);
      if (!low(v)) {
        b = x;
        fb = v;
        return true;
      }
      a = x;
      fa = v;
      x += step;
      step *= 2;
    }
    return false;
  }

  /**
   * Narrows a valid bracket until {@code b - a <= rel * max(1, min(|a|, |b|))}. Each step is a
   * secant step from the end with the smaller |g - target| through the previous such end (at first
   * the other end), at least tol/2 long; it is replaced by bisection when it leaves the bracket or
   * is longer than half the step before the last (as in Brent's method). Steps of tol/2 next to an
   * end are not held to that, so a g that is flat on one side of the target and drops steeply on
   * the other can crawl by tol/2 for all {@code MAX_STEPS} (400) steps before {@link #bisect}
   * finishes: a bound on the work, not bisection's rate. The PLD's smooth losses take a few steps.
   */
  void narrow(double rel) {
    boolean baseLow = !(Math.abs(fb) < Math.abs(fa));
    double px = baseLow ? b : a; // the secant's second point
    double pf = baseLow ? fb : fa;
    double last = Double.POSITIVE_INFINITY;
    double beforeLast = Double.POSITIVE_INFINITY;
    for (int step = 0; step < MAX_STEPS; step++) {
      double tol = rel * Math.max(1, Math.min(Math.abs(a), Math.abs(b)));
      if (!(b - a > tol)) {
        return;
      }
      double base = baseLow ? a : b;
      double fBase = baseLow ? fa : fb;
      double t = 0.5 * tol;
      double x = fBase != pf ? base - fBase * (base - px) / (fBase - pf) : Double.NaN;
      if (Math.abs(x - base) < t) { // the estimate is (about) base: step just past it
        x = baseLow ? a + t : b - t;
      } else if (!(x > a && x < b) || Math.abs(x - base) > 0.5 * beforeLast) {
        x = 0.5 * (a + b);
      }
      if (x - a < t) {
        x = a + t;
      } else if (b - x < t) {
        x = b - t;
      }
      double v = value(x);
      if (low(v)) {
        a = x;
        fa = v;
      } else {
        b = x;
        fb = v;
      }
      beforeLast = last;
      last = Math.abs(x - base);
      baseLow = !(Math.abs(fb) < Math.abs(fa));
      if ((baseLow ? a : b) == x) { // x is the new best: the old best becomes the second point
        px = base;
        pf = fBase;
      } else {
        px = x;
        pf = v;
      }
    }
    bisect(rel);
  }

  /**
   * Plain bisection down to the tolerance: a backstop, should the secant steps above not have
   * reached it (steps of tol/2 next to an end are not checked against the step before last), so
   * the bracket always ends as narrow as bisection would leave it.
   */
  private void bisect(double rel) {
    while (b - a > rel * Math.max(1, Math.min(Math.abs(a), Math.abs(b)))) {
      double x = 0.5 * (a + b);
      if (!(x > a && x < b)) { // a and b adjacent doubles: nothing lies between
        return;
      }
      double v = value(x);
      if (low(v)) {
        a = x;
        fa = v;
      } else {
        b = x;
        fb = v;
      }
    }
  }
}
