package dev.helmet.core.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.preprocess.DesignMatrix;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OptimumTest {
  private static final int N = 200;
  private static final int COLS = 5; // intercept + 4 features

  /** Rows of norm at most 1 (intercept 1 scaled with them) and targets within [-1, 1]. */
  private static DesignMatrix rows(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] x = new double[N * COLS];
    double[] y = new double[N];
    double[] w = {0.2, 0.5, -0.4, 0.3, 0};
    for (int i = 0; i < N; i++) {
      double sq = 0;
      for (int j = 0; j < COLS; j++) {
        x[i * COLS + j] = j == 0 ? 1 : r.nextGaussian();
        sq += x[i * COLS + j] * x[i * COLS + j];
      }
      double s = 1 / Math.sqrt(sq);
      for (int j = 0; j < COLS; j++) {
        x[i * COLS + j] *= s;
        y[i] += w[j] * x[i * COLS + j];
      }
      y[i] = Math.max(-1, Math.min(1, y[i] + 0.05 * r.nextGaussian()));
    }
    return DesignMatrix.dense(x, y, N, COLS);
  }

  /**
   * With a radius too large to bind, the squared loss's minimiser is the least-squares solution:
   * checked against the normal equations X^T X w = X^T y, solved here independently by Gaussian
   * elimination with partial pivoting.
   */
  @Test
  void squaredLossOptimumIsTheLeastSquaresSolution() {
    DesignMatrix d = rows(1);
    NoisyRegression sq = new NoisyRegression(NoisyRegression.Loss.SQUARED, 1, COLS - 1, 1, 0, 1e6, 1);
    Optimum.Result r = Optimum.minimize(sq, d, new double[COLS], 200_000);
    assertTrue(r.converged(), "iterations " + r.iterations());
    double[][] a = new double[COLS][COLS + 1];
    double[] row = new double[COLS];
    for (int i = 0; i < N; i++) {
      d.copyRow(i, row);
      for (int p = 0; p < COLS; p++) {
        for (int q = 0; q < COLS; q++) {
          a[p][q] += row[p] * row[q];
        }
        a[p][COLS] += row[p] * d.target(i);
      }
    }
    double[] w = solve(a);
    for (int j = 0; j < COLS; j++) {
      assertEquals(w[j], r.theta()[j], 1e-6, "coordinate " + j);
    }
    assertEquals(sq.meanLoss(d, w), r.loss(), 1e-12);
  }

  /** On overlapping classes the logistic loss has a finite minimiser, where the gradient vanishes. */
  @Test
  void logisticOptimumHasAVanishingGradient() {
    SplittableRandom rnd = new SplittableRandom(3);
    double[] x = new double[N * COLS];
    int[] y = new int[N];
    for (int i = 0; i < N; i++) {
      y[i] = rnd.nextInt(2);
      for (int j = 0; j < COLS; j++) {
        x[i * COLS + j] = (j == 0 ? 1 : rnd.nextGaussian() + (y[i] == 1 ? 0.3 : -0.3)) / Math.sqrt(COLS * 2.0);
      }
    }
    DesignMatrix d = DesignMatrix.dense(x, y, N, COLS, 2);
    NoisyGradientDescent lr = new NoisyGradientDescent(NoisyGradientDescent.Loss.LOGISTIC, 1, COLS - 1, 2, 1, 0);
    Optimum.Result r = Optimum.minimize(lr, d, new double[COLS], 200_000);
    assertTrue(r.converged());
    double[] g = new double[COLS];
    lr.meanGradient(d, r.theta(), g);
    for (double v : g) {
      assertEquals(0, v, 1e-8);
    }
    // and no point nearby is lower
    for (int j = 0; j < COLS; j++) {
      double[] t = r.theta().clone();
      t[j] += 1e-3;
      assertTrue(lr.meanLoss(d, t) >= r.loss());
    }
  }

  /** The non-convex PL loss: plain projected steps reach a point whose gradient vanishes (a global minimum under PL). */
  @Test
  void polyakLojasiewiczOptimumIsStationary() {
    DesignMatrix d = rows(2);
    NoisyRegression pl = new NoisyRegression(NoisyRegression.Loss.POLYAK_LOJASIEWICZ, 1, COLS - 1, 1, 0, 1, 1);
    Optimum.Result r = Optimum.minimize(pl, d, pl.start(5), 200_000);
    assertTrue(r.converged());
    double[] g = new double[COLS];
    pl.meanGradient(d, r.theta(), g);
    for (double v : g) {
      assertEquals(0, v, 1e-7);
    }
    assertTrue(r.loss() <= pl.meanLoss(d, pl.start(5)));
  }

  private static double[] solve(double[][] a) {
    int n = a.length;
    for (int c = 0; c < n; c++) {
      int p = c;
      for (int r = c + 1; r < n; r++) {
        if (Math.abs(a[r][c]) > Math.abs(a[p][c])) {
          p = r;
        }
      }
      double[] t = a[c];
      a[c] = a[p];
      a[p] = t;
      for (int r = c + 1; r < n; r++) {
        double f = a[r][c] / a[c][c];
        for (int k = c; k <= n; k++) {
          a[r][k] -= f * a[c][k];
        }
      }
    }
    double[] w = new double[n];
    for (int r = n - 1; r >= 0; r--) {
      double s = a[r][n];
      for (int k = r + 1; k < n; k++) {
        s -= a[r][k] * w[k];
      }
      w[r] = s / a[r][r];
    }
    return w;
  }
}
