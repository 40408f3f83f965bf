package dev.helmet.core.linalg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The Vector API kernels give the plain-Java kernels' results bit for bit (the order of arithmetic
 * {@link Blas} documents), for every shape edge: lengths around the vector and unroll widths,
 * batches and output rows that are not multiples of the 4 x 4 register block, rows at arbitrary
 * offsets. Both are also checked against exact (BigDecimal) sums.
 */
class BlasTest {
  private static double[] random(SplittableRandom r, int n) {
    double[] a = new double[n];
    for (int i = 0; i < n; i++) {
      a[i] = r.nextDouble(-1, 1) * (r.nextInt(4) == 0 ? 1e3 : 1);
    }
    return a;
  }

  private static double exactDot(double[] a, int ao, double[] b, int bo, int n) {
    BigDecimal s = BigDecimal.ZERO;
    for (int i = 0; i < n; i++) {
      s = s.add(new BigDecimal(a[ao + i]).multiply(new BigDecimal(b[bo + i])));
    }
    return s.round(MathContext.DECIMAL128).doubleValue();
  }

  private static double absDot(double[] a, int ao, double[] b, int bo, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
      s += Math.abs(a[ao + i] * b[bo + i]);
    }
    return s;
  }

  @Test
  void theVectorApiIsInUseUnderTheTestRunner() {
    // surefire passes --add-modules jdk.incubator.vector, as the launcher does; without it every
    // comparison below would compare the plain kernels with themselves.
    assertTrue(Blas.vectorised(), Blas.implementation());
  }

  @Test
  void dotAndAxpyMatchThePlainKernelsBitForBit() {
    SplittableRandom r = new SplittableRandom(1);
    for (int n = 0; n <= 70; n++) {
      double[] a = random(r, n + 5);
      double[] b = random(r, n + 3);
      double v = VectorBlas.dot(a, 5, b, 3, n);
      assertEquals(Double.doubleToRawLongBits(ScalarBlas.dot(a, 5, b, 3, n)), Double.doubleToRawLongBits(v), "n=" + n);
      assertEquals(exactDot(a, 5, b, 3, n), v, 1e-14 * (1 + absDot(a, 5, b, 3, n)), "n=" + n);
      double[] y1 = random(r, n + 2);
      double[] y2 = y1.clone();
      VectorBlas.axpy(0.37, a, 5, y1, 2, n);
      ScalarBlas.axpy(0.37, a, 5, y2, 2, n);
      assertArrayEquals(y2, y1);
    }
  }

  @Test
  void hadamardButterfliesMatchThePlainKernelsBitForBit() {
    SplittableRandom r = new SplittableRandom(4);
    for (int log = 2; log <= 12; log++) {
      int n = 1 << log;
      for (int h = VectorBlas.LANES; 4 * h <= n; h *= 4) {
        double[] v = random(r, n);
        double[] s = v.clone();
        VectorBlas.hadamardRadix4(v, 0, n, h);
        ScalarBlas.hadamardRadix4(s, 0, n, h);
        assertArrayEquals(s, v, "n=" + n + " h=" + h);
      }
      if (n / 2 >= VectorBlas.LANES) {
        double[] v = random(r, n);
        double[] s = v.clone();
        VectorBlas.hadamardRadix2(v, n / 2);
        ScalarBlas.hadamardRadix2(s, n / 2);
        assertArrayEquals(s, v, "n=" + n);
      }
    }
    // on a range: block by block gives the whole-array pass; values outside the range are untouched
    for (int h : new int[] {1, 4, 16}) {
      double[] whole = random(r, 1024);
      double[] blocks = whole.clone();
      Blas.hadamardRadix4(whole, h);
      for (int i = 0; i < 1024; i += 256) {
        double[] before = blocks.clone();
        Blas.hadamardRadix4(blocks, i, i + 256, h);
        for (int j = 0; j < 1024; j++) {
          if (j < i || j >= i + 256) {
            assertEquals(before[j], blocks[j]);
          }
        }
      }
      assertArrayEquals(whole, blocks, "h=" + h);
    }
    assertThrows(IllegalArgumentException.class, () -> Blas.hadamardRadix4(new double[64], 4, 36, 2));
    assertThrows(IllegalArgumentException.class, () -> Blas.hadamardRadix4(new double[64], 0, 72, 2));
    // the radix-4 pass is two radix-2 levels: a small case against its definition
    double[] a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    ScalarBlas.hadamardRadix4(a, 0, 16, 4);
    for (int j = 0; j < 4; j++) {
      double a0 = j + 1;
      double a1 = j + 5;
      double a2 = j + 9;
      double a3 = j + 13;
      assertEquals(a0 + a1 + a2 + a3, a[j]);
      assertEquals(a0 - a1 + a2 - a3, a[j + 4]);
      assertEquals(a0 + a1 - a2 - a3, a[j + 8]);
      assertEquals(a0 - a1 - a2 + a3, a[j + 12]);
    }
  }

  @Test
  void productNtMatchesThePlainKernelsBitForBit() {
    SplittableRandom r = new SplittableRandom(2);
    for (int m = 1; m <= 9; m++) {
      for (int kk = 1; kk <= 9; kk++) {
        for (int n : new int[] {1, 3, 4, 7, 8, 9, 31, 65, 785}) {
          double[] a = random(r, 12 * n + 7);
          int[] rows = new int[m];
          for (int j = 0; j < m; j++) {
            rows[j] = r.nextInt(12) * n + (j % 3);
          }
          double[] b = random(r, kk * n + 2);
          double[] v = new double[m * (kk + 1)];
          double[] s = new double[m * (kk + 1)];
          VectorBlas.productNT(a, rows, m, b, 2, kk, n, v, kk + 1);
          ScalarBlas.productNT(a, rows, m, b, 2, kk, n, s, kk + 1);
          assertArrayEquals(s, v, "m=" + m + " k=" + kk + " n=" + n);
          for (int j = 0; j < m; j++) {
            for (int k = 0; k < kk; k++) {
              double tol = 1e-14 * (1 + absDot(a, rows[j], b, 2 + k * n, n));
              assertEquals(exactDot(a, rows[j], b, 2 + k * n, n), v[j * (kk + 1) + k], tol);
            }
          }
        }
      }
    }
  }

  @Test
  void accumulateTnMatchesThePlainKernelsBitForBit() {
    SplittableRandom r = new SplittableRandom(3);
    for (int m = 1; m <= 9; m++) {
      for (int kk = 1; kk <= 9; kk++) {
        for (int n : new int[] {1, 5, 8, 9, 17, 785}) {
          double[] a = random(r, 10 * n + 1);
          int[] rows = new int[m];
          for (int j = 0; j < m; j++) {
            rows[j] = r.nextInt(10) * n + (j % 2);
          }
          double[] c = random(r, m * (kk + 2));
          double[] v = random(r, kk * n + 5);
          double[] s = v.clone();
          double[] before = v.clone();
          VectorUpdate.accumulateTN(c, kk + 2, a, rows, m, v, 3, kk, n);
          ScalarBlas.accumulateTN(c, kk + 2, a, rows, m, s, 3, kk, n);
          assertArrayEquals(s, v, "m=" + m + " k=" + kk + " n=" + n);
          for (int k = 0; k < kk; k++) {
            for (int i = 0; i < n; i += Math.max(1, n / 7)) {
              double want = before[3 + k * n + i];
              double scale = Math.abs(want);
              for (int j = 0; j < m; j++) {
                want += c[j * (kk + 2) + k] * a[rows[j] + i];
                scale += Math.abs(c[j * (kk + 2) + k] * a[rows[j] + i]);
              }
              assertEquals(want, v[3 + k * n + i], 1e-13 * (1 + scale));
            }
          }
          // Nothing outside the kk output rows is written.
          assertEquals(before[2], v[2]);
          assertEquals(before[kk * n + 3], v[kk * n + 3]);
        }
      }
    }
  }

  @Test
  void outerNormsAreTheNormsOfThePerExampleProducts() {
    SplittableRandom r = new SplittableRandom(4);
    int m = 5;
    int kk = 3;
    int n = 11;
    double[] d = random(r, m * kk);
    double[] x = random(r, m * n);
    int[] rows = {0, n, 2 * n, 3 * n, 4 * n};
    double[] out = new double[m];
    Blas.outerNormsSquared(d, kk, kk, x, rows, m, n, out);
    for (int j = 0; j < m; j++) {
      double sq = 0;
      for (int k = 0; k < kk; k++) {
        for (int i = 0; i < n; i++) {
          double g = d[j * kk + k] * x[j * n + i];
          sq += g * g;
        }
      }
      assertEquals(sq, out[j], 1e-12 * sq);
    }
  }
}
