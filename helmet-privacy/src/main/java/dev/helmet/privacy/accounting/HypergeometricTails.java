package dev.helmet.privacy.accounting;

import org.apache.commons.statistics.distribution.HypergeometricDistribution;

/**
 * Rigorous bounds on the tails of a hypergeometric law, for supports too large to enumerate
 * ({@link SworAmplification} with batches in the millions). The law X ~ Hyp(population N,
 * successes K, draws b) is log-concave: its ratio
 *
 * <pre>
 *   r_k = p(k+1)/p(k) = (K - k)(b - k) / ((k + 1)(N - K - b + k + 1))
 * </pre>
 *
 * decreases in k, so past the mode the upper tail from k is at most the geometric series p(k)/(1 -
 * r_k), and below it the lower tail up to k is at most p(k)/(1 - 1/r_(k-1)). The pmf comes from
 * commons-statistics (relative error near 1e-14); the ratio is four products and a quotient in
 * doubles (a few ulps), an error that 1/(1 - r) amplifies by at most the law's spread in counts
 * (below 1e-15 x 23,000 for any population up to 2^31); each bound is raised by a relative 1e-9,
 * far above all of it. The mass of a
 * law with spread s lies within a few dozen s of its mode, so walking out from the mode to where a
 * tail bound is negligible takes that many steps, not b.
 */
final class HypergeometricTails {
  /** Relative margin on every tail bound (see the class note). */
  private static final double MARGIN = 1 + 1e-9;

  private final HypergeometricDistribution law;
  private final long population;
  private final long successes;
  private final long draws;
  private final int lo;
  private final int hi;
  private final int mode;

  HypergeometricTails(int population, int successes, int draws) {
    this.law = HypergeometricDistribution.of(population, successes, draws);
    this.population = population;
    this.successes = successes;
    this.draws = draws;
    this.lo = law.getSupportLowerBound();
    this.hi = law.getSupportUpperBound();
    // floor((b + 1)(K + 1)/(N + 2)) maximises p: the products stay below 2^63
    long m = (this.draws + 1) * (this.successes + 1) / (this.population + 2);
    this.mode = (int) Math.max(lo, Math.min(hi, m));
  }

  int lower() {
    return lo;
  }

  int upper() {
    return hi;
  }

  int mode() {
    return mode;
  }

  /** p(k), 0 outside the support. */
  double probability(int k) {
    return k < lo || k > hi ? 0 : law.probability(k);
  }

  /** r_k = p(k+1)/p(k) from the closed form, for k in the support (0 at its top). */
  double ratio(int k) {
    if (k >= hi) {
      return 0;
    }
    double num = (double) (successes - k) * (double) (draws - k);
    double den = (double) (k + 1L) * (double) (population - successes - draws + k + 1L);
    return num / den;
  }

  /**
   * An upper bound on P[X >= k] for k above the mode: p(k)/(1 - r_k), raised by the margin; 0 above
   * the support, and 1 where the series bound does not apply (r_k >= 1).
   */
  double upperTail(int k) {
    if (k > hi) {
      return 0;
    }
    double r = ratio(k);
    return r >= 1 ? 1 : Math.min(1, probability(k) / (1 - r) * MARGIN);
  }

  /**
   * An upper bound on P[X <= k] for k below the mode: p(k)/(1 - 1/r_(k-1)), raised by the margin; 0
   * below the support, and 1 where the series bound does not apply.
   */
  double lowerTail(int k) {
    if (k < lo) {
      return 0;
    }
    if (k == lo) {
      return Math.min(1, probability(k) * MARGIN);
    }
    double r = ratio(k - 1); // p(k)/p(k-1)
    return r <= 1 ? 1 : Math.min(1, probability(k) / (1 - 1 / r) * MARGIN);
  }

  /**
   * The smallest k above the mode with {@link #upperTail}(k) <= eps (at most hi + 1): everything from
   * k up is bounded by eps. eps must be positive.
   */
  long upperCut(double eps) {
    long k = mode + 1L;
    while (k <= hi && upperTail((int) k) > eps) {
      k++;
    }
    return k;
  }

  /**
   * The largest k below the mode with {@link #lowerTail}(k) <= eps (at least lo - 1): everything up
   * to k is bounded by eps. eps must be positive.
   */
  long lowerCut(double eps) {
    long k = mode - 1L;
    while (k >= lo && lowerTail((int) k) > eps) {
      k--;
    }
    return k;
  }
}
