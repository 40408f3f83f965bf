package dev.helmet.core.preprocess;

import dev.helmet.core.linalg.Blas;
import java.util.Arrays;

/**
 * Preprocessed learner inputs: {@code rows()} inputs of length {@code cols()} (intercept first)
 * with their class indices. Stored dense (row-major) or, when most values are zero (raw pixels),
 * in compressed sparse rows; the learners only use {@link #dot} and {@link #axpy}, so both run
 * the same code, and the sparse form does work proportional to the non-zeros only.
 */
public final class DesignMatrix {
  /**
   * Below this fraction of non-zeros the sparse form is faster than the vectorised dense kernels
   * (bench train, MNIST pixels at 19 % non-zeros: dense 1.5 times as fast as sparse).
   */
  static final double SPARSE_BELOW = 0.12;

  /**
   * A dense form larger than this share of the heap (a pooled data set under a small heap, e.g.
   * MNIST's 377 MB of doubles under -Xmx400m) is not built: memory decides, sparse whenever it is
   * smaller, i.e. below half non-zeros (12 bytes per non-zero against 8 per entry, with a margin for
   * the row starts). The two forms give the same model up to rounding in the last bits, so a very
   * large local data set can train to other last bits under another heap size; one party's
   * matrix of a few MB never reaches this.
   */
  static final double HEAP_SHARE = 0.25;

  static final double SPARSE_BELOW_LARGE = 0.5;

  private final int rows;
  private final int cols;
  private final int numClasses;
  private final int[] y;
  private final double[] targets;
  private final double[] dense;
  private final int[] rowStart;
  private final int[] index;
  private final double[] values;
  private final double[] rowNorms;

  private DesignMatrix(int rows, int cols, int numClasses, int[] y, double[] targets, double[] dense,
      int[] rowStart, int[] index, double[] values) {
    this.targets = targets;
    this.rows = rows;
    this.cols = cols;
    this.numClasses = numClasses;
    this.y = y;
    this.dense = dense;
    this.rowStart = rowStart;
    this.index = index;
    this.values = values;
    this.rowNorms = new double[rows];
    for (int i = 0; i < rows; i++) {
      double sq = 0;
      if (dense != null) {
        sq = Blas.dot(dense, i * cols, dense, i * cols, cols);
      } else {
        for (int p = rowStart[i]; p < rowStart[i + 1]; p++) {
          sq += values[p] * values[p];
        }
      }
      rowNorms[i] = Math.sqrt(sq);
    }
  }

  /** A dense matrix over row-major {@code x}. */
  public static DesignMatrix dense(double[] x, int[] y, int rows, int cols, int numClasses) {
    if ((long) x.length != (long) rows * cols || y.length != rows) {
      throw new IllegalArgumentException("design matrix shape mismatch");
    }
    return new DesignMatrix(rows, cols, numClasses, y, null, x, null, null, null);
  }

  /** A dense regression matrix over row-major {@code x} with a numeric target per row. */
  public static DesignMatrix dense(double[] x, double[] targets, int rows, int cols) {
    if ((long) x.length != (long) rows * cols || targets.length != rows) {
      throw new IllegalArgumentException("design matrix shape mismatch");
    }
    return new DesignMatrix(rows, cols, 1, new int[rows], targets.clone(), x, null, null, null);
  }

  /**
   * Whether a matrix of {@code rows x cols} with {@code nnz} non-zeros is kept sparse under a heap
   * of {@code maxHeap} bytes: below {@link #SPARSE_BELOW} non-zeros, or below {@link
   * #SPARSE_BELOW_LARGE} when the dense form would take more than {@link #HEAP_SHARE} of the heap.
   */
  static boolean sparse(long nnz, int rows, int cols, long maxHeap) {
    double entries = (double) rows * cols;
    boolean large = 8 * entries > HEAP_SHARE * maxHeap;
    return nnz < (large ? SPARSE_BELOW_LARGE : SPARSE_BELOW) * entries;
  }

  /** Builds row by row, choosing the dense or sparse form at the end. */
  static final class Builder {
    private final int rows;
    private final int cols;
    private final int numClasses;
    private final int[] y;
    private final double[] targets;
    private final int[] rowStart;
    private int[] index;
    private double[] values;
    private int nnz;
    private int added;

    /** @param nonZeros the number of non-zero values that will be added (exact, or a guess) */
    Builder(int rows, int cols, int numClasses, long nonZeros, boolean regression) {
      this.targets = regression ? new double[rows] : null;
      this.rows = rows;
      this.cols = cols;
      this.numClasses = numClasses;
      this.y = new int[rows];
      this.rowStart = new int[rows + 1];
      int guess = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(16L, nonZeros));
      this.index = new int[guess];
      this.values = new double[guess];
    }

    void add(double[] row, int label, double target) {
      if (targets != null) {
        targets[added] = target;
      }
      for (int j = 0; j < cols; j++) {
        double v = row[j];
        if (v != 0) {
          if (nnz == index.length) {
            if (index.length >= Integer.MAX_VALUE - 8) {
              throw new IllegalArgumentException("more than 2^31 non-zero inputs do not fit one design matrix");
            }
            int cap = (int) Math.min(Integer.MAX_VALUE - 8, 2L * index.length);
            index = Arrays.copyOf(index, cap);
            values = Arrays.copyOf(values, cap);
          }
          index[nnz] = j;
          values[nnz++] = v;
        }
      }
      y[added++] = label;
      rowStart[added] = nnz;
    }

    DesignMatrix build(boolean allowSparse) {
      if (allowSparse && sparse(nnz, rows, cols, Runtime.getRuntime().maxMemory())) {
        boolean exact = index.length == nnz;
        return new DesignMatrix(rows, cols, numClasses, y, targets, null, rowStart,
            exact ? index : Arrays.copyOf(index, nnz), exact ? values : Arrays.copyOf(values, nnz));
      }
      if ((long) rows * cols > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException(rows + " x " + cols + " inputs do not fit one dense design matrix");
      }
      double[] x = new double[rows * cols];
      // The sparse arrays are not needed again; let them go before the dense copy is filled.
      int[] idx = index;
      double[] val = values;
      index = null;
      values = null;
      for (int i = 0; i < rows; i++) {
        for (int p = rowStart[i]; p < rowStart[i + 1]; p++) {
          x[i * cols + idx[p]] = val[p];
        }
      }
      return new DesignMatrix(rows, cols, numClasses, y, targets, x, null, null, null);
    }
  }

  public int rows() {
    return rows;
  }

  public int cols() {
    return cols;
  }

  public int numClasses() {
    return numClasses;
  }

  /** The class of row {@code i}. */
  public int label(int i) {
    return y[i];
  }

  /** A copy of all classes. */
  public boolean hasTargets() {
    return targets != null;
  }

  /**
   * The numeric (regression) target of row {@code i}, as preprocessed (scaled by the public
   * target bounds when there are any); requires {@link #hasTargets()}.
   */
  public double target(int i) {
    if (targets == null) {
      throw new IllegalStateException("these rows have classes, not numeric targets");
    }
    return targets[i];
  }

  public int[] labels() {
    return y.clone();
  }

  /** The L2 norm of row {@code i}. */
  public double rowNorm(int i) {
    return rowNorms[i];
  }

  /** Whether the sparse form is in use. */
  public boolean isSparse() {
    return dense == null;
  }

  /** {@code x_i . w[off .. off + cols)}. */
  public double dot(int i, double[] w, int off) {
    if (dense != null) {
      return Blas.dot(dense, i * cols, w, off, cols);
    }
    double s0 = 0;
    double s1 = 0;
    int p = rowStart[i];
    int end = rowStart[i + 1];
    for (; p + 1 < end; p += 2) {
      s0 += values[p] * w[off + index[p]];
      s1 += values[p + 1] * w[off + index[p + 1]];
    }
    if (p < end) {
      s0 += values[p] * w[off + index[p]];
    }
    return s0 + s1;
  }

  /** {@code w[off .. off + cols) += alpha x_i}. */
  public void axpy(int i, double alpha, double[] w, int off) {
    if (dense != null) {
      Blas.axpy(alpha, dense, i * cols, w, off, cols);
      return;
    }
    for (int p = rowStart[i]; p < rowStart[i + 1]; p++) {
      w[off + index[p]] += alpha * values[p];
    }
  }

  /**
   * The scores of a batch: {@code out[j * k + q] = x_{rows[from + j]} . w[q * cols .. +cols)} for
   * {@code j < b}, {@code q < k} (the forward pass of a linear layer with k output rows). Dense
   * rows use the register-blocked {@link Blas#productNT}.
   */
  public void scores(int[] rows, int from, int b, double[] w, int k, double[] out) {
    if (dense != null) {
      Blas.productNT(dense, offsets(rows, from, b), b, w, 0, k, cols, out, k);
      return;
    }
    for (int j = 0; j < b; j++) {
      for (int q = 0; q < k; q++) {
        out[j * k + q] = dot(rows[from + j], w, q * cols);
      }
    }
  }

  /**
   * The update of a batch: {@code w[q * cols .. +cols) += sum_j c[j * k + q] x_{rows[from + j]}}
   * for {@code q < k} (a gradient step of a linear layer with k output rows). Dense rows use
   * {@link Blas#accumulateTN}; sparse rows skip zero coefficients (adding 0 changes nothing).
   */
  public void accumulate(int[] rows, int from, int b, double[] c, int k, double[] w) {
    if (dense != null) {
      Blas.accumulateTN(c, k, dense, offsets(rows, from, b), b, w, 0, k, cols);
      return;
    }
    for (int q = 0; q < k; q++) {
      for (int j = 0; j < b; j++) {
        double cj = c[j * k + q];
        if (cj != 0) {
          axpy(rows[from + j], cj, w, q * cols);
        }
      }
    }
  }

  private int[] offsets(int[] rows, int from, int b) {
    int[] off = new int[b];
    for (int j = 0; j < b; j++) {
      off[j] = rows[from + j] * cols;
    }
    return off;
  }

  /** Row {@code i} written densely into {@code dest[0 .. cols)}. */
  public void copyRow(int i, double[] dest) {
    if (dense != null) {
      System.arraycopy(dense, i * cols, dest, 0, cols);
      return;
    }
    Arrays.fill(dest, 0, cols, 0.0);
    for (int p = rowStart[i]; p < rowStart[i + 1]; p++) {
      dest[index[p]] = values[p];
    }
  }
}
