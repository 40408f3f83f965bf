package dev.helmet.core.learn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.testdata.TestData;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class NoisyGradientDescentTest {
  private static final Preprocessing PRE = new Preprocessing(1, true); // rows of norm 1, c' = sqrt(2)

  private static Dataset data(NoisyGradientDescent.Loss loss) {
    return loss == NoisyGradientDescent.Loss.LOGISTIC ? TestData.breastCancer() : TestData.digits();
  }

  private static NoisyGradientDescent gd(NoisyGradientDescent.Loss loss, Dataset d, int steps) {
    return new NoisyGradientDescent(loss, PRE.inputNormBound(), d.dimension(), d.numClasses(), steps, 0);
  }

  @ParameterizedTest
  @EnumSource(NoisyGradientDescent.Loss.class)
  void theGradientIsTheDerivativeOfTheMeanLoss(NoisyGradientDescent.Loss loss) {
    Dataset d = data(loss);
    DesignMatrix x = PRE.design(d);
    NoisyGradientDescent g = gd(loss, d, 1);
    double[] theta = g.start(3);
    double[] grad = new double[theta.length];
    g.meanGradient(x, theta, grad);
    double h = 1e-6;
    for (int i = 0; i < theta.length; i += Math.max(1, theta.length / 17)) {
      double[] up = theta.clone();
      double[] down = theta.clone();
      up[i] += h;
      down[i] -= h;
      double numeric = (g.meanLoss(x, up) - g.meanLoss(x, down)) / (2 * h);
      assertEquals(numeric, grad[i], 1e-6, loss + " coordinate " + i);
    }
  }

  /**
   * The privacy argument: replacing one of n records moves the mean gradient by at most 2G/n, at
   * any model. Random neighbours and random (also large) models; the largest ratio must stay <= 1.
   */
  @ParameterizedTest
  @EnumSource(NoisyGradientDescent.Loss.class)
  void replacingOneRecordMovesTheMeanGradientByAtMostTwoGOverN(NoisyGradientDescent.Loss loss) {
    Dataset d = data(loss);
    SplittableRandom r = new SplittableRandom(11);
    NoisyGradientDescent g = gd(loss, d, 1);
    double worst = 0;
    for (int trial = 0; trial < 300; trial++) {
      int n = 20 + r.nextInt(40);
      int[] rows = new int[n];
      for (int i = 0; i < n; i++) {
        rows[i] = r.nextInt(d.size());
      }
      int[] other = rows.clone();
      other[r.nextInt(n)] = r.nextInt(d.size());
      double[] theta = g.start(trial);
      double scale = Math.pow(10, r.nextInt(4)); // saturated losses too
      for (int i = 0; i < theta.length; i++) {
        theta[i] *= scale;
      }
      double[] a = new double[theta.length];
      double[] b = new double[theta.length];
      g.meanGradient(PRE.design(d, rows), theta, a);
      g.meanGradient(PRE.design(d, other), theta, b);
      double dist = 0;
      for (int i = 0; i < a.length; i++) {
        dist += (a[i] - b[i]) * (a[i] - b[i]);
      }
      worst = Math.max(worst, Math.sqrt(dist) / g.sensitivity(n));
    }
    System.out.printf("noisy GD %s: largest ||grad_D - grad_D'|| / (2G/n) over 300 trials = %.4f%n", loss, worst);
    assertTrue(worst <= 1 + 1e-12, loss + ": " + worst);
    assertTrue(worst > 0.2, "the bound is exercised, not vacuous: " + worst);
  }

  /** With eta = 1/beta and no noise, every step of gradient descent on a beta-smooth loss decreases it. */
  @ParameterizedTest
  @EnumSource(NoisyGradientDescent.Loss.class)
  void noiselessStepsOfOneOverBetaNeverIncreaseTheLoss(NoisyGradientDescent.Loss loss) {
    Dataset d = data(loss);
    DesignMatrix x = PRE.design(d);
    NoisyGradientDescent one = gd(loss, d, 1);
    double[] theta = one.start(5);
    double previous = one.meanLoss(x, theta);
    for (int t = 0; t < 30; t++) {
      theta = one.train(x, theta, 0, () -> Double.NaN).weights();
      double now = one.meanLoss(x, theta);
      assertTrue(now <= previous + 1e-12, loss + " step " + t + ": " + previous + " -> " + now);
      previous = now;
    }
  }

  @ParameterizedTest
  @EnumSource(NoisyGradientDescent.Loss.class)
  void noiselessTrainingLearnsRealData(NoisyGradientDescent.Loss loss) {
    Dataset d = data(loss);
    DesignMatrix x = PRE.design(d);
    NoisyGradientDescent g = gd(loss, d, 2000);
    LinearModel m = g.train(x, g.start(1), 0, () -> Double.NaN);
    double acc = Evaluation.of(x.labels(), m.predict(x), d.numClasses()).accuracy();
    // Linear models reach about 95 % on both (scikit-learn's breast cancer and digits, training accuracy).
    assertTrue(acc > 0.88, loss + " accuracy " + acc);
  }

  @Test
  void noiseIsAddedPerCoordinateAndStepWithTheGivenStd() {
    Dataset d = TestData.breastCancer();
    DesignMatrix x = PRE.design(d);
    NoisyGradientDescent g = gd(NoisyGradientDescent.Loss.LOGISTIC, d, 1);
    double[] start = g.start(2);
    double[] clean = g.train(x, start, 0, () -> Double.NaN).weights();
    int[] calls = {0};
    double[] noisy = g.train(x, start, 0.5, () -> {
      calls[0]++;
      return 1;
    }).weights();
    assertEquals(start.length, calls[0], "one draw per coordinate and step");
    for (int i = 0; i < clean.length; i++) {
      assertEquals(clean[i] - g.stepSize() * 0.5, noisy[i], 1e-12);
    }
  }

  @Test
  void theStartDependsOnThePublicSeedOnly() {
    Dataset d = TestData.wine();
    NoisyGradientDescent g = gd(NoisyGradientDescent.Loss.SOFTMAX, d, 1);
    assertArrayEquals(g.start(7), g.start(7));
    assertFalse(Arrays.equals(g.start(7), g.start(8)));
    assertEquals(1 / g.smoothness(), g.stepSize());
    assertEquals(Math.sqrt(2) * PRE.inputNormBound(), g.lipschitz(), 1e-15);
  }

  @Test
  void theLogisticLossTakesTwoClassesOnly() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new NoisyGradientDescent(NoisyGradientDescent.Loss.LOGISTIC, 1, 4, 3, 10, 0));
    assertTrue(e.getMessage().contains("softmax"), e.getMessage());
  }
}
