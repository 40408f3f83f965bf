package dev.helmet.privacy.accounting;

import dev.helmet.privacy.accounting.PldAccountant.Cdf;
import java.util.function.DoubleUnaryOperator;

/**
 * A discrete privacy loss distribution: {@code pmf[i]} is the probability of loss {@code (offset
 * + i) h}, and {@code infinity} that of an infinite loss.
 */
final class Pld {
  /** Relative width of the final bracket on each x with L(x) = eps_i. */
  private static final double ROOT_TOLERANCE = 1e-14;
  /** Relative width of the final bracket on eps in {@link #epsilon}. */
  private static final double EPSILON_TOLERANCE = 1e-12;
  /** The most grid points one mechanism's PLD may span (256 MiB of doubles). */
  static final int MAX_GRID = 1 << 25;

  final int offset;
  final double[] pmf;
  final double infinity;

  Pld(int offset, double[] pmf, double infinity) {
    this.offset = offset;
    this.pmf = pmf;
    this.infinity = infinity;
  }

  /** The PLD of a mechanism that reveals nothing: loss 0 with probability 1. */
  static Pld identity() {
    return new Pld(0, new double[] {1}, 0);
  }

  /**
   * The "connect the dots" discretisation (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022) of
   * the pair (P, Q) with privacy loss L(x) = ln(p(x)/q(x)), monotone in x: the exact
   * hockey-stick divergence delta(eps) = P[L > eps] - e^eps Q[L > eps] is computed on the grid
   * eps_i = i h, and the discrete PLD is the one whose delta, as a function of e^eps, is the
   * piecewise-linear interpolation of those points, extended below the grid by the chord to
   * (e^eps = 0, delta = 1) and constant (its mass at infinity) above it. delta is convex in e^eps
   * and is 1 at e^eps = 0 (all of P's mass), so the interpolation and the chord lie above it
   * everywhere: the discrete PLD dominates the pair, its masses sum to 1 (up to rounding, which the
   * clamp of negative masses to 0 only ever adds to), and unlike rounding every
   * loss up its error does not grow by h with every composition. (A slope of -1 below the grid is
   * also above the curve, but it adds e^eps_0 - 1 + delta_0 of mass at the lowest loss eps_0: an
   * overflow, and then NaN, once eps_0 is large, i.e. for a noise multiplier far below 1.) The grid
   * spans the losses of the central 1 - tail of P; whatever delta remains at its top is the mass at
   * infinity.
   *
   * <p>The threshold x_i with L(x_i) = eps_i is found for every grid point in turn: x_i is monotone
   * in i, so the previous threshold is one end of the next bracket, and extrapolating the previous
   * thresholds gives a guess that a couple of secant steps refine (see {@link Bracket}). Each x_i
   * is, as by bisection, the largest (increasing L; smallest for decreasing L) point evaluated with
   * L(x) <= eps_i, with a point of L(x) > eps_i within 1e-14 relative of it.
   *
   * @throws IllegalArgumentException if the losses span more than {@link #MAX_GRID} grid points (a
   *     noise multiplier too small for the grid width h) or are not finite
   */
  static Pld connectTheDots(Cdf p, Cdf q, DoubleUnaryOperator loss, boolean increasing, double h, double tail) {
    double lo = lowerQuantile(p, tail / 2);
    double hi = upperQuantile(p, tail / 2);
    double l1 = loss.applyAsDouble(lo);
    double l2 = loss.applyAsDouble(hi);
    double points = (Math.max(l1, l2) - Math.min(l1, l2)) / h;
    if (!(points <= MAX_GRID)) {
      String span = Double.isFinite(points)
          ? String.format("its privacy loss spans [%s, %s], %.3g grid points at interval %s (at most %d)",
              Math.min(l1, l2), Math.max(l1, l2), points, h, MAX_GRID)
          : "its privacy loss is not finite (" + l1 + " to " + l2 + ")";
      throw new IllegalArgumentException("the PLD accountant cannot represent a mechanism with noise multiplier "
          + p.s() + ": " + span + "; use the RDP accountant");
    }
    int k0 = (int) Math.floor(Math.min(l1, l2) / h);
    int k1 = (int) Math.ceil(Math.max(l1, l2) / h);
    int n = k1 - k0 + 1;
    // Work in t = x (increasing L) or t = -x (decreasing): g(t) = L(+-t) is non-decreasing.
    DoubleUnaryOperator g = increasing ? loss : t -> loss.applyAsDouble(-t);
    double tlo = increasing ? lo : -hi;
    double thi = increasing ? hi : -lo;
    Bracket br = new Bracket(g, false);
    double[] delta = new double[n];
    double r1 = Double.NaN; // the last three thresholds (t), when each had a bracket
    double r2 = Double.NaN;
    double r3 = Double.NaN;
    double g1 = Double.NaN; // g(r1)
    double miss = Double.NaN; // how far the last guess was from its threshold
    for (int i = 0; i < n; i++) {
      double eps = (k0 + i) * h;
      br.target = eps;
      boolean found;
      double guess = Double.NaN;
      if (!Double.isNaN(r1)) {
        // g(r1) <= eps_(i-1) < eps: r1 is on the low side.
        br.a = r1;
        br.fa = g1 - eps;
        double step;
        if (!Double.isNaN(r3)) {
          guess = 3 * r1 - 3 * r2 + r3;
        } else if (!Double.isNaN(r2)) {
          guess = 2 * r1 - r2;
        }
        if (!Double.isNaN(miss)) {
          step = 2 * miss;
        } else if (!Double.isNaN(r2)) {
          step = 0.5 * (r1 - r2);
        } else {
          step = (thi - tlo) / n;
        }
        step = Math.max(step, ROOT_TOLERANCE * Math.max(1, Math.abs(r1)));
        found = br.expandUp(guess > r1 ? guess : r1 + step, step, 120);
        if (found) {
          br.narrow(ROOT_TOLERANCE);
        }
      } else {
        found = fromScratch(br, tlo, thi);
      }
      double t = br.a;
      if (found) {
        miss = Double.isNaN(guess) ? Double.NaN : Math.abs(guess - t);
        r3 = r2;
        r2 = r1;
        r1 = t;
        g1 = br.fa + eps;
      } else {
        // No threshold: L stays on one side of eps_i (a bounded loss); t is the farthest point
        // tried, as bisection would return, and the history restarts.
        r1 = r2 = r3 = g1 = miss = Double.NaN;
      }
      double x = increasing ? t : -t;
      // P[S] - e^eps Q[S] for S = {X > x} ({X <= x} for decreasing L) is largest at the exact
      // threshold, where its derivative in x vanishes: x within 1e-14 of it loses only a second
      // order amount (far below the grid's rounding), as with the bisection this replaces.
      delta[i] = Math.max(0, Cdf.hockeyStick(p, q, x, eps, increasing));
      // Every mass below is finite when these are; composing, mixing and slack keep them so. A NaN
      // here would pass as almost no privacy loss.
      if (Double.isNaN(delta[i])) {
        throw new IllegalStateException("the PLD accountant could not bound this mechanism: delta is NaN at eps "
            + eps);
      }
    }
    return fromProfile(k0, delta, h);
  }

  /**
   * The discrete PLD on losses (k0 + i) h whose delta, as a function of x = e^eps, is the
   * piecewise-linear interpolation of {@code delta[i]} at eps_i = (k0 + i) h, extended below the
   * grid by the chord to (x = 0, delta = 1) and constant above it (its mass at infinity, delta at
   * the top). If the delta[i] bound a profile that is convex in x and 1 at x = 0, the PLD dominates
   * it everywhere ({@link #connectTheDots}).
   */
  private static Pld fromProfile(int k0, double[] delta, double h) {
    int n = delta.length;
    double em1 = Math.expm1(h);
    double[] pmf = new double[n];
    for (int i = 0; i < n; i++) {
      // p_i = x_i (slope_i - slope_{i-1}) with x = e^eps, slope_n = 0 and slope_{-1} the chord's
      // (delta_0 - 1) / x_0, so x_0 slope_{-1} = delta_0 - 1.
      double right = i < n - 1 ? (delta[i + 1] - delta[i]) / em1 : 0;
      double left = i > 0 ? Math.exp(h) * (delta[i] - delta[i - 1]) / em1 : delta[0] - 1;
      pmf[i] = Math.max(0, right - left);
    }
    return new Pld(k0, pmf, Math.max(0, delta[n - 1]));
  }

  /**
   * The symmetrisation of a pair given by its two directions' PLDs on the grid h: the PLD whose
   * profile is the connect-the-dots of max(delta_a(eps), delta_b(eps)) on every grid loss of
   * either, i.e. of the tradeoff function conv(min(f, f^-1)) when a is the pair (P, Q) with
   * tradeoff f and b the pair (Q, P). This is the dominating pair of Dong, Roth and Su's C_p
   * ("Gaussian differential privacy", JRSS-B 2022, Sec. 4.2, subsampling without replacement):
   * one PLD that dominates both orderings of the pair at once, so it composes (f-DP composition)
   * whatever the ordering of each step.
   *
   * <p>Conservative: each of a and b dominates its true direction at every eps (connect the dots:
   * its delta, linear in e^eps between grid losses and the chord below them, lies above the true
   * convex profile); the max of two upper bounds bounds the max of the true profiles, which is
   * convex in e^eps (a max of convex functions), so the interpolation of the grid values and the
   * chord to (0, 1) lie above it, and above the grid the constant delta at the top (the larger mass
   * at infinity) bounds the non-increasing profile.
   */
  static Pld symmetrised(Pld a, Pld b, double h, double tail) {
    Pld mirrored = mirrored(a, b, h, tail);
    return mirrored != null ? mirrored : maxProfile(a, b, h);
  }

  /**
   * The symmetrisation built from its non-negative losses alone: the connect-the-dots of
   * max(delta_a, delta_b) on the grid losses eps_k >= 0 gives masses p_k at k h > 0 (and the mass at
   * infinity); a symmetric pair has mass e^(-k h) p_k at -k h, and the rest at 0 (C_p's segment of
   * slope -1). This is a probability distribution by construction, symmetric, and no wider than
   * twice the positive losses, where {@link #maxProfile}'s rounding noise at very negative eps
   * clamps into spurious mass (up to 1e-8 at losses near -18, a total above 1 by about 1e-8) and
   * widens every convolution. It dominates C_p: for eps >= 0 its delta is the interpolation of the
   * grid values, above the true profile as in {@link #maxProfile}; a symmetric pair has delta(-eps) =
   * 1 - e^-eps + e^-eps delta(eps), increasing in delta(eps), so the same order holds below 0. The
   * mirrored masses are rounded down (moving the difference to loss 0, up: more loss, never less).
   * Null when the atom at 0 would be negative (the interpolation above the true profile by more than
   * the segment's length), for {@link #maxProfile} to be used.
   */
  private static Pld mirrored(Pld a, Pld b, double h, double tail) {
    int hi = Math.max(a.offset + a.pmf.length - 1, b.offset + b.pmf.length - 1);
    if (hi < 1) {
      return null;
    }
    double[] da = a.profile(0, hi, h);
    double[] db = b.profile(0, hi, h);
    double[] delta = new double[hi + 1];
    for (int i = 0; i <= hi; i++) {
      delta[i] = Math.max(da[i], db[i]);
    }
    Pld positive = fromProfile(0, delta, h);
    double[] pmf = new double[2 * hi + 1]; // losses -hi h .. hi h
    double used = positive.infinity;
    double neg = 0;
    for (int i = 1; i <= hi; i++) {
      double p = positive.pmf[i];
      pmf[hi + i] = p;
      double m = p * Math.exp(-i * h) * (1 - 1e-15); // rounded down: the rest goes to loss 0
      pmf[hi - i] = m;
      used += p;
      neg += m;
    }
    double atom = 1 - used - neg;
    if (!(atom >= 0)) {
      return null;
    }
    pmf[hi] = atom;
    // The mirror of a large loss l has mass e^-l p_l: below some -L it holds less than `tail` in all.
    // That mass is lifted to the lowest loss kept (more loss, never less), as every convolution does,
    // so the grid is not twice as wide as the positive losses for nothing.
    int bottom = 0;
    double lifted = 0;
    while (bottom < hi && lifted + pmf[bottom] <= tail) {
      lifted += pmf[bottom];
      bottom++;
    }
    double[] kept = java.util.Arrays.copyOfRange(pmf, bottom, pmf.length);
    kept[0] += lifted;
    return new Pld(bottom - hi, kept, positive.infinity);
  }

  /** The symmetrisation as the connect-the-dots of max(delta_a, delta_b) on every grid loss of either. */
  private static Pld maxProfile(Pld a, Pld b, double h) {
    int lo = Math.min(a.offset, b.offset);
    int hi = Math.max(a.offset + a.pmf.length - 1, b.offset + b.pmf.length - 1);
    double[] da = a.profile(lo, hi, h);
    double[] db = b.profile(lo, hi, h);
    double[] delta = new double[hi - lo + 1];
    for (int i = 0; i < delta.length; i++) {
      delta[i] = Math.max(da[i], db[i]);
    }
    return fromProfile(lo, delta, h);
  }

  /**
   * delta(eps_k) at every grid loss eps_k = k h, k in [lo, hi] (lo <= offset, hi at or above the
   * top loss), in one pass down the grid: delta(eps_k) = infinity + S_k - E_k with S_k the mass above
   * eps_k and E_k = sum_(l > k) p_l e^(eps_k - eps_l) = e^-h (E_(k+1) + p_(k+1)), so no exponential
   * of a large loss is formed. Below the lowest loss this is the chord 1 - e^eps sum_l p_l e^-eps_l
   * (masses summing to 1 - infinity), as {@link #delta} gives there. Each running sum gains a
   * relative rounding error of at most 2 ulps per term, so S is rounded up and E down by 4 n ulps
   * (n the terms): the profile errs upwards.
   */
  private double[] profile(int lo, int hi, double h) {
    double decay = Math.exp(-h);
    double[] out = new double[hi - lo + 1];
    double margin = 4.0 * (out.length + pmf.length) * Math.ulp(1.0);
    double s = 0;
    double e = 0;
    for (int k = hi; k >= lo; k--) {
      int above = k + 1 - offset; // index of the loss eps_(k+1) in pmf
      if (above >= 0 && above < pmf.length) {
        s += pmf[above];
        e = decay * (e + pmf[above]);
      } else {
        e = decay * e;
      }
      out[k - lo] = Math.min(1, Math.max(0, infinity + s * (1 + margin) - e * (1 - margin)));
    }
    return out;
  }

  /**
   * Brackets g = target starting from the central range [tlo, thi], widening it (as far as
   * 2^60 times its width) as needed; false if no bracket, with br.a then the threshold to use: the
   * far low end if g stays above the target, the far high end (on the low side) if below.
   */
  private static boolean fromScratch(Bracket br, double tlo, double thi) {
    double a = tlo;
    double fa = br.value(a);
    double width = thi - tlo + 1;
    for (int k = 0; k < 60 && !br.low(fa); k++) {
      a -= width;
      width *= 2;
      fa = br.value(a);
    }
    double b = thi;
    double fb = br.value(b);
    width = thi - tlo + 1;
    for (int k = 0; k < 60 && br.low(fb); k++) {
      if (br.low(fa)) { // b is on the low side too, and above a: the better low end
        a = b;
        fa = fb;
      }
      b += width;
      width *= 2;
      fb = br.value(b);
    }
    if (!br.low(fa) || br.low(fb)) {
      br.a = br.low(fb) ? b : a;
      br.fa = br.low(fb) ? fb : fa;
      return false;
    }
    br.a = a;
    br.fa = fa;
    br.b = b;
    br.fb = fb;
    br.narrow(ROOT_TOLERANCE);
    return true;
  }

  /** An x with P[X <= x] <= mass (the largest such, to bisection precision). */
  private static double lowerQuantile(Cdf p, double mass) {
    double a = -p.s();
    while (p.cdf(a) > mass) {
      a *= 2;
    }
    double b = Math.abs(p.mu()) + 10 * p.s();
    for (int i = 0; i < 200; i++) {
      double mid = 0.5 * (a + b);
      if (p.cdf(mid) > mass) {
        b = mid;
      } else {
        a = mid;
      }
    }
    return a;
  }

  /** An x with P[X > x] <= mass (the smallest such, to bisection precision). */
  private static double upperQuantile(Cdf p, double mass) {
    double b = Math.abs(p.mu()) + p.s();
    while (p.sf(b) > mass) {
      b *= 2;
    }
    double a = -Math.abs(p.mu()) - 10 * p.s();
    for (int i = 0; i < 200; i++) {
      double mid = 0.5 * (a + b);
      if (p.sf(mid) > mass) {
        a = mid;
      } else {
        b = mid;
      }
    }
    return b;
  }

  /**
   * The PLD of a revealed mixture: component i with probability {@code w[i]}, the index known to
   * the adversary (docs/design/cross-silo.md 1.4). Its hockey-stick divergence is linear in the
   * weights, delta(eps) = sum_i w_i delta_i(eps), so the PLD is the weighted sum of the pmfs on the
   * common grid (offsets aligned: every PLD here uses the same width h) with infinite mass
   * sum_i w_i inf_i. If each p[i] dominates its component (connect the dots does), the mixture
   * dominates the mixture mechanism. Weights summing to less than 1 put the remainder at infinity,
   * which only adds loss; callers ensure the sum is 1 up to rounding.
   */
  static Pld mix(double[] w, Pld[] p) {
    if (w.length != p.length || w.length == 0) {
      throw new IllegalArgumentException("a mixture needs one weight per PLD and at least one. Provided: " + w.length
          + " weights, " + p.length + " PLDs");
    }
    int lo = Integer.MAX_VALUE;
    int hi = Integer.MIN_VALUE;
    for (int i = 0; i < p.length; i++) {
      if (w[i] > 0) {
        lo = Math.min(lo, p[i].offset);
        hi = Math.max(hi, p[i].offset + p[i].pmf.length - 1);
      }
    }
    if (lo > hi) {
      throw new IllegalArgumentException("a mixture needs a positive weight");
    }
    double[] pmf = new double[hi - lo + 1];
    double inf = 0;
    double sum = 0;
    for (int i = 0; i < p.length; i++) {
      if (w[i] <= 0) {
        continue;
      }
      int shift = p[i].offset - lo;
      for (int j = 0; j < p[i].pmf.length; j++) {
        pmf[shift + j] += w[i] * p[i].pmf[j];
      }
      inf += w[i] * p[i].infinity;
      sum += w[i];
    }
    // Missing weight (below 1 by rounding) counts as a failure: more loss, never less.
    inf += Math.max(0, 1 - sum);
    return new Pld(lo, pmf, Math.min(1, inf));
  }

  /**
   * With probability {@code slack} a total failure, otherwise this PLD: {@code (1 - s) omega + s}
   * at infinity (a {@link dev.helmet.privacy.event.SlackDpEvent}).
   */
  Pld withSlack(double slack) {
    if (slack == 0) {
      return this;
    }
    double[] scaled = new double[pmf.length];
    for (int i = 0; i < pmf.length; i++) {
      scaled[i] = (1 - slack) * pmf[i];
    }
    // s + (1 - s) inf, rounded up by one ulp so that the failure mass is never under-counted.
    return new Pld(offset, scaled, Math.min(1, Math.nextUp(slack + (1 - slack) * infinity)));
  }

  /** this^n by repeated squaring, truncating after every product. */
  Pld power(int n, double tail) {
    Pld result = identity();
    Pld base = this;
    int k = n;
    while (k > 0) {
      if ((k & 1) == 1) {
        result = result.convolve(base, tail);
      }
      k >>= 1;
      if (k > 0) {
        base = base.convolve(base, tail);
      }
    }
    return result;
  }

  /** The PLD of the composition, with pessimistic truncation of mass below {@code tail}. */
  Pld convolve(Pld o, double tail) {
    double[] c = Fft.convolve(pmf, o.pmf); // one forward transform when o == this
    // a + b - ab, not 1 - (1 - a)(1 - b): that rounds masses below 1.1e-16 to 0 (and others down)
    double inf = infinity + o.infinity - infinity * o.infinity;
    // Drop the top until `tail` of mass has gone to infinity; lift the bottom likewise.
    int top = c.length - 1;
    double moved = 0;
    while (top > 0 && moved + Math.max(0, c[top]) <= tail) {
      moved += Math.max(0, c[top]);
      top--;
    }
    inf += moved;
    int bottom = 0;
    double lifted = 0;
    while (bottom < top && lifted + Math.max(0, c[bottom]) <= tail) {
      lifted += Math.max(0, c[bottom]);
      bottom++;
    }
    double[] kept = new double[top - bottom + 1];
    for (int i = 0; i < kept.length; i++) {
      kept[i] = Math.max(0, c[bottom + i]);
    }
    kept[0] += lifted;
    return new Pld(offset + o.offset + bottom, kept, Math.min(1, inf));
  }

  double delta(double eps, double h) {
    double d = infinity;
    for (int i = pmf.length - 1; i >= 0; i--) {
      double l = (offset + i) * h;
      if (l <= eps) {
        break;
      }
      d += pmf[i] * -Math.expm1(eps - l);
    }
    return Math.min(1, d);
  }

  /**
   * The smallest eps with delta(eps) <= delta, rounded up: the upper end b of a bracket with
   * delta(b) <= delta < delta(a) and b - a <= 1e-12 max(1, a). delta is non-increasing in eps, so
   * the grid losses are bracketed first (by index: the two an estimate points at, then bisection
   * if they do not bracket); between two adjacent ones delta(eps) is A - e^eps B, which secant
   * steps solve in a few evaluations. Only exact evaluations of {@link #delta} move the bracket.
   */
  double epsilon(double delta, double h) {
    if (!(infinity <= delta)) {
      return Double.POSITIVE_INFINITY;
    }
    double hiLoss = (offset + pmf.length) * h;
    double d0 = delta(0, h);
    if (d0 <= delta) {
      return 0;
    }
    // f(eps) = delta - delta(eps) is non-decreasing; the low side is f < 0, i.e. delta(eps) > delta.
    Bracket br = new Bracket(e -> -delta(e, h), true);
    br.target = -delta;
    br.a = 0;
    br.fa = delta - d0;
    br.b = Math.max(hiLoss, 1e-9); // above every finite loss: delta(b) = infinity <= delta
    br.fb = br.value(br.b);
    // The grid losses worth probing are those in (0, hiLoss): indices in (lo, hi). Only evaluated
    // points move br.a and br.b, so these bounds merely keep the probes inside (0, hiLoss).
    int lo = Math.max(-1, -offset); // (offset + lo + 1) h > 0
    int hi = pmf.length; // (offset + hi) h = hiLoss
    // Probe first the grid losses the cheap estimate points at: usually they already bracket.
    int guess = locate(delta, h, lo + 1);
    for (int j : new int[] {guess, guess - 1}) {
      if (j > lo && j < hi) {
        double l = (offset + j) * h;
        double v = br.value(l);
        if (br.low(v)) {
          lo = j;
          br.a = l;
          br.fa = v;
        } else {
          hi = j;
          br.b = l;
          br.fb = v;
        }
      }
    }
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      double l = (offset + mid) * h;
      double v = br.value(l);
      if (br.low(v)) {
        lo = mid;
        br.a = l;
        br.fa = v;
      } else {
        hi = mid;
        br.b = l;
        br.fb = v;
      }
    }
    br.narrow(EPSILON_TOLERANCE);
    return br.b;
  }

  /**
   * An estimate of the smallest grid index j >= from with delta(l_j) <= delta (pmf.length if none),
   * from one pass down the grid: delta(l_j) = infinity + S_j - E_j with S_j = sum_(i>j) p_i and
   * E_j = sum_(i>j) p_i e^(l_j - l_i) = e^-h (E_(j+1) + p_(j+1)). Rounding makes it approximate; it
   * only chooses where {@link #epsilon} evaluates delta first.
   */
  private int locate(double delta, double h, int from) {
    double decay = Math.exp(-h);
    double s = 0;
    double e = 0;
    for (int j = pmf.length - 1; j >= from; j--) {
      if (j < pmf.length - 1) {
        s += pmf[j + 1];
        e = decay * (e + pmf[j + 1]);
      }
      if (infinity + s - e > delta) {
        return j + 1;
      }
    }
    return from;
  }
}
