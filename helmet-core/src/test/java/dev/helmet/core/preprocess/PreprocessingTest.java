package dev.helmet.core.preprocess;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.testdata.TestData;
import org.junit.jupiter.api.Test;

class PreprocessingTest {
  private static double norm(double[] x, int from, int to) {
    double s = 0;
    for (int i = from; i < to; i++) {
      s += x[i] * x[i];
    }
    return Math.sqrt(s);
  }

  @Test
  void clippingBoundsEveryRowByCAndPrependsTheIntercept() {
    Dataset d = TestData.wine(); // raw features with norms in the hundreds
    Preprocessing p = new Preprocessing(3, false);
    double[] x = new double[d.dimension() + 1];
    for (int i = 0; i < d.size(); i++) {
      p.apply(d, i, x, 0);
      assertEquals(1.0, x[0]);
      assertTrue(norm(x, 1, x.length) <= 3, "row " + i);
      assertTrue(norm(x, 0, x.length) <= p.inputNormBound());
    }
    assertEquals(Math.sqrt(10), p.inputNormBound(), 1e-15);
  }

  @Test
  void clippingLeavesShortRowsAlone() {
    Dataset d = new Dataset("s", new float[] {0.3f, 0.4f}, new int[] {0}, 2, LabelSet.ofIntegers(1), null);
    double[] x = new double[3];
    new Preprocessing(1, false).apply(d, 0, x, 0);
    assertEquals(0.3, x[1], 1e-7);
    assertEquals(0.4, x[2], 1e-7);
  }

  @Test
  void normalisingScalesEveryNonZeroRowToExactlyC() {
    Dataset d = new Dataset("s", new float[] {0.3f, 0.4f, 0, 0, 30, 40}, new int[] {0, 0, 0}, 2,
        LabelSet.ofIntegers(1), null);
    Preprocessing p = new Preprocessing(10, true);
    double[] x = new double[3];
    p.apply(d, 0, x, 0);
    assertEquals(10, norm(x, 1, 3), 1e-9);
    p.apply(d, 1, x, 0);
    assertEquals(0, norm(x, 1, 3)); // a zero row stays zero
    p.apply(d, 2, x, 0);
    assertTrue(norm(x, 1, 3) <= 10);
  }

  @Test
  void denseAndSparseDesignMatricesAgree() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(3);
    float[] f = new float[10 * 64];
    for (int i = 0; i < f.length; i++) {
      f[i] = r.nextInt(20) == 0 ? (float) r.nextGaussian() : 0f; // 95 % zeros: the sparse form
    }
    Dataset d = new Dataset("sparse", f, new int[10], 64, LabelSet.ofIntegers(1), null);
    Preprocessing p = new Preprocessing(5, false);
    int[] rows = {0, 5, 7, 9};
    DesignMatrix s = p.design(d, rows);
    DesignMatrix dense = p.design(d, rows, false);
    assertTrue(s.isSparse());
    assertTrue(!dense.isSparse());
    double[] w = new double[65];
    for (int j = 0; j < w.length; j++) {
      w[j] = Math.sin(j);
    }
    for (int i = 0; i < rows.length; i++) {
      assertEquals(dense.dot(i, w, 0), s.dot(i, w, 0), 1e-12);
      double[] a = new double[65];
      double[] b = new double[65];
      dense.axpy(i, 0.5, a, 0);
      s.axpy(i, 0.5, b, 0);
      org.junit.jupiter.api.Assertions.assertArrayEquals(a, b, 1e-15);
    }
    // The batched forms (scores of a batch against 3 model rows, and the update they drive).
    double[] w3 = new double[3 * 65];
    for (int j = 0; j < w3.length; j++) {
      w3[j] = Math.cos(j);
    }
    int[] batch = {3, 1, 2};
    double[] ds = new double[9];
    double[] ss = new double[9];
    dense.scores(batch, 0, 3, w3, 3, ds);
    s.scores(batch, 0, 3, w3, 3, ss);
    org.junit.jupiter.api.Assertions.assertArrayEquals(ds, ss, 1e-12);
    assertEquals(dense.dot(1, w3, 65), ds[1 * 3 + 1], 1e-12);
    double[] da = w3.clone();
    double[] sa = w3.clone();
    dense.accumulate(batch, 1, 2, ds, 3, da);
    s.accumulate(batch, 1, 2, ds, 3, sa);
    org.junit.jupiter.api.Assertions.assertArrayEquals(da, sa, 1e-12);
    double[] byHand = w3.clone();
    for (int q = 0; q < 3; q++) {
      dense.axpy(batch[1], ds[q], byHand, q * 65);
      dense.axpy(batch[2], ds[3 + q], byHand, q * 65);
    }
    org.junit.jupiter.api.Assertions.assertArrayEquals(byHand, da, 1e-12);
  }

  /**
   * Dense from 12 % non-zeros (the vector kernels beat the sparse loop there), unless the dense form
   * would take more than a quarter of the heap: then sparse below half non-zeros. MNIST's pooled
   * training set (60,000 x 785, 19 % non-zeros) is dense under a 16 GB heap and sparse under 400 MB;
   * one party's 60 rows are dense under either.
   */
  @Test
  void denseOrSparseByDensityAndHeap() {
    long mnistNnz = (long) (0.19 * 60_000 * 785);
    assertTrue(!DesignMatrix.sparse(mnistNnz, 60_000, 785, 16L << 30));
    assertTrue(DesignMatrix.sparse(mnistNnz, 60_000, 785, 400L << 20));
    assertTrue(!DesignMatrix.sparse((long) (0.19 * 60 * 785), 60, 785, 400L << 20));
    assertTrue(DesignMatrix.sparse((long) (0.11 * 60 * 785), 60, 785, 16L << 30));
    assertTrue(!DesignMatrix.sparse((long) (0.6 * 60_000 * 785), 60_000, 785, 400L << 20));
  }

  @Test
  void aNonPositiveClipBoundIsRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Preprocessing(0, false));
    assertTrue(e.getMessage().contains("clip bound c must be > 0"), e.getMessage());
  }
}
