package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import org.apache.commons.numbers.gamma.Erfc;
import org.apache.commons.numbers.gamma.Erfcx;

/**
 * The exact privacy curve of the Gaussian mechanism (Balle and Wang 2018, Theorem 8, "analytic
 * Gaussian"; Sommer, Meiser and Mohammadi 2019, Theorem 5 for compositions). A mechanism with
 * sensitivity 1 and noise multiplier sigma, composed k times, is mu-GDP with {@code mu =
 * sqrt(k)/sigma}, and
 *
 * <pre>
 *   delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2).
 * </pre>
 *
 * <p>Numerically stable form (no overflow of e^eps, no cancellation to 0 of two tiny terms): with
 * {@code u = (eps/mu + mu/2)/sqrt2} and {@code v = (eps/mu - mu/2)/sqrt2} one has {@code eps - u^2
 * = -v^2}, so {@code e^eps Phi(-eps/mu - mu/2) = erfcx(u) e^(-v^2) / 2} and, for {@code v >= 0},
 * {@code Phi(-eps/mu + mu/2) = erfc(v)/2 = erfcx(v) e^(-v^2) / 2}, giving
 * {@code delta = e^(-v^2) (erfcx(v) - erfcx(u)) / 2}.
 */
public final class GaussianMath {
  private static final double SQRT2 = Math.sqrt(2);

  private GaussianMath() {}

  /** delta(eps) of a mu-GDP mechanism. */
  public static double delta(double epsilon, double mu) {
    Checks.nonNegative("epsilon", epsilon);
    checkMu(mu);
    if (mu == 0) {
      return 0;
    }
    if (mu == Double.POSITIVE_INFINITY) { // 1 / sigma^2 overflowed (sigma below about 1e-154): no privacy
      return 1;
    }
    double u = (epsilon / mu + mu / 2) / SQRT2;
    double v = (epsilon / mu - mu / 2) / SQRT2;
    double d;
    if (v >= 0) {
      d = 0.5 * Math.exp(-v * v) * (Erfcx.value(v) - Erfcx.value(u));
    } else {
      d = 0.5 * Erfc.value(v) - 0.5 * Erfcx.value(u) * Math.exp(-v * v);
    }
    return Math.max(0, Math.min(1, d));
  }

  /**
   * The smallest eps with {@code delta(eps) <= delta} for a mu-GDP mechanism, by bisection. The
   * upper end of the final bracket is returned, so {@code delta(returned eps) <= delta} always
   * holds: the reported eps is never below the true one, and above it by at most the bracket width
   * (1e-12 relative).
   */
  public static double epsilon(double delta, double mu) {
    Checks.openUnit("delta", delta);
    checkMu(mu);
    if (mu == Double.POSITIVE_INFINITY) {
      return Double.POSITIVE_INFINITY;
    }
    if (delta(0, mu) <= delta) {
      return 0;
    }
    double lo = 0;
    double hi = 1;
    while (delta(hi, mu) > delta) {
      lo = hi;
      hi *= 2;
      if (hi > 1e12) {
        throw new IllegalArgumentException("epsilon exceeds 1e12 for mu=" + mu + ", delta=" + delta);
      }
    }
    while (hi - lo > 1e-12 * hi) {
      double mid = 0.5 * (lo + hi);
      if (delta(mid, mu) > delta) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return hi;
  }

  /** mu >= 0; +infinity (no privacy) is allowed, NaN is not. */
  private static void checkMu(double mu) {
    Checks.require(mu >= 0, "mu must be >= 0. Provided value: " + mu);
  }
}
