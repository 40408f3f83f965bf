package dev.helmet.privacy.noise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.LongSupplier;
import java.util.function.LongToDoubleFunction;
import org.apache.commons.statistics.distribution.ChiSquaredDistribution;
import org.apache.commons.statistics.distribution.PoissonDistribution;
import org.junit.jupiter.api.Test;

/**
 * Statistical tests of the exact samplers, all from the secure source. Every check states its
 * false-failure rate; each is at most 1e-7, so the whole class fails spuriously with probability
 * below 3e-6.
 */
class DiscreteNoiseStatisticalTest {
  private static final int N = 200_000;
  /** Two-sided normal quantile for a false-failure rate of 1e-7: 5.33. */
  private static final double Z = 5.33;

  /** The pmf of N_Z(0, sigma2) by direct summation over |k| <= 40 sigma (the rest is below 1e-300). */
  static double[] discreteGaussianPmf(long sigma2, int maxK) {
    double z = 0;
    int range = (int) Math.ceil(40 * Math.sqrt(sigma2)) + maxK;
    for (int k = -range; k <= range; k++) {
      z += Math.exp(-(double) k * k / (2.0 * sigma2));
    }
    double[] pmf = new double[2 * maxK + 1];
    for (int k = -maxK; k <= maxK; k++) {
      pmf[k + maxK] = Math.exp(-(double) k * k / (2.0 * sigma2)) / z;
    }
    return pmf;
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

  /** Mean and variance within 5.33 standard errors (false-failure rate 1e-7 each). */
  private static void meanAndVariance(LongSupplier sampler, double mean, double variance, double fourthMoment,
      String what) {
    double sum = 0;
    double sumSq = 0;
    long[] x = new long[N];
    for (int i = 0; i < N; i++) {
      x[i] = sampler.getAsLong();
      sum += x[i];
    }
    double m = sum / N;
    for (long v : x) {
      sumSq += (v - m) * (v - m);
    }
    double var = sumSq / (N - 1);
    assertEquals(mean, m, Z * Math.sqrt(variance / N), what + " mean");
    // Var(sample variance) ~ (mu4 - sigma^4) / n
    assertEquals(variance, var, Z * Math.sqrt((fourthMoment - variance * variance) / N), what + " variance");
  }

  /**
   * Chi-square goodness of fit at the 1e-7 quantile. Values in lo .. hi whose expected count is at
   * least 5 get a cell each; everything else (the tails) forms one rest cell, which enters the
   * chi-square if its expected count is at least 5 and is otherwise checked against the 1e-7 upper
   * quantile of its Poisson count. (A cell with a tiny expected count would let one legitimate
   * tail sample dominate the statistic: at |k| = 6 of N_Z(0, 1), 200,000 samples expect 0.0012.)
   */
  private static void goodnessOfFit(LongSupplier sampler, int lo, int hi, LongToDoubleFunction pmf, String what) {
    int span = hi - lo + 1;
    boolean[] own = new boolean[span];
    double ownP = 0;
    int cells = 0;
    for (int k = lo; k <= hi; k++) {
      double p = pmf.applyAsDouble(k);
      if (N * p >= 5) {
        own[k - lo] = true;
        ownP += p;
        cells++;
      }
    }
    long[] counts = new long[span];
    long rest = 0;
    for (int i = 0; i < N; i++) {
      long v = sampler.getAsLong();
      if (v >= lo && v <= hi && own[(int) (v - lo)]) {
        counts[(int) (v - lo)]++;
      } else {
        rest++;
      }
    }
    double chi2 = 0;
    for (int k = lo; k <= hi; k++) {
      if (own[k - lo]) {
        double e = N * pmf.applyAsDouble(k);
        chi2 += (counts[k - lo] - e) * (counts[k - lo] - e) / e;
      }
    }
    double eRest = N * Math.max(0, 1 - ownP);
    int dof = cells - 1;
    if (eRest >= 5) {
      chi2 += (rest - eRest) * (rest - eRest) / eRest;
      dof++;
    } else {
      int limit = PoissonDistribution.of(Math.max(eRest, 1e-9)).inverseSurvivalProbability(1e-7);
      assertTrue(rest <= limit, what + ": " + rest + " samples in the tails, expected " + eRest);
    }
    double crit = ChiSquaredDistribution.of(dof).inverseSurvivalProbability(1e-7);
    assertTrue(chi2 < crit, what + ": chi2 " + chi2 + " >= " + crit + "; counts for " + lo + " .. " + hi + ": "
        + java.util.Arrays.toString(counts) + ", rest " + rest);
  }

  @Test
  void bernoulliExpHasTheRightProbability() {
    DiscreteNoise d = DiscreteNoise.secure();
    for (long[] g : new long[][] {{1, 2}, {7, 2}, {0, 1}, {3, 100}}) {
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
    DiscreteNoise d = DiscreteNoise.secure();
    long t = 3;
    double q = Math.exp(-1.0 / t);
    goodnessOfFit(() -> d.discreteLaplace(t), -15, 15, k -> (1 - q) / (1 + q) * Math.pow(q, Math.abs(k)),
        "discrete Laplace(3)");
  }

  @Test
  void discreteGaussianHasMeanZeroItsVarianceAndItsPmf() {
    DiscreteNoise d = DiscreteNoise.secure();
    double[] pmf4 = discreteGaussianPmf(4, 12);
    goodnessOfFit(() -> d.discreteGaussian(4), -12, 12, k -> pmf4[(int) k + 12], "N_Z(0, 4)");
    double[] pmf1 = discreteGaussianPmf(1, 6);
    goodnessOfFit(() -> d.discreteGaussian(1), -6, 6, k -> pmf1[(int) k + 6], "N_Z(0, 1)");
    // Large sigma (the grid scale Helmet uses): moments of a Gaussian (mu4 = 3 sigma^4).
    long s2 = 25_000_000L; // sigma = 5000
    meanAndVariance(() -> d.discreteGaussian(s2), 0, s2, 3.0 * s2 * s2, "N_Z(0, 5000^2)");
    assertThrows(IllegalArgumentException.class, () -> d.discreteGaussian(0));
  }

  /**
   * sigma^2 beyond 2e9 (one honest party, small eps, 8000 parameters needs 1e11) takes the exact
   * BigInteger path: mean and variance of 20,000 samples within 5.33 standard errors (false-failure
   * rate 1e-7 each).
   */
  @Test
  void veryLargeSigmaSquaredIsSampledExactlyToo() {
    DiscreteNoise d = DiscreteNoise.secure();
    long s2 = 100_000_000_000L;
    int n = 20_000;
    double sum = 0;
    double sumSq = 0;
    for (int i = 0; i < n; i++) {
      double v = d.discreteGaussian(s2);
      sum += v;
      sumSq += v * v;
    }
    assertEquals(0, sum / n, Z * Math.sqrt((double) s2 / n));
    assertEquals(s2, sumSq / n, Z * Math.sqrt(2.0 / n) * s2);
  }

  @Test
  void poissonAndSkellamHaveTheirMomentsAndPmf() {
    DiscreteNoise d = DiscreteNoise.secure();
    PoissonDistribution p = PoissonDistribution.of(2.5);
    goodnessOfFit(() -> d.poisson(5, 2), 0, 14, k -> p.probability((int) k), "Poisson(2.5)");
    PoissonDistribution p1 = PoissonDistribution.of(1);
    goodnessOfFit(d::poisson1, 0, 9, k -> p1.probability((int) k), "Poisson(1)");
    // Poisson(lambda): mean = var = lambda, mu4 (central) = lambda (1 + 3 lambda)
    meanAndVariance(() -> d.poisson(3, 10), 0.3, 0.3, 0.3 * (1 + 0.9), "Poisson(0.3)");
    // Skellam(l, l): mean 0, variance 2l, central mu4 = 2l + 3 (2l)^2
    double l = 7.25;
    meanAndVariance(() -> d.skellam(29, 4), 0, 2 * l, 2 * l + 3 * (2 * l) * (2 * l), "Skellam(7.25, 7.25)");
  }
}
