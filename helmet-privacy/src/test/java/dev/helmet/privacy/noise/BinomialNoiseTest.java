package dev.helmet.privacy.noise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.function.LongToDoubleFunction;
import org.apache.commons.statistics.distribution.BinomialDistribution;
import org.junit.jupiter.api.Test;

/**
 * The exact centred binomial sampler (cpSGD's noise). Goodness of fit against the binomial
 * distribution function of Commons Statistics (an independent implementation) on seeded bits, each
 * check failing a correct sampler with probability at most 1e-7; the fast path against the exact
 * path on the same bits; and the envelope inequality the sampler's proof rests on, checked in exact
 * integer arithmetic.
 */
@org.junit.jupiter.api.Tag("statistical")
class BinomialNoiseTest {
  private static final int DRAWS = 1_000_000;

  private static long[] draws(long seed, long trials, int n) {
    long[] x = new long[n];
    new DiscreteNoise(RandomBits.insecureForTesting(seed)).fillCentredBinomial(x, trials);
    return x;
  }

  /** P[Bin(trials, 1/2) - trials/2 <= t]. */
  private static LongToDoubleFunction centredCdf(int trials) {
    BinomialDistribution b = BinomialDistribution.of(trials, 0.5);
    return t -> b.cumulativeProbability((int) Math.max(-1, Math.min(trials, t + trials / 2)));
  }

  private static double[] fit(long[] x, int trials) {
    double sd = Math.sqrt(trials / 4.0);
    long[] edges = sd < 30 ? DiscreteNoiseStatisticalTest.unitEdges(-trials / 2 - 1, trials / 2)
        : DiscreteNoiseStatisticalTest.quantileEdges(0, sd, 200);
    return DiscreteNoiseStatisticalTest.chiSquare(x, edges, centredCdf(trials));
  }

  @Test
  void drawsFollowTheBinomialDistribution() {
    int[] trials = {2, 20, 1000, 1_000_000, 200_000_000};
    for (int i = 0; i < trials.length; i++) {
      double[] r = fit(draws(700 + i, trials[i], DRAWS), trials[i]);
      assertTrue(r[0] < r[1], "N = " + trials[i] + ": chi2 " + r[0] + " >= " + r[1] + " (false-failure rate 1e-7)");
    }
  }

  @Test
  void theFitRejectsAVarianceTwoPercentOff() {
    // Draws with 2% more trials (2% more variance) are told apart from the stated distribution.
    double[] r = fit(draws(710, 1_020_000, DRAWS), 1_000_000);
    assertTrue(r[0] > r[1], "chi2 " + r[0] + " should exceed " + r[1]);
  }

  /** One sampler's most trials, and a count drawn as a sum of such draws (2^36 = 8 x 2^33). */
  @Test
  void veryManyTrialsHaveTheBinomialMoments() {
    for (long trials : new long[] {BinomialSampler.MAX_TRIALS, 1L << 36}) {
      moments(trials);
    }
  }

  private static void moments(long trials) {
    long[] x = draws(720, trials, 200_000);
    double mean = 0;
    double sq = 0;
    for (long v : x) {
      mean += v;
      sq += (double) v * v;
    }
    mean /= x.length;
    double var = sq / x.length - mean * mean;
    double sd = Math.sqrt(trials / 4.0);
    // Mean within 5.33 standard errors; variance within 5.33 standard errors (sd of s^2 ~ sqrt(2/n) var).
    assertTrue(Math.abs(mean) < 5.33 * sd / Math.sqrt(x.length), "mean " + mean);
    assertEquals(1.0, var / (trials / 4.0), 5.33 * Math.sqrt(2.0 / x.length), "variance ratio");
  }

  @Test
  void theFastPathDecidesAsTheExactPath() {
    long[] trials = {2, 20, 1000, 1_000_000};
    for (long n : trials) {
      DiscreteNoise fast = new DiscreteNoise(RandomBits.insecureForTesting(730 + n));
      DiscreteNoise exact = new DiscreteNoise(RandomBits.insecureForTesting(730 + n), true);
      long[] a = new long[500];
      long[] b = new long[500];
      for (int i = 0; i < a.length; i++) {
        a[i] = fast.centredBinomial(n);
        b[i] = exact.centredBinomial(n);
      }
      assertArrayEquals(b, a, "N = " + n);
    }
  }

  /**
   * The envelope the acceptance probability r(d) 4^k <= 1 rests on: C(2M, M + k w) 4^k <= C(2M, M)
   * for every block k >= 1 inside the support, in BigInteger arithmetic, for every M up to 400 and
   * some larger ones.
   */
  @Test
  void theEnvelopeCoversTheDistribution() {
    long[] large = {1000, 4096, 12_345};
    for (long m = 1; m <= 400 + large.length; m++) {
      long half = m <= 400 ? m : large[(int) (m - 401)];
      long w = BinomialSampler.blockWidth(half);
      BigInteger[] c = binomialRow(2 * half);
      for (long k = 1; k * w <= half; k++) {
        BigInteger lhs = c[(int) (half + k * w)].shiftLeft((int) (2 * k));
        assertTrue(lhs.compareTo(c[(int) half]) <= 0, "M = " + half + ", w = " + w + ", k = " + k);
      }
      // w is the smallest width of its kind: one less fails the integer condition.
      assertTrue(w == 1 || 10000 * (w - 1) * (w - 1) < 13863 * (half + w - 1), "M = " + half);
    }
  }

  private static BigInteger[] binomialRow(long n) {
    BigInteger[] c = new BigInteger[(int) n + 1];
    c[0] = BigInteger.ONE;
    for (int i = 1; i <= n; i++) {
      c[i] = c[i - 1].multiply(BigInteger.valueOf(n - i + 1)).divide(BigInteger.valueOf(i));
    }
    return c;
  }

  /**
   * The pre-check's table against the exact path's bounds: for every tabled d and every block k it
   * may be used with, the table's value times 4^k with its stated relative error contains r(d) 4^k
   * as the exact path bounds it at 120 bits. A wrong table entry or error bound fails here even
   * where the goodness-of-fit test cannot see it (blocks of mass below 1e-5).
   */
  @Test
  void theTableAgreesWithTheExactPath() {
    for (long trials : new long[] {2, 40, 1000, 123_456, 20_000_000}) {
      BinomialSampler s = new BinomialSampler(RandomBits.insecureForTesting(1), false, trials);
      long w = BinomialSampler.blockWidth(trials / 2);
      int step = Math.max(1, s.tabled() / 300);
      for (int d = 0; d < s.tabled(); d += d < 50 ? 1 : step) {
        int k = (int) (Math.max(0, d - 1) / w);
        double[] t = s.tabledRatio(d);
        java.math.BigInteger[] b = s.exactAcceptance(d, k).at(120);
        double lo = b[0].doubleValue() * 0x1p-120;
        double hi = b[1].doubleValue() * 0x1p-120;
        double x = Math.scalb(t[0], 2 * k);
        assertTrue(x * (1 - t[1]) <= hi * (1 + 1e-15) && x * (1 + t[1]) >= lo * (1 - 1e-15),
            "N = " + trials + ", d = " + d + ", k = " + k + ": table " + x + " +- " + t[1] + ", exact [" + lo + ", "
                + hi + "]");
        assertTrue(hi <= 1 + 1e-15, "acceptance above 1 at N = " + trials + ", d = " + d);
      }
    }
  }

  /** Counts around the chunk size: a remainder of 2, and a remainder of exactly one chunk. */
  @Test
  void countsAroundTheChunkSizeAreDrawnAsSums() {
    for (long trials : new long[] {BinomialSampler.MAX_TRIALS + 2, 2 * BinomialSampler.MAX_TRIALS}) {
      moments(trials);
    }
  }

  @Test
  void oddNegativeOrTooManyTrialsAreRefused() {
    DiscreteNoise noise = new DiscreteNoise(RandomBits.insecureForTesting(1));
    assertThrows(IllegalArgumentException.class, () -> noise.centredBinomial(3));
    assertThrows(IllegalArgumentException.class, () -> noise.centredBinomial(-2));
    assertThrows(IllegalArgumentException.class, () -> noise.centredBinomial(DiscreteNoise.MAX_BINOMIAL_TRIALS + 2));
    assertEquals(0, noise.centredBinomial(0));
  }
}
