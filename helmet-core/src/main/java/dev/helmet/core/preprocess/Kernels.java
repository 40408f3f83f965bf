package dev.helmet.core.preprocess;

import dev.helmet.core.linalg.Blas;

/** Dense vector kernels of the training loop: the {@link Blas} kernels under their older names. */
public final class Kernels {
  private Kernels() {}

  /** {@code a[ao..ao+n) . b[bo..bo+n)}, in {@link Blas#dot}'s order. */
  public static double dot(double[] a, int ao, double[] b, int bo, int n) {
    return Blas.dot(a, ao, b, bo, n);
  }

  /** {@code y[yo..yo+n) += alpha * x[xo..xo+n)}. */
  public static void axpy(double alpha, double[] x, int xo, double[] y, int yo, int n) {
    Blas.axpy(alpha, x, xo, y, yo, n);
  }

  /** {@code y[yo..yo+n) *= alpha}. */
  public static void scale(double alpha, double[] y, int yo, int n) {
    Blas.scale(alpha, y, yo, n);
  }
}
