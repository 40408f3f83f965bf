package dev.helmet.core.linalg;

/**
 * The plain-Java kernels: the reference order of arithmetic of {@link Blas}, which
 * {@link VectorBlas} reproduces bit for bit ({@code Math.fma} is one rounding, as a vector FMA).
 */
final class ScalarBlas {
  private ScalarBlas() {}

  static double dot(double[] a, int ao, double[] b, int bo, int n) {
    double[] l = new double[8];
    int body = n - n % 8;
    for (int i = 0; i < body; i += 8) {
      for (int q = 0; q < 8; q++) {
        l[q] = Math.fma(a[ao + i + q], b[bo + i + q], l[q]);
      }
    }
    double tail = 0;
    for (int i = body; i < n; i++) {
      tail = Math.fma(a[ao + i], b[bo + i], tail);
    }
    return (((l[0] + l[4]) + (l[1] + l[5])) + ((l[2] + l[6]) + (l[3] + l[7]))) + tail;
  }

  static void hadamardRadix4(double[] a, int from, int to, int h) {
    for (int i = from; i < to; i += 4 * h) {
      int e = i + h;
      for (int j = i; j < e; j++) {
        double a0 = a[j];
        double a1 = a[j + h];
        double a2 = a[j + 2 * h];
        double a3 = a[j + 3 * h];
        double s01 = a0 + a1;
        double d01 = a0 - a1;
        double s23 = a2 + a3;
        double d23 = a2 - a3;
        a[j] = s01 + s23;
        a[j + h] = d01 + d23;
        a[j + 2 * h] = s01 - s23;
        a[j + 3 * h] = d01 - d23;
      }
    }
  }

  static void hadamardRadix2(double[] a, int h) {
    for (int j = 0; j < h; j++) {
      double u = a[j];
      double v = a[j + h];
      a[j] = u + v;
      a[j + h] = u - v;
    }
  }

  static void axpy(double alpha, double[] x, int xo, double[] y, int yo, int n) {
    for (int i = 0; i < n; i++) {
      y[yo + i] = Math.fma(alpha, x[xo + i], y[yo + i]);
    }
  }

  /** One output of {@link Blas#productNT}: 4 lanes, {@code (l0+l1) + (l2+l3)}, then the tail. */
  static double dot4(double[] a, int ao, double[] b, int bo, int n) {
    double l0 = 0;
    double l1 = 0;
    double l2 = 0;
    double l3 = 0;
    int body = n - n % 4;
    for (int i = 0; i < body; i += 4) {
      l0 = Math.fma(a[ao + i], b[bo + i], l0);
      l1 = Math.fma(a[ao + i + 1], b[bo + i + 1], l1);
      l2 = Math.fma(a[ao + i + 2], b[bo + i + 2], l2);
      l3 = Math.fma(a[ao + i + 3], b[bo + i + 3], l3);
    }
    double tail = 0;
    for (int i = body; i < n; i++) {
      tail = Math.fma(a[ao + i], b[bo + i], tail);
    }
    return ((l0 + l1) + (l2 + l3)) + tail;
  }

  static void productNT(double[] a, int[] aRow, int m, double[] b, int bOff, int kk, int n, double[] out,
      int ldo) {
    for (int j = 0; j < m; j++) {
      for (int k = 0; k < kk; k++) {
        out[j * ldo + k] = dot4(a, aRow[j], b, bOff + k * n, n);
      }
    }
  }

  static void accumulateTN(double[] c, int ldc, double[] a, int[] aRow, int m, double[] b, int bOff, int kk,
      int n) {
    for (int k = 0; k < kk; k++) {
      int bo = bOff + k * n;
      for (int j = 0; j < m; j++) {
        double cj = c[j * ldc + k];
        int ao = aRow[j];
        for (int i = 0; i < n; i++) {
          b[bo + i] = Math.fma(cj, a[ao + i], b[bo + i]);
        }
      }
    }
  }
}
