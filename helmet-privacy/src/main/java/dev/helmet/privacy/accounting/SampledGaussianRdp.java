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
 *       the number of terms and added, so the result errs upward.
 * </ul>
 */
final class SampledGaussianRdp {
  private static final int MAX_TERMS = 2_000_000;

  private SampledGaussianRdp() {}

  /** RDP of order {@code alpha} > 1 of one step with sampling probability q and noise multiplier sigma. */
  static double rdp(double q, double sigma, double alpha) {
    if (q == 1) {
      return alpha / (2 * sigma * sigma);
    }
    double logA = alpha == Math.rint(alpha) && alpha < 1e6 ? logAInteger(q, sigma, (int) alpha)
        : logAFractional(q, sigma, alpha);
    return Math.max(0, logA / (alpha - 1));
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
      terms[k] = logC + k * lq + (alpha - k) * l1q + ((double) k * k - k) / (2 * sigma * sigma);
      max = Math.max(max, terms[k]);
    }
    double sum = 0;
    for (double t : terms) {
      sum += Math.exp(t - max);
    }
    return max + Math.log(sum);
  }

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
    for (; i < MAX_TERMS; i++) {
      if (i > 0) {
        double f = alpha - (i - 1);
        logC += Math.log(Math.abs(f)) - Math.log(i);
        if (f < 0) {
          sign = -sign;
        }
        if (f == 0) {
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
        break;
      }
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
