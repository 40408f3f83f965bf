package dev.helmet.core.linalg;

/**
 * The dense kernels every learner uses, in FP64, with one fixed order of arithmetic so a model is
 * the same bit for bit whether the JDK Vector API is available or not and on any x86 or ARM core:
 *
 * <ul>
 *   <li>{@link #dot}: element {@code i < n - n mod 8} goes to lane {@code i mod 8}, each lane an
 *       FMA chain in increasing {@code i}; the lanes are summed as {@code ((l0+l4) + (l1+l5)) +
 *       ((l2+l6) + (l3+l7))}, then the tail ({@code i >= n - n mod 8}, an FMA chain from 0) is
 *       added.
 *   <li>{@link #productNT} (the forward pass: scores of a batch against every model row): each
 *       output is a dot product with 4 lanes ({@code i mod 4}), summed as {@code (l0+l1) +
 *       (l2+l3)}, plus the tail ({@code n mod 4} elements, an FMA chain from 0). Every output uses
 *       this order, whichever register block computes it.
 *   <li>{@link #accumulateTN} (the backward pass and the model update): every element of every
 *       output row is an FMA chain over the batch in increasing order; no lanes interact, so the
 *       vector width cannot change the result.
 * </ul>
 *
 * <p>FP64 throughout: the model, its norm and projection, and the sensitivity bound of the release
 * are stated for exact arithmetic, and FP64 keeps every step's rounding (about 1e-16 relative) far
 * below the 1e-12 slack the learners add to their norm bounds. The data could be FP32 without any
 * effect on the privacy analysis, but the per-party matrices are small (a few MB) and converting
 * would cost more than it saves.
 *
 * <p>The Vector API is an incubator module in Java 17: the launcher, the test runner and the
 * experiment harness add {@code --add-modules jdk.incubator.vector}; without it the same results
 * come from the plain-Java kernels, several times slower ({@link #vectorised()} says which).
 */
public final class Blas {
  private static final boolean VECTOR = vectorAvailable();

  private Blas() {}

  private static boolean vectorAvailable() {
    if (Boolean.getBoolean("helmet.scalarKernels")) {
      return false;
    }
    if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
      return false;
    }
    try {
      return VectorBlas.usable();
    } catch (LinkageError e) {
      return false;
    }
  }

  /** Whether the Vector API kernels are in use (else the plain-Java ones, same results). */
  public static boolean vectorised() {
    return VECTOR;
  }

  /** A description for benchmark reports, e.g. "JDK Vector API, 256-bit". */
  public static String implementation() {
    return VECTOR ? "JDK Vector API, " + VectorBlas.bits() + "-bit" : "plain Java (jdk.incubator.vector not enabled)";
  }

  /** {@code a[ao..ao+n) . b[bo..bo+n)}. */
  public static double dot(double[] a, int ao, double[] b, int bo, int n) {
    return VECTOR ? VectorBlas.dot(a, ao, b, bo, n) : ScalarBlas.dot(a, ao, b, bo, n);
  }

  /** {@code y[yo..yo+n) += alpha * x[xo..xo+n)}, element by element with one FMA each. */
  public static void axpy(double alpha, double[] x, int xo, double[] y, int yo, int n) {
    if (VECTOR) {
      VectorBlas.axpy(alpha, x, xo, y, yo, n);
    } else {
      ScalarBlas.axpy(alpha, x, xo, y, yo, n);
    }
  }

  /** {@code y[yo..yo+n) *= alpha}. */
  public static void scale(double alpha, double[] y, int yo, int n) {
    for (int i = 0; i < n; i++) {
      y[yo + i] *= alpha;
    }
  }

  /**
   * {@code out[j * ldo + k] = a[aRow[j] .. +n) . b[bOff + k * n .. +n)} for {@code j < m},
   * {@code k < kk}: a batch of m rows (at any offsets of {@code a}) against kk contiguous rows of
   * {@code b}.
   */
  public static void productNT(double[] a, int[] aRow, int m, double[] b, int bOff, int kk, int n,
      double[] out, int ldo) {
    if (VECTOR) {
      VectorBlas.productNT(a, aRow, m, b, bOff, kk, n, out, ldo);
    } else {
      ScalarBlas.productNT(a, aRow, m, b, bOff, kk, n, out, ldo);
    }
  }

  /**
   * {@code b[bOff + k * n + i] += sum_j c[j * ldc + k] * a[aRow[j] + i]} for {@code k < kk},
   * {@code i < n}, the sum an FMA chain in increasing j: kk contiguous rows of {@code b} each
   * receive a combination of the same m rows of {@code a} (a gradient step, or backpropagation
   * with {@code c} transposed through {@code ldc}).
   */
  public static void accumulateTN(double[] c, int ldc, double[] a, int[] aRow, int m, double[] b, int bOff,
      int kk, int n) {
    if (VECTOR) {
      VectorUpdate.accumulateTN(c, ldc, a, aRow, m, b, bOff, kk, n);
    } else {
      ScalarBlas.accumulateTN(c, ldc, a, aRow, m, b, bOff, kk, n);
    }
  }

  /**
   * Levels h and 2h of the unnormalised Walsh-Hadamard transform of {@code a} (length a power of
   * two, at least 4h), in place: for every block of 4h values and every j in its first quarter, the
   * four values at j, j + h, j + 2h and j + 3h become {@code (a0 + a1) + (a2 + a3)}, {@code (a0 -
   * a1) + (a2 - a3)}, {@code (a0 + a1) - (a2 + a3)} and {@code (a0 - a1) - (a2 - a3)}. Each output
   * is its own fixed sum, so both paths give the same bits.
   */
  public static void hadamardRadix4(double[] a, int h) {
    hadamardRadix4(a, 0, a.length, h);
  }

  /**
   * {@link #hadamardRadix4(double[], int)} on the blocks of 4h values in {@code a[from..to)} only
   * ({@code from} and {@code to - from} multiples of 4h): a transform can take its low levels one
   * cache-sized block at a time. The same operations on the same values as the whole-array form.
   */
  public static void hadamardRadix4(double[] a, int from, int to, int h) {
    if (h < 1 || from < 0 || to < from || to > a.length || from % (4 * h) != 0 || (to - from) % (4 * h) != 0) {
      throw new IllegalArgumentException("blocks of " + 4 * h + " values: [" + from + ", " + to + ") of "
          + a.length);
    }
    if (VECTOR && h >= VectorBlas.LANES) {
      VectorBlas.hadamardRadix4(a, from, to, h);
    } else {
      ScalarBlas.hadamardRadix4(a, from, to, h);
    }
  }

  /**
   * Level h of the unnormalised Walsh-Hadamard transform of {@code a} (length 2h), in place:
   * {@code a[j], a[j + h]} become {@code a[j] + a[j + h], a[j] - a[j + h]} for j < h.
   */
  public static void hadamardRadix2(double[] a, int h) {
    if (VECTOR && h >= VectorBlas.LANES) {
      VectorBlas.hadamardRadix2(a, h);
    } else {
      ScalarBlas.hadamardRadix2(a, h);
    }
  }

  /**
   * The squared norm of every row of a product {@code g_j = d_j x_j^T}, the per-example gradient
   * of a dense layer: {@code ||d_j||^2 ||x_j||^2}, without forming it. {@code out[j]} for
   * {@code j < m}; {@code d} holds m rows of length kk ({@code ldd} apart), {@code x} m rows of
   * length n at {@code xRow[j]}.
   */
  public static void outerNormsSquared(double[] d, int ldd, int kk, double[] x, int[] xRow, int m, int n,
      double[] out) {
    for (int j = 0; j < m; j++) {
      out[j] = dot(d, j * ldd, d, j * ldd, kk) * dot(x, xRow[j], x, xRow[j], n);
    }
  }
}
