package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import java.util.Arrays;
import java.util.function.DoubleUnaryOperator;
import java.util.function.IntToDoubleFunction;

/**
 * Renyi DP of a mechanism run on a Poisson sample (each record kept independently with probability
 * q; add-or-remove-one neighbours), from the mechanism's RDP curve eps(l) at integer orders l, by
 * the general upper bound of Zhu and Wang (ICML 2019, Theorem 6), which needs nothing of the
 * mechanism beyond its RDP: for integer a >= 2,
 *
 * <pre>
 *   eps_q(a) = log( (1-q)^(a-1) (a q - q + 1) + C(a,2) q^2 (1-q)^(a-2) e^eps(2)
 *                   + 3 sum_{l=3..a} C(a,l) q^l (1-q)^(a-l) e^((l-1) eps(l)) ) / (a - 1).
 * </pre>
 *
 * Dropping the factor 3 gives the tighter bound that Zhu and Wang prove only for mechanisms with a
 * further property (the Gaussian has it); {@link SkellamMixtureRdp} offers it, labelled, to
 * reproduce Bao et al.'s numbers.
 *
 * <p><b>Numerics.</b> The first two terms are the l = 0 and l = 1 terms of the binomial expansion
 * of 1 = ((1-q) + q)^a, so the sum is 1 + sum_{l>=2} C(a,l) q^l (1-q)^(a-l) (c_l e^((l-1)eps(l)) -
 * 1), c_2 = 1 and c_l = 3 for l >= 3: every term non-negative, with no cancellation against the
 * leading 1. The terms are summed as logs (log(e^x - 1) by expm1 or log1p, log(3 e^x - 1) = x +
 * log(3 - e^-x)) and the result is log1p of the sum, so small RDP values keep their relative
 * precision. Each term's log adds four values, each within a few ulps. For a <= 256 and q >=
 * 1e-15 the binomial and sampling parts stay below 10^4 in magnitude, so while (l-1) eps(l) does
 * too the term's log errs by less than 1e-11 absolute, a relative error below 1e-11 in the term,
 * in the sum, and in its log1p (whose relative error is at most that of its argument); a larger
 * (l-1) eps(l) makes the result larger in proportion to its error. The result is rounded up by a
 * relative 1e-10 to cover that. Above order 256 the parts grow with the order (for q in [1e-15, 1 -
 * 1e-15], |l log q| and |(a - l) log(1-q)| up to about 35 a together) and so do their rounding
 * errors: a few ulps of 35 a, under 1e-13 a absolute per term; the binomials come from one
 * compensated running sum whose error grows by a few ulps of log a per step (about 5e-17 a in
 * all), and the log-sum of a positive terms adds a relative a ulps. The margin there is a
 * relative 1e-12 a, several times all of that together. A q outside [1e-15, 1 - 1e-15] makes the
 * parts up to (|log q| + |log(1-q)|) a, at most about 745 a, and the margin grows in proportion
 * (at any order). A result below 2^-1000, where doubles lose relative precision, is raised to
 * 2^-999 unless it is exactly 0 (every term without loss).
 *
 * <p><b>Other orders.</b> A non-integer order a is charged the bound at ceil(a) (RDP is
 * non-decreasing in the order). Poisson subsampling never costs more than the mechanism itself: the
 * sampled outputs on neighbouring data sets are mixtures, with the same weights, of pairs of the
 * mechanism's outputs on data sets that are equal or neighbours, and Renyi divergence is jointly
 * quasi-convex (van Erven and Harremoes, IEEE Trans. Inf. Theory 2014, Theorem 13); so {@link
 * #curve} takes the smaller of the two bounds, and the unsampled one alone above order {@link
 * #MAX_ORDER}.
 */
public final class PoissonSubsampledRdp {
  /** The largest integer order at which {@link #curve} evaluates the subsampled bound. */
  public static final int MAX_ORDER = 256;

  /** Relative margin for floating-point error up to order {@link #MAX_ORDER} (see the class note). */
  private static final double ROUND_UP = 1 + 1e-10;

  /** Relative margin per unit of order above {@link #MAX_ORDER} (see the class note). */
  private static final double ROUND_UP_PER_ORDER = 1e-12;

  private PoissonSubsampledRdp() {}

  /**
   * Zhu and Wang's general bound at order {@code alpha} (charged as ceil(alpha), at least 2) for a
   * mechanism whose RDP at integer order l is {@code rdp.applyAsDouble(l)}; {@code q = 1} is the
   * mechanism itself at ceil(alpha).
   */
  public static double rdp(IntToDoubleFunction rdp, double q, double alpha) {
    Checks.require(alpha > 1, "RDP order must be above 1. Provided value: " + alpha);
    return bound(rdp, q, Math.max(2, (int) Math.min(Integer.MAX_VALUE, Math.ceil(alpha))), true);
  }

  /**
   * The bound at integer {@code order >= 2}: with {@code factorThree}, Zhu and Wang's general
   * bound; without, the binomial expansion as Bao et al. use it (not proved for every mechanism).
   */
  static double bound(IntToDoubleFunction rdp, double q, int order, boolean factorThree) {
    Checks.require(q > 0 && q <= 1, "sampling rate must be in (0, 1]. Provided value: " + q);
    Checks.require(order >= 2, "order must be at least 2. Provided value: " + order);
    if (q == 1) {
      return nonNegative(rdp.applyAsDouble(order));
    }
    double logQ = Math.log(q);
    double log1mQ = Math.log1p(-q);
    double[] logBinomials = order <= MAX_ORDER ? LogBinomials.TABLE[order] : logBinomialRow(order);
    double[] terms = new double[order - 1];
    for (int l = 2; l <= order; l++) {
      double eps = nonNegative(rdp.applyAsDouble(l));
      if (eps == Double.POSITIVE_INFINITY) {
        return Double.POSITIVE_INFINITY;
      }
      double x = (l - 1) * eps;
      double excess = factorThree && l >= 3 ? x + Math.log(3 - Math.exp(-x)) : logExpm1(x);
      terms[l - 2] = logBinomials[l] + l * logQ + (order - l) * log1mQ + excess;
    }
    double logExcess = logSumExp(terms); // log(sum - 1)
    double logSum = logExcess > 0 ? logExcess + Math.log1p(Math.exp(-logExcess)) : Math.log1p(Math.exp(logExcess));
    // |log q| + |log(1-q)| in units of its largest value for q in [1e-15, 1 - 1e-15] (see the class note)
    double spread = Math.max(1, (-logQ - log1mQ) / 35);
    double margin = order <= MAX_ORDER && spread == 1 ? ROUND_UP
        : 1 + Math.max(ROUND_UP - 1, ROUND_UP_PER_ORDER * order * spread);
    double r = logSum / (order - 1) * margin;
    return logExcess > Double.NEGATIVE_INFINITY && r < 0x1p-1000 ? 0x1p-999 : r;
  }

  /**
   * The RDP of the Poisson-subsampled mechanism on every order of {@code orders}: the smaller of
   * Zhu and Wang's general bound (at ceil(alpha), for ceil(alpha) <= {@link #MAX_ORDER}) and the
   * mechanism's own RDP {@code rdp.applyAsDouble(alpha)}, which must be non-decreasing in the order
   * (RDP curves are). The bound is computed once per integer order.
   */
  public static double[] curve(DoubleUnaryOperator rdp, double q, double[] orders) {
    Checks.require(q > 0 && q <= 1, "sampling rate must be in (0, 1]. Provided value: " + q);
    double[] out = new double[orders.length];
    double[] atInteger = new double[MAX_ORDER + 1];
    double[] sampled = new double[MAX_ORDER + 1];
    Arrays.fill(atInteger, Double.NaN);
    Arrays.fill(sampled, Double.NaN);
    IntToDoubleFunction integerRdp = l -> {
      if (Double.isNaN(atInteger[l])) {
        atInteger[l] = rdp.applyAsDouble(l);
      }
      return atInteger[l];
    };
    for (int i = 0; i < orders.length; i++) {
      double alpha = orders[i];
      Checks.require(alpha > 1, "RDP order must be above 1. Provided value: " + alpha);
      double unsampled = nonNegative(rdp.applyAsDouble(alpha));
      int a = (int) Math.max(2, Math.ceil(alpha));
      if (q == 1 || Math.ceil(alpha) > MAX_ORDER) {
        out[i] = unsampled;
        continue;
      }
      if (Double.isNaN(sampled[a])) {
        sampled[a] = bound(integerRdp, q, a, true);
      }
      out[i] = Math.min(sampled[a], unsampled);
    }
    return out;
  }

  /** log(e^x - 1) for x >= 0 (-infinity at 0), without overflow or cancellation. */
  private static double logExpm1(double x) {
    return x > 1 ? x + Math.log1p(-Math.exp(-x)) : Math.log(Math.expm1(x));
  }

  /** RDP is non-negative; a value below 0 (floating-point noise) is raised to 0, an upper bound. */
  private static double nonNegative(double eps) {
    Checks.require(!Double.isNaN(eps), "RDP must not be NaN");
    return Math.max(0, eps);
  }

  /**
   * log C(n, k) for k = 0..n in O(n): the running sum of log(n - k + 1) - log k, compensated
   * (Kahan), so the sum adds no rounding of its own: its error is that of the steps, a few ulps of
   * log n each (measured: 5e-13 at n = 10^4, 6e-11 at 10^6, against log-gamma). Summing each
   * entry from scratch, as {@link #sumOfLogs} does for the table, costs O(n^2) for the row: seconds at the
   * orders near 10^4 that large Skellam parameters make valid.
   */
  static double[] logBinomialRow(int n) {
    double[] row = new double[n + 1];
    double sum = 0;
    double compensation = 0;
    for (int k = 1; k <= n; k++) {
      double y = (Math.log(n - k + 1) - Math.log(k)) - compensation;
      double t = sum + y;
      compensation = (t - sum) - y;
      sum = t;
      row[k] = sum;
    }
    return row;
  }

  /** log C(n, k) as sum_{i=1..k} (log(n - k + i) - log i): each log within an ulp, no cancellation. */
  private static double sumOfLogs(int n, int k) {
    double s = 0;
    for (int i = 1; i <= k; i++) {
      s += Math.log(n - k + i) - Math.log(i);
    }
    return s;
  }

  /** log sum_i e^(x_i), stable; -infinity for no or only -infinite terms. */
  static double logSumExp(double[] x) {
    double max = Double.NEGATIVE_INFINITY;
    for (double v : x) {
      max = Math.max(max, v);
    }
    if (max == Double.POSITIVE_INFINITY || max == Double.NEGATIVE_INFINITY) {
      return max;
    }
    double s = 0;
    for (double v : x) {
      s += Math.exp(v - max);
    }
    return max + Math.log(s);
  }

  /** log C(n, k) for n <= MAX_ORDER, built once (about 2.8 million logs, a few milliseconds). */
  private static final class LogBinomials {
    static final double[][] TABLE = new double[MAX_ORDER + 1][];

    static {
      for (int n = 0; n <= MAX_ORDER; n++) {
        TABLE[n] = new double[n + 1];
        for (int k = 0; k <= n; k++) {
          TABLE[n][k] = sumOfLogs(n, k);
        }
      }
    }
  }
}
