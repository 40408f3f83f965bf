package dev.helmet.privacy.accounting;

import org.apache.commons.numbers.gamma.Erfc;

/**
 * Renyi DP of the Poisson-subsampled Gaussian mechanism under add-or-remove neighbours (Mironov,
 * Talwar, Zhang 2019, "Renyi Differential Privacy of the Sampled Gaussian Mechanism", Sec. 3.3):
 * with mu0 = N(0, sigma^2) and mu = (1 - q) mu0 + q N(1, sigma^2), the RDP of order alpha is
 * {@code log(A_alpha) / (alpha - 1)} with {@code A_alpha = E_{z ~ mu0}[(mu(z) / mu0(z))^alpha]}.
 *
 * <ul>
 *   <li>Integer alpha: {@code A = sum_{k=0}^{alpha} C(alpha, k) (1 - q)^(alpha - k) q^k
 *       exp((k^2 - k) / (2 sigma^2))}, all terms positive, summed in log space.
 *   <li>Fractional alpha: {@code A = A1 + A2}, two series split at {@code z0 = sigma^2 ln(1/q - 1)
 *       + 1/2}, with generalised binomial coefficients (alternating in sign past alpha) and erfc
 *       factors. The series is summed until its terms fall below 2^-52 of the partial sum; the
 *       remainder, whose terms decay at least like i^-(alpha+2), is bounded by the last term times
 *       the number of terms and added, so the result errs upward. For large q (0.5 and up) the
 *       terms decay only polynomially and the series would need millions of terms; after
 *       {@link #FRACTIONAL_TERMS} terms the order is instead evaluated at the next integer, an upper
 *       bound because the Renyi divergence is non-decreasing in the order.
 * </ul>
 */
final class SampledGaussianRdp {
  /** Terms of a fractional-order series before it falls back to the next integer order. */
  static final int FRACTIONAL_TERMS = 5_000;

  private SampledGaussianRdp() {}

  /** Above this order the bound of the unsampled Gaussian is used (see {@link #rdp}). */
  static final double EXACT_LIMIT = 256;
  /** Below this order too (see {@link #rdp}). */
  static final double LOWEST_EXACT = 1.1;
  /** Up to this order fractional orders are evaluated on a grid of step 0.1, above on integers. */
  static final double FRACTIONAL_LIMIT = 20;

  /**
   * RDP of order {@code alpha} > 1 of one step with sampling probability q and noise multiplier
   * sigma, bounded from above where computing it exactly is slow and never pays:
   *
   * <ul>
   *   <li>below {@link #LOWEST_EXACT} and above {@link #EXACT_LIMIT}: the unsampled Gaussian's
   *       alpha / (2 sigma^2), an upper bound by quasi-convexity of the Renyi divergence (mixing with
   *       the unshifted Gaussian never increases it); such orders are never the best for the
   *       usual deltas and eps;
   *   <li>otherwise the exact value at alpha rounded up to the next multiple of 0.1 (up to
   *       {@link #FRACTIONAL_LIMIT}) or the next integer (above): RDP is non-decreasing in the
   *       order, so this bounds it from above, and a curve needs only a few hundred distinct
   *       evaluations ({@link #curve} memoises them).
   * </ul>
   */
  static double rdp(double q, double sigma, double alpha) {
    if (q == 1 || alpha < LOWEST_EXACT || alpha > EXACT_LIMIT) {
      return alpha / (2 * sigma * sigma);
    }
    return exact(q, sigma, roundedOrder(alpha));
  }

  /** The RDP curve on {@code orders}, each as {@link #rdp}, evaluating each rounded order once. */
  static double[] curve(double q, double sigma, double[] orders) {
    java.util.Map<Double, Double> memo = new java.util.HashMap<>();
    double[] out = new double[orders.length];
    for (int i = 0; i < orders.length; i++) {
      double a = orders[i];
      if (q == 1 || a < LOWEST_EXACT || a > EXACT_LIMIT) {
        out[i] = a / (2 * sigma * sigma);
      } else {
        out[i] = memo.computeIfAbsent(roundedOrder(a), r -> exact(q, sigma, r));
      }
    }
    return out;
  }

  static double roundedOrder(double alpha) {
    if (alpha > FRACTIONAL_LIMIT) {
      return Math.ceil(alpha);
    }
    double r = Math.ceil(alpha * 10 - 1e-9) / 10;
    return Math.max(r, alpha);
  }

  /**
   * The RDP of order a: exact at integer orders; at a fractional order exact when its series
   * converges within {@link #FRACTIONAL_TERMS} terms, else the exact value at ceil(a) (an upper
   * bound: RDP is non-decreasing in the order).
   */
  static double exact(double q, double sigma, double a) {
    if (a == Math.rint(a)) {
      return Math.max(0, logAInteger(q, sigma, (int) a) / (a - 1));
    }
    // Above q = 0.4 the terms shrink by less than q / (1 - q) = 2/3 per step, too slowly to pay.
    double logA = q > 0.4 ? Double.NaN : logAFractional(q, sigma, a);
    if (Double.isNaN(logA)) {
      double up = Math.ceil(a);
      return Math.max(0, logAInteger(q, sigma, (int) up) / (up - 1));
    }
    return Math.max(0, logA / (a - 1));
  }

  static double logAInteger(double q, double sigma, int alpha) {
    double lq = Math.log(q);
    double l1q = Math.log1p(-q);
    double max = Double.NEGATIVE_INFINITY;
    double[] terms = new double[alpha + 1];
    double logC = 0; // log C(alpha, k), built incrementally
    for (int k = 0; k <= alpha; k++) {
      if (k > 0) {
        logC += Math.log(alpha - k + 1) - Math.log(k);
      }
      // k^2 - k = 0 for k < 2: written out, so that 2 sigma^2 underflowing to 0 gives no 0 / 0
      double quadratic = k < 2 ? 0 : ((double) k * k - k) / (2 * sigma * sigma);
      terms[k] = logC + k * lq + (alpha - k) * l1q + quadratic;
      max = Math.max(max, terms[k]);
    }
    if (max == Double.POSITIVE_INFINITY) { // (k^2 - k) / (2 sigma^2) overflowed: no bound (inf - inf below is NaN)
      return max;
    }
    double sum = 0;
    for (double t : terms) {
      sum += Math.exp(t - max);
    }
    return max + Math.log(sum);
  }

  /** log A at a fractional order, or NaN if the series has not converged in {@link #FRACTIONAL_TERMS} terms. */
  static double logAFractional(double q, double sigma, double alpha) {
    double z0 = sigma * sigma * Math.log(1 / q - 1) + 0.5;
    double lq = Math.log(q);
    double l1q = Math.log1p(-q);
    double s2 = 2 * sigma * sigma;
    double sqrt2s = Math.sqrt(2) * sigma;
    // Signed terms kept as (log |t|, sign), summed relative to their running maximum.
    double ref = Double.NEGATIVE_INFINITY;
    double acc = 0; // sum of sign * exp(log|t| - ref)
    double logC = 0;
    int sign = 1;
    int i = 0;
    double lastLog = 0;
    boolean converged = false;
    for (; i < FRACTIONAL_TERMS; i++) {
      if (i > 0) {
        double f = alpha - (i - 1);
        logC += Math.log(Math.abs(f)) - Math.log(i);
        if (f < 0) {
          sign = -sign;
        }
        if (f == 0) {
          converged = true;
          break; // integer alpha reached through the fractional path: later terms vanish
        }
      }
      double j = alpha - i;
      double t0 = logC + i * lq + j * l1q + ((double) i * i - i) / s2 + Math.log(0.5) + logErfc((i - z0) / sqrt2s);
      double t1 = logC + j * lq + i * l1q + (j * j - j) / s2 + Math.log(0.5) + logErfc((z0 - j) / sqrt2s);
      for (double t : new double[] {t0, t1}) {
        if (t > ref) {
          acc = acc * Math.exp(ref - t) + sign;
          ref = t;
        } else {
          acc += sign * Math.exp(t - ref);
        }
      }
      lastLog = Math.max(t0, t1);
      double partial = ref + Math.log(Math.abs(acc));
      if (i > alpha + 1 && lastLog < partial - 36) {
        converged = true;
        break;
      }
    }
    if (!converged) {
      return Double.NaN;
    }
    // Upward bound of the remainder (see the class comment): (terms so far + 1) x twice the last term.
    double tail = Math.log(2.0 * (i + 1)) + lastLog;
    if (tail > ref) {
      acc = acc * Math.exp(ref - tail) + 1;
      ref = tail;
    } else {
      acc += Math.exp(tail - ref);
    }
    return ref + Math.log(acc);
  }

  /** log(erfc(x)), accurate far into the upper tail. */
  static double logErfc(double x) {
    if (x < 5) {
      return Math.log(Erfc.value(x));
    }
    // erfc(x) = exp(-x^2) / (x sqrt(pi)) * (1 - 1/(2x^2) + 3/(4x^4) - 15/(8x^6) + 105/(16x^8) - ...),
    // an asymptotic series whose truncation error is below the first omitted term (< 1e-9 at x = 5).
    double y = 1 / (2 * x * x);
    double series = 1 - y * (1 - 3 * y * (1 - 5 * y * (1 - 7 * y)));
    return -x * x - Math.log(x) - 0.5 * Math.log(Math.PI) + Math.log(series);
  }
}
