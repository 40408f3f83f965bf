package dev.helmet.core.linalg;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API kernels: 256-bit vectors of 4 doubles (one AVX2 register, half an AVX-512 one;
 * cores that split 512-bit FMAs in two, like AMD Zen 4, reach the same peak either way). The order
 * of arithmetic is {@link Blas}'s and matches {@link ScalarBlas} bit for bit: lane sums are taken
 * lane by lane in a fixed order, never with {@code reduceLanes}, whose order is unspecified.
 *
 * <p>{@link #productNT} is register blocked: a 4 x 4 block of outputs keeps 16 accumulators in
 * registers and loads 8 vectors per 16 FMAs. The update ({@link Blas#accumulateTN}) is in {@link
 * VectorUpdate}.
 */
final class VectorBlas {
  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_256;

  private VectorBlas() {}

  /** Whether the core has 256-bit double vectors (otherwise the plain kernels are faster). */
  static boolean usable() {
    return DoubleVector.SPECIES_PREFERRED.vectorBitSize() >= 256;
  }

  static int bits() {
    return S.vectorBitSize();
  }

  /** Lanes of a vector: the Hadamard kernels need h to be a multiple of it. */
  static final int LANES = 4;

  static void hadamardRadix4(double[] a, int from, int to, int h) {
    for (int i = from; i < to; i += 4 * h) {
      int e = i + h;
      for (int j = i; j < e; j += LANES) {
        DoubleVector a0 = DoubleVector.fromArray(S, a, j);
        DoubleVector a1 = DoubleVector.fromArray(S, a, j + h);
        DoubleVector a2 = DoubleVector.fromArray(S, a, j + 2 * h);
        DoubleVector a3 = DoubleVector.fromArray(S, a, j + 3 * h);
        DoubleVector s01 = a0.add(a1);
        DoubleVector d01 = a0.sub(a1);
        DoubleVector s23 = a2.add(a3);
        DoubleVector d23 = a2.sub(a3);
        s01.add(s23).intoArray(a, j);
        d01.add(d23).intoArray(a, j + h);
        s01.sub(s23).intoArray(a, j + 2 * h);
        d01.sub(d23).intoArray(a, j + 3 * h);
      }
    }
  }

  static void hadamardRadix2(double[] a, int h) {
    for (int j = 0; j < h; j += LANES) {
      DoubleVector u = DoubleVector.fromArray(S, a, j);
      DoubleVector v = DoubleVector.fromArray(S, a, j + h);
      u.add(v).intoArray(a, j);
      u.sub(v).intoArray(a, j + h);
    }
  }

  static double dot(double[] a, int ao, double[] b, int bo, int n) {
    DoubleVector lo = DoubleVector.zero(S);
    DoubleVector hi = DoubleVector.zero(S);
    int body = n - n % 8;
    for (int i = 0; i < body; i += 8) {
      lo = DoubleVector.fromArray(S, a, ao + i).fma(DoubleVector.fromArray(S, b, bo + i), lo);
      hi = DoubleVector.fromArray(S, a, ao + i + 4).fma(DoubleVector.fromArray(S, b, bo + i + 4), hi);
    }
    double tail = 0;
    for (int i = body; i < n; i++) {
      tail = Math.fma(a[ao + i], b[bo + i], tail);
    }
    DoubleVector s = lo.add(hi);
    return ((s.lane(0) + s.lane(1)) + (s.lane(2) + s.lane(3))) + tail;
  }

  static void axpy(double alpha, double[] x, int xo, double[] y, int yo, int n) {
    DoubleVector al = DoubleVector.broadcast(S, alpha);
    int body = n - n % 4;
    for (int i = 0; i < body; i += 4) {
      DoubleVector.fromArray(S, x, xo + i).fma(al, DoubleVector.fromArray(S, y, yo + i)).intoArray(y, yo + i);
    }
    for (int i = body; i < n; i++) {
      y[yo + i] = Math.fma(alpha, x[xo + i], y[yo + i]);
    }
  }

  private static double sum(DoubleVector v, double tail) {
    return ((v.lane(0) + v.lane(1)) + (v.lane(2) + v.lane(3))) + tail;
  }

  private static double tail(double[] a, int ao, double[] b, int bo, int from, int n) {
    double t = 0;
    for (int i = from; i < n; i++) {
      t = Math.fma(a[ao + i], b[bo + i], t);
    }
    return t;
  }

  static void productNT(double[] a, int[] aRow, int m, double[] b, int bOff, int kk, int n, double[] out,
      int ldo) {
    int j = 0;
    for (; j + 3 < m; j += 4) {
      int k = 0;
      for (; k + 3 < kk; k += 4) {
        block4x4(a, aRow[j], aRow[j + 1], aRow[j + 2], aRow[j + 3], b, bOff + k * n, n, out, j * ldo + k, ldo);
      }
      for (; k < kk; k++) {
        block4x1(a, aRow[j], aRow[j + 1], aRow[j + 2], aRow[j + 3], b, bOff + k * n, n, out, j * ldo + k, ldo);
      }
    }
    if (j + 1 < m) {
      // Two rows left (a batch of 6, or 10): 2 x 4 blocks rather than 1 x 4 twice.
      int k = 0;
      for (; k + 3 < kk; k += 4) {
        block2x4(a, aRow[j], aRow[j + 1], b, bOff + k * n, n, out, j * ldo + k, ldo);
      }
      for (; k < kk; k++) {
        out[j * ldo + k] = dot4(a, aRow[j], b, bOff + k * n, n);
        out[(j + 1) * ldo + k] = dot4(a, aRow[j + 1], b, bOff + k * n, n);
      }
      j += 2;
    }
    for (; j < m; j++) {
      int k = 0;
      for (; k + 3 < kk; k += 4) {
        block1x4(a, aRow[j], b, bOff + k * n, n, out, j * ldo + k);
      }
      for (; k < kk; k++) {
        out[j * ldo + k] = dot4(a, aRow[j], b, bOff + k * n, n);
      }
    }
  }

  private static void block4x4(double[] a, int a0, int a1, int a2, int a3, double[] b, int b0, int n,
      double[] out, int o, int ldo) {
    int b1 = b0 + n;
    int b2 = b1 + n;
    int b3 = b2 + n;
    DoubleVector c00 = DoubleVector.zero(S);
    DoubleVector c01 = c00;
    DoubleVector c02 = c00;
    DoubleVector c03 = c00;
    DoubleVector c10 = c00;
    DoubleVector c11 = c00;
    DoubleVector c12 = c00;
    DoubleVector c13 = c00;
    DoubleVector c20 = c00;
    DoubleVector c21 = c00;
    DoubleVector c22 = c00;
    DoubleVector c23 = c00;
    DoubleVector c30 = c00;
    DoubleVector c31 = c00;
    DoubleVector c32 = c00;
    DoubleVector c33 = c00;
    int body = n - n % 4;
    for (int i = 0; i < body; i += 4) {
      DoubleVector y0 = DoubleVector.fromArray(S, b, b0 + i);
      DoubleVector y1 = DoubleVector.fromArray(S, b, b1 + i);
      DoubleVector y2 = DoubleVector.fromArray(S, b, b2 + i);
      DoubleVector y3 = DoubleVector.fromArray(S, b, b3 + i);
      DoubleVector x = DoubleVector.fromArray(S, a, a0 + i);
      c00 = x.fma(y0, c00);
      c01 = x.fma(y1, c01);
      c02 = x.fma(y2, c02);
      c03 = x.fma(y3, c03);
      x = DoubleVector.fromArray(S, a, a1 + i);
      c10 = x.fma(y0, c10);
      c11 = x.fma(y1, c11);
      c12 = x.fma(y2, c12);
      c13 = x.fma(y3, c13);
      x = DoubleVector.fromArray(S, a, a2 + i);
      c20 = x.fma(y0, c20);
      c21 = x.fma(y1, c21);
      c22 = x.fma(y2, c22);
      c23 = x.fma(y3, c23);
      x = DoubleVector.fromArray(S, a, a3 + i);
      c30 = x.fma(y0, c30);
      c31 = x.fma(y1, c31);
      c32 = x.fma(y2, c32);
      c33 = x.fma(y3, c33);
    }
    out[o] = sum(c00, tail(a, a0, b, b0, body, n));
    out[o + 1] = sum(c01, tail(a, a0, b, b1, body, n));
    out[o + 2] = sum(c02, tail(a, a0, b, b2, body, n));
    out[o + 3] = sum(c03, tail(a, a0, b, b3, body, n));
    o += ldo;
    out[o] = sum(c10, tail(a, a1, b, b0, body, n));
    out[o + 1] = sum(c11, tail(a, a1, b, b1, body, n));
    out[o + 2] = sum(c12, tail(a, a1, b, b2, body, n));
    out[o + 3] = sum(c13, tail(a, a1, b, b3, body, n));
    o += ldo;
    out[o] = sum(c20, tail(a, a2, b, b0, body, n));
    out[o + 1] = sum(c21, tail(a, a2, b, b1, body, n));
    out[o + 2] = sum(c22, tail(a, a2, b, b2, body, n));
    out[o + 3] = sum(c23, tail(a, a2, b, b3, body, n));
    o += ldo;
    out[o] = sum(c30, tail(a, a3, b, b0, body, n));
    out[o + 1] = sum(c31, tail(a, a3, b, b1, body, n));
    out[o + 2] = sum(c32, tail(a, a3, b, b2, body, n));
    out[o + 3] = sum(c33, tail(a, a3, b, b3, body, n));
  }

  /** Four rows of a against one row of b. */
  private static void block4x1(double[] a, int a0, int a1, int a2, int a3, double[] b, int b0, int n,
      double[] out, int o, int ldo) {
    DoubleVector c0 = DoubleVector.zero(S);
    DoubleVector c1 = c0;
    DoubleVector c2 = c0;
    DoubleVector c3 = c0;
    int body = n - n % 4;
    for (int i = 0; i < body; i += 4) {
      DoubleVector y = DoubleVector.fromArray(S, b, b0 + i);
      c0 = DoubleVector.fromArray(S, a, a0 + i).fma(y, c0);
      c1 = DoubleVector.fromArray(S, a, a1 + i).fma(y, c1);
      c2 = DoubleVector.fromArray(S, a, a2 + i).fma(y, c2);
      c3 = DoubleVector.fromArray(S, a, a3 + i).fma(y, c3);
    }
    out[o] = sum(c0, tail(a, a0, b, b0, body, n));
    out[o + ldo] = sum(c1, tail(a, a1, b, b0, body, n));
    out[o + 2 * ldo] = sum(c2, tail(a, a2, b, b0, body, n));
    out[o + 3 * ldo] = sum(c3, tail(a, a3, b, b0, body, n));
  }

  /** One output in {@link Blas#productNT}'s order. */
  private static double dot4(double[] a, int a0, double[] b, int b0, int n) {
    DoubleVector c = DoubleVector.zero(S);
    int body = n - n % 4;
    for (int i = 0; i < body; i += 4) {
      c = DoubleVector.fromArray(S, a, a0 + i).fma(DoubleVector.fromArray(S, b, b0 + i), c);
    }
    return sum(c, tail(a, a0, b, b0, body, n));
  }

  private static void block2x4(double[] a, int a0, int a1, double[] b, int b0, int n, double[] out, int o,
      int ldo) {
    int b1 = b0 + n;
    int b2 = b1 + n;
    int b3 = b2 + n;
    DoubleVector c00 = DoubleVector.zero(S);
    DoubleVector c01 = c00;
    DoubleVector c02 = c00;
    DoubleVector c03 = c00;
    DoubleVector c10 = c00;
    DoubleVector c11 = c00;
    DoubleVector c12 = c00;
    DoubleVector c13 = c00;
    int body = n - n % 4;
    for (int i = 0; i < body; i += 4) {
      DoubleVector y0 = DoubleVector.fromArray(S, b, b0 + i);
      DoubleVector y1 = DoubleVector.fromArray(S, b, b1 + i);
      DoubleVector y2 = DoubleVector.fromArray(S, b, b2 + i);
      DoubleVector y3 = DoubleVector.fromArray(S, b, b3 + i);
      DoubleVector x = DoubleVector.fromArray(S, a, a0 + i);
      c00 = x.fma(y0, c00);
      c01 = x.fma(y1, c01);
      c02 = x.fma(y2, c02);
      c03 = x.fma(y3, c03);
      x = DoubleVector.fromArray(S, a, a1 + i);
      c10 = x.fma(y0, c10);
      c11 = x.fma(y1, c11);
      c12 = x.fma(y2, c12);
      c13 = x.fma(y3, c13);
    }
    out[o] = sum(c00, tail(a, a0, b, b0, body, n));
    out[o + 1] = sum(c01, tail(a, a0, b, b1, body, n));
    out[o + 2] = sum(c02, tail(a, a0, b, b2, body, n));
    out[o + 3] = sum(c03, tail(a, a0, b, b3, body, n));
    o += ldo;
    out[o] = sum(c10, tail(a, a1, b, b0, body, n));
    out[o + 1] = sum(c11, tail(a, a1, b, b1, body, n));
    out[o + 2] = sum(c12, tail(a, a1, b, b2, body, n));
    out[o + 3] = sum(c13, tail(a, a1, b, b3, body, n));
  }

  private static void block1x4(double[] a, int a0, double[] b, int b0, int n, double[] out, int o) {
    int b1 = b0 + n;
    int b2 = b1 + n;
    int b3 = b2 + n;
    DoubleVector c0 = DoubleVector.zero(S);
    DoubleVector c1 = c0;
    DoubleVector c2 = c0;
    DoubleVector c3 = c0;
    int body = n - n % 4;
    for (int i = 0; i < body; i += 4) {
      DoubleVector x = DoubleVector.fromArray(S, a, a0 + i);
      c0 = x.fma(DoubleVector.fromArray(S, b, b0 + i), c0);
      c1 = x.fma(DoubleVector.fromArray(S, b, b1 + i), c1);
      c2 = x.fma(DoubleVector.fromArray(S, b, b2 + i), c2);
      c3 = x.fma(DoubleVector.fromArray(S, b, b3 + i), c3);
    }
    out[o] = sum(c0, tail(a, a0, b, b0, body, n));
    out[o + 1] = sum(c1, tail(a, a0, b, b1, body, n));
    out[o + 2] = sum(c2, tail(a, a0, b, b2, body, n));
    out[o + 3] = sum(c3, tail(a, a0, b, b3, body, n));
  }
}
