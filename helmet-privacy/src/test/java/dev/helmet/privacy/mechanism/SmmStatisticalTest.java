package dev.helmet.privacy.mechanism;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.noise.RandomBits;
import org.apache.commons.statistics.distribution.BinomialDistribution;
import org.junit.jupiter.api.Test;

/**
 * Statistical tests of stochastic rounding and of the encoding end to end. All randomness is
 * seeded ({@link RandomBits#insecureForTesting}, fixed data seeds), so each test gives the same
 * answer on every run; the false-failure rate of each check on random seeds is stated with it.
 */
@org.junit.jupiter.api.Tag("statistical")
class SmmStatisticalTest {
  /** Two-sided normal quantile for a false-failure rate of 1e-7. */
  private static final double Z = 5.33;

  @Test
  void stochasticRoundingRoundsUpWithExactlyTheFractionalPart() {
    // Binomial acceptance region with 1e-8 in each tail: false-failure rate 2e-8 per value.
    double[] values = {0.3, -2.7, 1e-3, 0.999, 7 + 0x1p-20, -1.0 / 3, 1e6 + 0.5, -0x1p-30};
    int n = 1_000_000;
    RandomBits bits = RandomBits.insecureForTesting(20);
    for (double x : values) {
      double a = Math.abs(x);
      long k = (long) Math.floor(a);
      double p = a - k;
      long up = 0;
      double sum = 0;
      for (int i = 0; i < n; i++) {
        long r = StochasticRounding.round(x, bits);
        long m = Math.abs(r);
        assertTrue(m == k || m == k + 1, x + " -> " + r);
        up += m - k;
        sum += r - x;
      }
      BinomialDistribution b = BinomialDistribution.of(n, p);
      int lo = b.inverseCumulativeProbability(1e-8);
      int hi = b.inverseSurvivalProbability(1e-8);
      assertTrue(up >= lo && up <= hi, x + ": " + up + " not in [" + lo + ", " + hi + "]");
      // the mean error, the same count seen as a bias: |mean| <= Z sd / sqrt(n)
      assertTrue(Math.abs(sum / n) <= Z * Math.sqrt(p * (1 - p) / n) + 1e-9, x + ": bias " + sum / n);
    }
  }

  /**
   * The aggregate error of n clients in the rotated domain, W = (signed sum of messages) - (sum of
   * the clients' clipped, scaled, rotated gradients): the clients' rounding errors plus Sk(n
   * lambda, n lambda) per coordinate. Also checks that the decoder's output is that error brought
   * back: ||decoded - sum_i inverse(clipped_i) / gamma|| = ||W|| / gamma (d = D: an isometry).
   */
  private static Aggregate aggregate(int clients, SmmParameters p, int d, long seed) {
    RandomizedHadamard h = new RandomizedHadamard(d, seed);
    int dd = h.paddedDimension();
    SmmEncoder enc = new SmmEncoder(h, p, RandomBits.insecureForTesting(seed));
    long[][] messages = new long[clients][];
    double[] clippedSum = new double[dd];
    double[] var = new double[dd];
    double[] kappa4 = new double[dd];
    double[] maxAbs = new double[dd];
    for (int i = 0; i < clients; i++) {
      double[] x = SmmEncodingTest.unitBall(d, 0.5 + 0.1 * i, seed * 1000 + i);
      double[] clipped = enc.scaleAndClip(x);
      messages[i] = enc.encode(x);
      for (int j = 0; j < dd; j++) {
        clippedSum[j] += clipped[j];
        double a = Math.abs(clipped[j]);
        double f = a - Math.floor(a);
        double v = f * (1 - f);
        var[j] += v;
        kappa4[j] += v * (1 - 6 * v); // the fourth cumulant of a Bernoulli(f)
        maxAbs[j] += Math.max(f, 1 - f);
      }
    }
    long[] sum = SmmDecoder.sumMod(p.bits(), messages);
    double[] w = new double[dd];
    for (int j = 0; j < dd; j++) {
      w[j] = SmmDecoder.toSigned(sum[j], p.bits()) - clippedSum[j];
    }
    double[] decoded = new SmmDecoder(h, p).decode(sum);
    double[] expected = h.inverse(clippedSum);
    double err2 = 0;
    double w2 = 0;
    for (int j = 0; j < dd; j++) {
      double e = decoded[j] - expected[j] / p.gamma();
      err2 += e * e;
      w2 += w[j] * w[j];
    }
    assertEquals(Math.sqrt(w2) / p.gamma(), Math.sqrt(err2), 1e-9 * (1 + Math.sqrt(w2)));
    return new Aggregate(w, var, kappa4, maxAbs);
  }

  private record Aggregate(
      double[] w, double[] roundingVar, double[] roundingKappa4, double[] maxRounding) {}

  /**
   * Each W_j has mean 0, variance kappa2_j = (rounding variance) + 2 n lambda and fourth cumulant
   * kappa4_j = (rounding fourth cumulant) + 2 n lambda (every even cumulant of Sk(mu, mu) is 2 mu).
   * So sum_j W_j has variance sum_j kappa2_j, and sum_j W_j^2 has mean sum_j kappa2_j and variance
   * sum_j (kappa4_j + 2 kappa2_j^2). Both are sums of D independent terms, checked at Z = 5.33 by
   * the normal approximation: false-failure rate about 1e-7 for the sum and, the sum of squares
   * being skewed like a chi-square with D = 4096 degrees of freedom, below 1e-5 for it.
   */
  private static void assertUnbiasedWithExpectedSpread(Aggregate a, double mu) {
    double sum = 0;
    double sumSq = 0;
    double mean = 0;
    double var = 0;
    for (int j = 0; j < a.w().length; j++) {
      double k2 = a.roundingVar()[j] + 2 * mu;
      double k4 = a.roundingKappa4()[j] + 2 * mu;
      sum += a.w()[j];
      sumSq += a.w()[j] * a.w()[j];
      mean += k2;
      var += k4 + 2 * k2 * k2;
    }
    assertTrue(Math.abs(sum) <= Z * Math.sqrt(mean), "sum of errors " + sum + ", sd " + Math.sqrt(mean));
    assertTrue(Math.abs(sumSq - mean) <= Z * Math.sqrt(var),
        "sum of squared errors " + sumSq + ", expected " + mean + " +- " + Math.sqrt(var));
  }

  @Test
  void withoutNoiseTheDecodedSumErrsOnlyByTheRounding() {
    int clients = 8;
    SmmParameters p = new SmmParameters(64, 64 * 64, 16, 0, 1, 20);
    Aggregate a = aggregate(clients, p, 4096, 31);
    for (int j = 0; j < a.w().length; j++) {
      // each client's rounding error is -f or 1 - f: at most max(f, 1 - f) in magnitude
      assertTrue(Math.abs(a.w()[j]) <= a.maxRounding()[j] + 1e-9, "coordinate " + j + ": " + a.w()[j]);
    }
    assertUnbiasedWithExpectedSpread(a, 0);
  }

  @Test
  void decodedSumOfNoisyMessagesHasTheExpectedMeanAndSpread() {
    int clients = 8;
    SmmParameters p = new SmmParameters(64, 64 * 64, 16, 25, 2, 20);
    assertTrue(new SmmDecoder(new RandomizedHadamard(4096, 1), p).wrapProbabilityBound(clients) < 1e-9);
    assertUnbiasedWithExpectedSpread(aggregate(clients, p, 4096, 32), clients * p.lambda());
  }

  @Test
  void eightBitRingDecodesTheSumWithTheExpectedSpread() {
    int clients = 4;
    SmmParameters p = new SmmParameters(8, 64, 4, 2, 1, 8);
    assertTrue(new SmmDecoder(new RandomizedHadamard(4096, 1), p).wrapProbabilityBound(clients) < 1e-9);
    assertUnbiasedWithExpectedSpread(aggregate(clients, p, 4096, 33), clients * p.lambda());
  }

  @Test
  void paddedDimensionsDecodeWithinTheSpreadOfTheNoise() {
    // d = 3000 < D = 4096: the decoder's truncation drops part of the error, never adds to it.
    int clients = 5;
    SmmParameters p = new SmmParameters(32, 32 * 32, 8, 10, 1, 16);
    RandomizedHadamard h = new RandomizedHadamard(3000, 34);
    SmmEncoder enc = new SmmEncoder(h, p, RandomBits.insecureForTesting(34));
    long[][] messages = new long[clients][];
    double[] clippedSum = new double[4096];
    for (int i = 0; i < clients; i++) {
      double[] x = SmmEncodingTest.unitBall(3000, 1, 340 + i);
      double[] c = enc.scaleAndClip(x);
      for (int j = 0; j < 4096; j++) {
        clippedSum[j] += c[j];
      }
      messages[i] = enc.encode(x);
    }
    double[] decoded = new SmmDecoder(h, p).decode(SmmDecoder.sumMod(16, messages));
    double[] expected = h.inverse(clippedSum);
    double err2 = 0;
    for (int j = 0; j < 3000; j++) {
      double e = (decoded[j] - expected[j] / p.gamma()) * p.gamma();
      err2 += e * e;
    }
    // Each column of the inverse rotation truncated to d rows has squared norm d / D, so E err2 =
    // (d / D) sum_j kappa2_j, between d 2 n lambda and d (n / 4 + 2 n lambda). err2 is a quadratic
    // form of rank d in independent errors: its sd is about sqrt(2 / d) = 2.6 % of its mean (the
    // fourth cumulants add under 1 %); 6 sd on each side: false-failure rate below 1e-8.
    double slack = 6 * Math.sqrt(2.0 / 3000) * 1.01;
    double upper = 3000 * (clients / 4.0 + 2 * clients * p.lambda()) * (1 + slack);
    double lower = 3000 * (2 * clients * p.lambda()) * (1 - slack);
    assertTrue(err2 <= upper, "squared error " + err2 + " above " + upper);
    assertTrue(err2 >= lower, "squared error " + err2 + " below " + lower);
  }
}
