package dev.helmet.core.nn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.preprocess.DesignMatrix;
import org.junit.jupiter.api.Test;

/**
 * The batched forward and backward pass of {@link Mlp} against central finite differences of its
 * own loss and against {@link ReferenceMlp}, a plain per-example implementation, on small networks
 * in FP64; and the three input forms giving the same gradient.
 */
class MlpGradientTest {
  private static final Mlp TINY = new Mlp(4, 5, 3, 3);

  @Test
  void gradientMatchesCentralFiniteDifferencesOfTheMeanLoss() {
    Examples data = MlpTestData.gaussian(1, 6, 4, 3);
    double[] p = MlpTestData.params(TINY, 2);
    int[] all = {0, 1, 2, 3, 4, 5};
    double[] g = new double[TINY.parameterCount()];
    TINY.gradientSum(p, data, all, g);
    // Central differences have error O(h^2 f''') plus rounding O(eps f / h): h = 1e-5 puts both
    // near 1e-10 for a loss of order 1. A ReLU kink within h of a pre-activation would break the
    // check; the assertion below on the margin rules that out for this seed.
    double h = 1e-5;
    int checked = 0;
    for (int i = 0; i < p.length; i++) {
      double saved = p[i];
      p[i] = saved + h;
      double up = TINY.meanLoss(p, data);
      p[i] = saved - h;
      double down = TINY.meanLoss(p, data);
      p[i] = saved;
      double numeric = (up - down) / (2 * h);
      assertEquals(numeric, g[i] / all.length, 1e-8 * (1 + Math.abs(numeric)), "parameter " + i);
      checked++;
    }
    assertEquals(5 * 4 + 5 + 3 * 5 + 3 + 3 * 3 + 3, checked);
    assertTrue(minHiddenMargin(TINY, p, data) > 1e-3, "a hidden pre-activation lies near the ReLU kink");
  }

  /** The smallest |pre-activation| of any hidden unit over the data (via the reference forward). */
  private static double minHiddenMargin(Mlp net, double[] p, Examples data) {
    double min = Double.POSITIVE_INFINITY;
    for (int e = 0; e < data.size(); e++) {
      double[] a = MlpTestData.row(data, e);
      for (int k = 0; k + 1 < net.layers(); k++) {
        double[] next = new double[net.width(k + 1)];
        for (int u = 0; u < next.length; u++) {
          double z = p[net.biasOffset(k) + u];
          for (int i = 0; i < a.length; i++) {
            z += p[net.weightOffset(k) + u * a.length + i] * a[i];
          }
          min = Math.min(min, Math.abs(z));
          next[u] = Math.max(0, z);
        }
        a = next;
      }
    }
    return min;
  }

  @Test
  void lossSumAndGradientSumEqualThePlainPerExampleReference() {
    Mlp net = new Mlp(7, 6, 5, 4, 3);
    Examples data = MlpTestData.gaussian(3, 11, 7, 3);
    double[] p = MlpTestData.params(net, 4);
    int[] batch = {3, 0, 10, 3, 7, 1, 9};
    double[] g = new double[net.parameterCount()];
    double loss = net.gradientSum(p, data, batch, g);
    double[] want = new double[net.parameterCount()];
    double wantLoss = 0;
    for (int i : batch) {
      double[] x = MlpTestData.row(data, i);
      wantLoss += ReferenceMlp.loss(net, p, x, data.label(i));
      double[] gi = ReferenceMlp.gradient(net, p, x, data.label(i));
      for (int q = 0; q < gi.length; q++) {
        want[q] += gi[q];
      }
    }
    assertEquals(wantLoss, loss, 1e-12 * wantLoss);
    for (int q = 0; q < want.length; q++) {
      assertEquals(want[q], g[q], 1e-12 * (1 + Math.abs(want[q])), "parameter " + q);
    }
  }

  @Test
  void gradientSumAddsToWhatOutAlreadyHolds() {
    Examples data = MlpTestData.gaussian(5, 4, 4, 3);
    double[] p = MlpTestData.params(TINY, 6);
    double[] fresh = new double[TINY.parameterCount()];
    TINY.gradientSum(p, data, new int[] {0, 1, 2, 3}, fresh);
    double[] acc = new double[TINY.parameterCount()];
    TINY.gradientSum(p, data, new int[] {0, 1}, acc);
    TINY.gradientSum(p, data, new int[] {2, 3}, acc);
    for (int q = 0; q < acc.length; q++) {
      assertEquals(fresh[q], acc[q], 1e-13 * (1 + Math.abs(fresh[q])), "parameter " + q);
    }
  }

  @Test
  void designMatrixInputsDropTheInterceptAndFloatInputsMatchDoubles() {
    int rows = 5;
    int features = 4;
    Examples doubles = MlpTestData.gaussian(7, rows, features, 3);
    double[] x = new double[rows * features];
    float[] xf = new float[rows * features];
    double[] withIntercept = new double[rows * (features + 1)];
    int[] y = new int[rows];
    for (int i = 0; i < rows; i++) {
      double[] r = MlpTestData.row(doubles, i);
      withIntercept[i * (features + 1)] = 1;
      for (int c = 0; c < features; c++) {
        float v = (float) r[c];
        xf[i * features + c] = v;
        x[i * features + c] = v;
        withIntercept[i * (features + 1) + 1 + c] = v;
      }
      y[i] = doubles.label(i);
    }
    Examples fromDoubles = Examples.dense(x, y, rows, features, 3);
    Examples fromFloats = Examples.dense(xf, y, rows, features, 3);
    Examples fromMatrix = Examples.of(DesignMatrix.dense(withIntercept, y, rows, features + 1, 3));
    assertEquals(features, fromMatrix.features());
    double[] p = MlpTestData.params(TINY, 8);
    int[] batch = {4, 2, 0, 1};
    double[] a = new double[TINY.parameterCount()];
    double[] b = new double[TINY.parameterCount()];
    double[] c = new double[TINY.parameterCount()];
    TINY.clippedGradientSum(p, fromDoubles, batch, 0.5, a);
    TINY.clippedGradientSum(p, fromFloats, batch, 0.5, b);
    TINY.clippedGradientSum(p, fromMatrix, batch, 0.5, c);
    for (int q = 0; q < a.length; q++) {
      assertEquals(a[q], b[q], 0.0, "float inputs, parameter " + q);
      assertEquals(a[q], c[q], 0.0, "design matrix inputs, parameter " + q);
    }
  }
}
