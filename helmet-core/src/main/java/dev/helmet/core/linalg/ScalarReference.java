package dev.helmet.core.linalg;

/**
 * The plain-Java kernels by name, for benchmarks that time them next to {@link Blas} in the same
 * run (they give the same bits; only the speed differs).
 */
public final class ScalarReference {
  private ScalarReference() {}

  /** {@link Blas#productNT} in plain Java. */
  public static void productNT(double[] a, int[] aRow, int m, double[] b, int bOff, int kk, int n, double[] out,
      int ldo) {
    ScalarBlas.productNT(a, aRow, m, b, bOff, kk, n, out, ldo);
  }

  /** {@link Blas#accumulateTN} in plain Java. */
  public static void accumulateTN(double[] c, int ldc, double[] a, int[] aRow, int m, double[] b, int bOff, int kk,
      int n) {
    ScalarBlas.accumulateTN(c, ldc, a, aRow, m, b, bOff, kk, n);
  }
}
