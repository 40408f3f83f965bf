package dev.helmet.privacy.noise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.LongToDoubleFunction;
import org.apache.commons.statistics.distribution.ChiSquaredDistribution;
import org.apache.commons.statistics.distribution.PoissonDistribution;
import org.junit.jupiter.api.Test;

/**
 * Statistical tests of the exact samplers. The draws come from seeded bits ({@link
 * RandomBits#insecureForTesting}), so each test gives the same answer on every run; each check
 * would fail a correct sampler with probability at most 1e-7 on random seeds (stated per check),
 * and the power checks show that the same tests reject a distribution that is slightly off.
 */
@org.junit.jupiter.api.Tag("statistical")
class DiscreteNoiseStatisticalTest {
  /** Draws per goodness-of-fit test. */
  private static final int N = 1_000_000;
  /** Two-sided normal quantile for a false-failure rate of 1e-7. */
  private static final double Z = 5.33;

  private static DiscreteNoise seeded(long seed) {
    return new DiscreteNoise(RandomBits.insecureForTesting(seed));
  }

  private static long[] draw(LongSupplier sampler, int n) {
    long[] x = new long[n];
    for (int i = 0; i < n; i++) {
      x[i] = sampler.getAsLong();
    }
    return x;
  }

  /** The cumulative distribution function of N_Z(0, sigma^2 = num/den), by summation (|k| <= 40 sigma + 10). */
  static LongToDoubleFunction discreteGaussianCdf(long num, long den) {
    double s2 = (double) num / den;
    int range = (int) Math.ceil(40 * Math.sqrt(s2)) + 10;
    double[] cum = new double[2 * range + 1];
    double z = 0;
    for (int k = -range; k <= range; k++) {
      z += Math.exp(-(double) k * k / (2.0 * s2));
      cum[k + range] = z;
    }
    double total = z;
    return k -> k < -range ? 0 : k >= range ? 1 : cum[(int) k + range] / total;
  }

  /** The cumulative distribution function of Sk(lambda, lambda): P[X - Y <= e] = sum_j p(j) F(j + e). */
  static LongToDoubleFunction skellamCdf(double lambda) {
    PoissonDistribution p = PoissonDistribution.of(lambda);
    int lo = Math.max(0, (int) Math.floor(lambda - 15 * Math.sqrt(lambda) - 20));
    int hi = (int) Math.ceil(lambda + 15 * Math.sqrt(lambda) + 20);
    double[] pmf = new double[hi - lo + 1];
    double[] cdf = new double[hi - lo + 1];
    double c = p.cumulativeProbability(lo - 1);
    for (int j = lo; j <= hi; j++) {
      pmf[j - lo] = p.probability(j);
      c += pmf[j - lo];
      cdf[j - lo] = c;
    }
    return e -> {
      double s = 0;
      for (int j = lo; j <= hi; j++) {
        long i = j + e;
        s += pmf[j - lo] * (i < lo ? 0 : i > hi ? 1 : cdf[(int) (i - lo)]);
      }
      return s;
    };
  }

  /** Edges for bins of about equal probability under a distribution with this mean and sd. */
  static long[] quantileEdges(double mean, double sd, int bins) {
    List<Long> edges = new ArrayList<>();
    for (int i = 1; i < bins; i++) {
      double z = -4.5 + 9.0 * i / bins;
      long e = Math.round(mean + sd * z);
      if (edges.isEmpty() || e > edges.get(edges.size() - 1)) {
        edges.add(e);
      }
    }
    return edges.stream().mapToLong(Long::longValue).toArray();
  }

  /** Edges lo, lo + 1, ..., hi: one cell per value in [lo + 1, hi]. */
  static long[] unitEdges(long lo, long hi) {
    long[] e = new long[(int) (hi - lo + 1)];
    for (int i = 0; i < e.length; i++) {
      e[i] = lo + i;
    }
    return e;
  }

  /**
   * Pearson's chi-square of the samples over the cells (-inf, e0], (e0, e1], ..., (e_last, inf),
   * adjacent cells merged until each expects at least 5; returns {chi2, the 1e-7 upper quantile}.
   */
  static double[] chiSquare(long[] samples, long[] edges, LongToDoubleFunction cdf) {
    long[] sorted = samples.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    // cell i: (edges[i-1], edges[i]] with edges[-1] = -inf, edges[m] = +inf
    int m = edges.length;
    double[] prob = new double[m + 1];
    long[] count = new long[m + 1];
    double prev = 0;
    int prevIdx = 0;
    for (int i = 0; i <= m; i++) {
      double c = i < m ? cdf.applyAsDouble(edges[i]) : 1;
      prob[i] = c - prev;
      prev = c;
      int idx = i < m ? upperBound(sorted, edges[i]) : n;
      count[i] = idx - prevIdx;
      prevIdx = idx;
    }
    List<double[]> cells = new ArrayList<>(); // {expected, observed}
    double e = 0;
    double o = 0;
    for (int i = 0; i <= m; i++) {
      e += n * prob[i];
      o += count[i];
      if (e >= 5) {
        cells.add(new double[] {e, o});
        e = 0;
        o = 0;
      }
    }
    if (e > 0 || o > 0) {
      double[] last = cells.get(cells.size() - 1);
      last[0] += e;
      last[1] += o;
    }
    double chi2 = 0;
    for (double[] c : cells) {
      chi2 += (c[1] - c[0]) * (c[1] - c[0]) / c[0];
    }
    double crit = ChiSquaredDistribution.of(cells.size() - 1).inverseSurvivalProbability(1e-7);
    return new double[] {chi2, crit};
  }

  private static int upperBound(long[] sorted, long key) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] <= key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static void assertFits(long[] samples, long[] edges, LongToDoubleFunction cdf, String what) {
    double[] r = chiSquare(samples, edges, cdf);
    assertTrue(r[0] < r[1], what + ": chi2 " + r[0] + " >= " + r[1] + " (false-failure rate 1e-7)");
  }

  /**
   * Golden values (computed to 20 digits with Python's decimal module, and identical to the
   * Poisson-summation form sigma sqrt(2 pi) (1 + 2 sum_k exp(-2 pi^2 sigma^2 k^2))): the
   * normalising constant and the variance of N_Z(0, 1) and N_Z(0, 4). The variance of the discrete
   * Gaussian is slightly below sigma^2 (Canonne, Kamath, Steinke 2020, Prop. 19).
   */
  @Test
  void normalisingConstantAndVarianceMatchGoldenValues() {
    double[] expectedZ = {2.5066282880429055448, 5.0132565492620010048};
    double[] expectedVar = {0.99999978876772808311, 4.0};
    long[] s2 = {1, 4};
    for (int i = 0; i < 2; i++) {
      double z = 0;
      double v = 0;
      for (int k = -200; k <= 200; k++) {
        double w = Math.exp(-(double) k * k / (2.0 * s2[i]));
        z += w;
        v += (double) k * k * w;
      }
      assertEquals(expectedZ[i], z, 1e-14, "Z for sigma^2 = " + s2[i]);
      assertEquals(expectedVar[i], v / z, 1e-14, "variance for sigma^2 = " + s2[i]);
    }
  }

  /** Hits within 5.33 binomial standard errors (false-failure rate 1e-7 each). */
  @Test
  void bernoulliExpHasTheRightProbability() {
    DiscreteNoise d = seeded(1);
    for (long[] g : new long[][] {{1, 2}, {7, 2}, {0, 1}, {3, 100}, {1_000_000, 1}}) {
      double p = Math.exp(-(double) g[0] / g[1]);
      int hits = 0;
      for (int i = 0; i < N; i++) {
        if (d.bernoulliExp(g[0], g[1])) {
          hits++;
        }
      }
      assertEquals(p, (double) hits / N, Z * Math.sqrt(p * (1 - p) / N) + 1e-12, "exp(-" + g[0] + "/" + g[1] + ")");
    }
  }

  @Test
  void discreteLaplaceFollowsItsPmf() {
    DiscreteNoise d = seeded(2);
    for (long t : new long[] {1, 3, 746}) {
      double q = Math.exp(-1.0 / t);
      // P[X <= k] = q^-k / (1 + q) for k < 0, 1 - q^(k+1) / (1 + q) for k >= 0
      LongToDoubleFunction cdf = k -> k < 0 ? Math.pow(q, -k) / (1 + q) : 1 - Math.pow(q, k + 1) / (1 + q);
      long[] edges = t < 10 ? unitEdges(-12 * t, 12 * t) : quantileEdges(0, t * Math.sqrt(2), 80);
      assertFits(draw(() -> d.discreteLaplace(t), N), edges, cdf, "discrete Laplace(" + t + ")");
    }
  }

  /**
   * N_Z(0, sigma^2) for sigma = 0.5, 1, 2, 10, the demo's 745.66 (sigma^2 = 556,009, 80 bins of
   * about equal probability and merged tails) and 10^4; 10^6 draws each.
   */
  @Test
  void discreteGaussianFollowsItsPmf() {
    DiscreteNoise d = seeded(3);
    long[][] cases = {{1, 4}, {1, 1}, {4, 1}, {100, 1}, {556_009, 1}, {100_000_000, 1}};
    for (long[] c : cases) {
      double sigma = Math.sqrt((double) c[0] / c[1]);
      long[] edges = sigma < 20 ? unitEdges(-(long) Math.ceil(8 * sigma) - 1, (long) Math.ceil(8 * sigma))
          : quantileEdges(0, sigma, 80);
      long[] x = draw(() -> d.discreteGaussian(c[0], c[1]), N);
      assertFits(x, edges, discreteGaussianCdf(c[0], c[1]), "N_Z(0, " + c[0] + "/" + c[1] + ")");
    }
  }

  /** The same chi-square rejects N_Z(0, 1.02 sigma^2) as N_Z(0, sigma^2): the test has power. */
  @Test
  void theGoodnessOfFitTestRejectsAVarianceTwoPercentOff() {
    DiscreteNoise d = seeded(4);
    long[] x = draw(() -> d.discreteGaussian(556_009), N);
    double[] r = chiSquare(x, quantileEdges(0, Math.sqrt(556_009), 80), discreteGaussianCdf(567_129, 1));
    assertTrue(r[0] > r[1], "chi2 " + r[0] + " should exceed " + r[1]);
    long[] y = draw(() -> d.discreteGaussian(4), N);
    r = chiSquare(y, unitEdges(-17, 16), discreteGaussianCdf(408, 100));
    assertTrue(r[0] > r[1], "chi2 " + r[0] + " should exceed " + r[1]);
  }

  /** The fill method draws the same values as one call per draw. */
  @Test
  void fillDrawsTheSameValuesAsSingleDraws() {
    DiscreteNoise a = seeded(5);
    DiscreteNoise b = seeded(5);
    long[] filled = new long[7850];
    a.fillDiscreteGaussian(filled, 556_009);
    assertArrayEquals(draw(() -> b.discreteGaussian(556_009), 7850), filled);
    a.fillSkellam(filled, 10_000, 1);
    assertArrayEquals(draw(() -> b.skellam(10_000, 1), 7850), filled);
  }

  /**
   * Poisson(lambda) on both sides of the method switch at 256 and far above, with rational lambda:
   * 10^6 draws each against commons-statistics' pmf.
   */
  @Test
  void poissonFollowsItsPmf() {
    DiscreteNoise d = seeded(6);
    long[][] cases = {{3, 10}, {5, 2}, {10, 1}, {64, 1}, {511, 2}, {256, 1}, {769, 3}, {10_000, 1},
        {3_703_705, 3}, {1_000_000, 1}};
    for (long[] c : cases) {
      double lambda = (double) c[0] / c[1];
      PoissonDistribution p = PoissonDistribution.of(lambda);
      long[] edges = lambda < 100 ? unitEdges(-1, (long) Math.ceil(lambda + 10 * Math.sqrt(lambda) + 10))
          : quantileEdges(lambda, Math.sqrt(lambda), 80);
      long[] x = draw(() -> d.poisson(c[0], c[1]), N);
      assertFits(x, edges, k -> k < 0 ? 0 : p.cumulativeProbability((int) k), "Poisson(" + c[0] + "/" + c[1] + ")");
    }
  }

  /** Sk(lambda, lambda) for lambda = 0.5, 10, 10^4, 10^6: 10^6 draws each against P[X - Y <= e]. */
  @Test
  void skellamFollowsItsPmf() {
    DiscreteNoise d = seeded(7);
    long[][] cases = {{1, 2}, {10, 1}, {10_000, 1}, {1_000_000, 1}};
    for (long[] c : cases) {
      double lambda = (double) c[0] / c[1];
      double sd = Math.sqrt(2 * lambda);
      long[] edges = lambda < 50 ? unitEdges(-(long) Math.ceil(8 * sd) - 1, (long) Math.ceil(8 * sd))
          : quantileEdges(0, sd, 80);
      long[] x = new long[N];
      d.fillSkellam(x, c[0], c[1]);
      assertFits(x, edges, skellamCdf(lambda), "Skellam(" + c[0] + "/" + c[1] + ")");
    }
  }

  /**
   * Mean, variance and excess kurtosis agree with the dd76219 reference sampler on the same
   * settings, and with theory. Differences within 5.33 standard errors of the difference
   * (false-failure rate 1e-7 each): for the mean sqrt(v1/n1 + v2/n2); for the variance
   * sqrt((mu4 - v^2)(1/n1 + 1/n2)); for the excess kurtosis of these nearly normal laws sqrt(24 /
   * n1 + 24 / n2) (its large-sample variance for a normal law).
   */
  @Test
  void momentsAgreeWithTheReferenceSampler() {
    DiscreteNoise d = seeded(8);
    ReferenceDiscreteNoise ref = new ReferenceDiscreteNoise(RandomBits.insecureForTesting(9)::nextLong);
    compareMoments(draw(() -> d.discreteGaussian(4), N), draw(() -> ref.discreteGaussian(4), N), 4.0, 0,
        "N_Z(0, 4)");
    compareMoments(draw(() -> d.discreteGaussian(556_009), N), draw(() -> ref.discreteGaussian(556_009), 400_000),
        556_009, 0, "N_Z(0, 556009)");
    compareMoments(draw(() -> d.skellam(10, 1), N), draw(() -> ref.skellam(10, 1), 200_000), 20, 1.0 / 20,
        "Sk(10, 10)");
    compareMoments(draw(() -> d.skellam(2001, 2), N), draw(() -> ref.skellam(2001, 2), 4_000), 2001, 1.0 / 2001,
        "Sk(1000.5, 1000.5)");
  }

  private static double[] moments(long[] x) {
    double mean = 0;
    for (long v : x) {
      mean += v;
    }
    mean /= x.length;
    double m2 = 0;
    double m4 = 0;
    for (long v : x) {
      double c = v - mean;
      m2 += c * c;
      m4 += c * c * c * c;
    }
    m2 /= x.length;
    m4 /= x.length;
    return new double[] {mean, m2, m4 / (m2 * m2) - 3, m4};
  }

  private static void compareMoments(long[] fast, long[] ref, double variance, double excessKurtosis, String what) {
    double[] a = moments(fast);
    double[] b = moments(ref);
    int n1 = fast.length;
    int n2 = ref.length;
    double inv = 1.0 / n1 + 1.0 / n2;
    assertEquals(b[0], a[0], Z * Math.sqrt(variance * inv), what + " mean vs reference");
    double varSe = Math.sqrt((a[3] - a[1] * a[1]) * inv);
    assertEquals(b[1], a[1], Z * varSe, what + " variance vs reference");
    assertEquals(b[2], a[2], Z * Math.sqrt(24 * inv), what + " excess kurtosis vs reference");
    assertEquals(0, a[0], Z * Math.sqrt(variance / n1), what + " mean");
    assertEquals(variance, a[1], Z * Math.sqrt((a[3] - a[1] * a[1]) / n1), what + " variance");
    assertEquals(excessKurtosis, a[2], Z * Math.sqrt(24.0 / n1), what + " excess kurtosis");
  }

  /**
   * sigma^2 = 10^11 (one honest party, small eps, 8000 parameters): mean and variance of 200,000
   * draws within 5.33 standard errors (false-failure rate 1e-7 each).
   */
  @Test
  void veryLargeSigmaSquaredIsSampledExactlyToo() {
    DiscreteNoise d = seeded(10);
    long s2 = 100_000_000_000L;
    double[] m = moments(draw(() -> d.discreteGaussian(s2), 200_000));
    assertEquals(0, m[0], Z * Math.sqrt((double) s2 / 200_000));
    assertEquals(s2, m[1], Z * Math.sqrt(2.0 / 200_000) * s2);
  }

  @Test
  void parametersOutOfRangeAreRefused() {
    DiscreteNoise d = seeded(11);
    assertThrows(IllegalArgumentException.class, () -> d.discreteGaussian(0));
    assertThrows(IllegalArgumentException.class, () -> d.discreteGaussian(1, 0));
    assertThrows(IllegalArgumentException.class, () -> d.poisson(-1, 1));
    assertThrows(IllegalArgumentException.class, () -> d.poisson(1, 0));
    assertThrows(IllegalArgumentException.class, () -> d.skellam(1L << 41, 1));
    assertEquals(0, d.poisson(0, 5));
  }
}
