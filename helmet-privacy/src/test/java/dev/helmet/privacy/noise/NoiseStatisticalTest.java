package dev.helmet.privacy.noise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.apache.commons.numbers.gamma.Erfc;
import org.apache.commons.statistics.distribution.ChiSquaredDistribution;
import org.junit.jupiter.api.Test;

/**
 * Statistical tests of the samplers. Each test states its false-failure rate: the probability that
 * a correct sampler fails it. All are at most 1e-6, so a spurious CI failure is negligible.
 */
@org.junit.jupiter.api.Tag("statistical")
class NoiseStatisticalTest {
  private static final int N = 400_000;

  private static double phi(double x) {
    return 0.5 * Erfc.value(-x / Math.sqrt(2));
  }

  /**
   * Mean and variance within 5.5 standard errors (two-sided normal tail 3.8e-8 each) and the
   * Kolmogorov-Smirnov distance below sqrt(ln(2/alpha) / (2n)) with alpha = 1e-7 (the DKW
   * inequality): total false-failure rate below 2e-7.
   */
  @Test
  void secureGaussianNoiseIsStandardNormal() {
    GaussianNoise g = GaussianNoise.secure();
    assertTrue(g.isSecure());
    double[] x = new double[N];
    double sum = 0;
    for (int i = 0; i < N; i++) {
      x[i] = g.nextStandard();
      sum += x[i];
    }
    double mean = sum / N;
    double ss = 0;
    for (double v : x) {
      ss += (v - mean) * (v - mean);
    }
    double var = ss / (N - 1);
    assertEquals(0, mean, 5.5 / Math.sqrt(N), "mean");
    assertEquals(1, var, 5.5 * Math.sqrt(2.0 / N), "variance"); // Var(s^2) = 2/n for N(0,1)
    Arrays.sort(x);
    double d = 0;
    for (int i = 0; i < N; i++) {
      double f = phi(x[i]);
      d = Math.max(d, Math.max(Math.abs((i + 1.0) / N - f), Math.abs(f - (double) i / N)));
    }
    double crit = Math.sqrt(Math.log(2 / 1e-7) / (2.0 * N));
    assertTrue(d < crit, "KS distance " + d + " >= " + crit);
  }

  @Test
  void addToAddsNoiseOfTheRequestedScale() {
    GaussianNoise g = GaussianNoise.secure();
    double[] v = new double[N];
    g.addTo(v, 3.0);
    double ss = 0;
    for (double x : v) {
      ss += x * x;
    }
    // E[x^2] = 9 with Var(x^2) = 2 * 81; 5.5 standard errors: false-failure rate 3.8e-8.
    assertEquals(9, ss / N, 5.5 * Math.sqrt(162.0 / N));
    assertThrows(IllegalArgumentException.class, () -> g.addTo(v, -1));
  }

  /** Chi-square goodness of fit over 13 values at the 1e-7 upper quantile: false-failure rate 1e-7. */
  @Test
  void boundedIntegersAreUniformWithoutModuloBias() {
    RandomBits bits = RandomBits.secure();
    int k = 13;
    long[] counts = new long[k];
    for (int i = 0; i < N; i++) {
      counts[(int) bits.nextLong(k)]++;
    }
    double expected = (double) N / k;
    double chi2 = 0;
    for (long c : counts) {
      chi2 += (c - expected) * (c - expected) / expected;
    }
    double crit = ChiSquaredDistribution.of(k - 1).inverseSurvivalProbability(1e-7);
    assertTrue(chi2 < crit, "chi2 " + chi2 + " >= " + crit);
    assertThrows(IllegalArgumentException.class, () -> bits.nextLong(0));
  }

  @Test
  void uniformDoublesAreInTheirIntervals() {
    RandomBits bits = RandomBits.secure();
    for (int i = 0; i < 100_000; i++) {
      double a = bits.nextDouble();
      double b = bits.nextDoubleNonZero();
      assertTrue(a >= 0 && a < 1);
      assertTrue(b > 0 && b <= 1);
    }
  }

  @Test
  void seededBitsAreReproducibleAndSayTheyAreInsecure() {
    RandomBits a = RandomBits.insecureForTesting(5);
    RandomBits b = RandomBits.insecureForTesting(5);
    assertFalse(a.isSecure());
    for (int i = 0; i < 10; i++) {
      assertEquals(a.nextLong(), b.nextLong());
    }
    assertNotEquals(RandomBits.secure().nextLong(), RandomBits.secure().nextLong()); // 2^-64 false-failure rate
    assertFalse(NoiseFactory.seededForTesting(1).isSecure());
    assertTrue(NoiseFactory.secure().isSecure());
  }
}
