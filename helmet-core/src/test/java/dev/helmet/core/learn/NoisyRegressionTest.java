package dev.helmet.core.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class NoisyRegressionTest {
  private static final Preprocessing PRE = new Preprocessing(1, true); // rows of norm 1, c' = sqrt(2)
  private static final int N = 300;
  private static final int P = 5;

  /** y = w.x' + noise on normalised rows, w fixed; targets within [-2, 2] mostly. */
  private static Dataset rows(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[N * P];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) r.nextGaussian();
    }
    return new Dataset("synthetic", x, new int[N], P, LabelSet.of(List.of("?")), null);
  }

  private static double[] targets(DesignMatrix d, long seed) {
    double[] w = {0.3, 1, -1, 0.5, 0, 0.7};
    SplittableRandom r = new SplittableRandom(seed);
    double[] y = new double[d.rows()];
    double[] row = new double[d.cols()];
    for (int i = 0; i < y.length; i++) {
      d.copyRow(i, row);
      for (int j = 0; j < row.length; j++) {
        y[i] += w[j] * row[j];
      }
      y[i] += 0.05 * r.nextGaussian();
    }
    return y;
  }

  private static NoisyRegression gd(NoisyRegression.Loss loss, int steps) {
    return new NoisyRegression(loss, PRE.inputNormBound(), P, steps, 0, 3, 2);
  }

  @ParameterizedTest
  @EnumSource(NoisyRegression.Loss.class)
  void theGradientIsTheDerivativeOfTheMeanLoss(NoisyRegression.Loss loss) {
    DesignMatrix x = PRE.design(rows(1));
    double[] y = targets(x, 2);
    NoisyRegression g = gd(loss, 1);
    double[] theta = {0.2, -0.4, 0.1, 0.9, -0.3, 0.5};
    double[] grad = new double[theta.length];
    g.meanGradient(x, y, theta, grad);
    double h = 1e-6;
    for (int i = 0; i < theta.length; i++) {
      double[] up = theta.clone();
      double[] down = theta.clone();
      up[i] += h;
      down[i] -= h;
      double numeric = (g.meanLoss(x, y, up) - g.meanLoss(x, y, down)) / (2 * h);
      assertEquals(numeric, grad[i], 1e-6, loss + " coordinate " + i);
    }
  }

  /** On the R-ball with clipped targets, replacing one record moves the mean gradient by at most 2G/n. */
  @ParameterizedTest
  @EnumSource(NoisyRegression.Loss.class)
  void replacingOneRecordMovesTheMeanGradientByAtMostTwoGOverN(NoisyRegression.Loss loss) {
    SplittableRandom r = new SplittableRandom(5);
    Dataset d = rows(3);
    NoisyRegression g = gd(loss, 1);
    double worst = 0;
    for (int trial = 0; trial < 300; trial++) {
      int n = 10 + r.nextInt(30);
      int[] a = new int[n];
      for (int i = 0; i < n; i++) {
        a[i] = r.nextInt(N);
      }
      double[] ya = new double[n];
      for (int i = 0; i < n; i++) {
        ya[i] = 10 * (r.nextDouble() - 0.5); // beyond B = 2 too: clipped
      }
      int[] b = a.clone();
      double[] yb = ya.clone();
      int k = r.nextInt(n);
      b[k] = r.nextInt(N);
      yb[k] = 10 * (r.nextDouble() - 0.5);
      double[] theta = new double[P + 1];
      for (int i = 0; i < theta.length; i++) {
        theta[i] = r.nextGaussian();
      }
      double norm = 0;
      for (double v : theta) {
        norm += v * v;
      }
      double s = 3 * r.nextDouble() / Math.sqrt(norm); // a model anywhere inside the R = 3 ball
      for (int i = 0; i < theta.length; i++) {
        theta[i] *= s;
      }
      double[] ga = new double[theta.length];
      double[] gb = new double[theta.length];
      g.meanGradient(PRE.design(d, a), ya, theta, ga);
      g.meanGradient(PRE.design(d, b), yb, theta, gb);
      double dist = 0;
      for (int i = 0; i < ga.length; i++) {
        dist += (ga[i] - gb[i]) * (ga[i] - gb[i]);
      }
      worst = Math.max(worst, Math.sqrt(dist) / g.sensitivity(n));
    }
    System.out.printf("noisy regression %s: largest ||grad_D - grad_D'|| / (2G/n) over 300 trials = %.4f%n", loss,
        worst);
    assertTrue(worst <= 1 + 1e-12, loss + ": " + worst);
    assertTrue(worst > 0.1, "the bound is exercised: " + worst);
  }

  @ParameterizedTest
  @EnumSource(NoisyRegression.Loss.class)
  void noiselessTrainingFitsAndStaysInTheBall(NoisyRegression.Loss loss) {
    DesignMatrix x = PRE.design(rows(7));
    double[] y = targets(x, 8);
    NoisyRegression g = gd(loss, 500);
    double[] zero = new double[P + 1];
    LinearModel m = g.train(x, y, zero, 0, () -> Double.NaN);
    assertTrue(m.norm() <= 3, "projected: " + m.norm());
    double before = g.meanLoss(x, y, zero);
    double after = g.meanLoss(x, y, m.weights());
    // The squared loss fits the linear data; the PL loss's regulariser (||theta||^2 + 3 sin^2) keeps
    // its minimiser near 0, so it can only lower its own objective a little below the start's.
    assertTrue(loss == NoisyRegression.Loss.SQUARED ? after < 0.1 * before : after < before,
        loss + ": " + before + " -> " + after);
    // With noise the model still stays in the ball.
    SplittableRandom r = new SplittableRandom(9);
    LinearModel noisy = g.train(x, y, zero, 5, r::nextGaussian);
    assertTrue(noisy.norm() <= 3, "projected under noise: " + noisy.norm());
  }

  @Test
  void boundsAndBadTargets() {
    NoisyRegression sq = gd(NoisyRegression.Loss.SQUARED, 1);
    assertEquals((3 * PRE.inputNormBound() + 2) * PRE.inputNormBound(), sq.lipschitz(), 1e-12);
    assertEquals(2.0, sq.smoothness(), 1e-12);
    NoisyRegression pl = gd(NoisyRegression.Loss.POLYAK_LOJASIEWICZ, 1);
    assertEquals(sq.lipschitz() + 2 * 3 + 3, pl.lipschitz(), 1e-12);
    DesignMatrix x = PRE.design(rows(1));
    double[] y = new double[N];
    y[4] = Double.NaN;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> sq.train(x, y, new double[P + 1], 0, () -> 0));
    assertTrue(e.getMessage().contains("target 5"), e.getMessage());
  }
}
