package dev.helmet.core.nn;

import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Checks;

/**
 * Labelled inputs of an {@link Mlp}: {@link #size()} examples of {@link #features()} values each,
 * with a class index in {@code [0, classes())} per example. Immutable (the arrays given to the
 * factories are kept, not copied: the caller must not change them afterwards).
 *
 * <p>Three sources: a dense row-major {@code double[]} (used in place, no copy per batch), a dense
 * {@code float[]} (converted exactly to double when a batch is gathered; inputs are data, not the
 * clipped quantity, so FP32 storage does not affect the clipping bound), or a preprocessed {@link
 * DesignMatrix}. A design matrix's column 0 is the intercept, a constant 1 ({@link
 * dev.helmet.core.preprocess.Preprocessing}); every layer of the MLP has its own bias, so the
 * intercept is dropped and the MLP sees {@code cols() - 1} features (784 for MNIST pixels, as in the
 * 784-80-10 network of SPEC section 6).
 */
public final class Examples {
  private final int size;
  private final int features;
  private final int classes;
  private final int[] labels;
  private final double[] dense;
  private final float[] denseFloat;
  private final DesignMatrix matrix;

  private Examples(int size, int features, int classes, int[] labels, double[] dense, float[] denseFloat,
      DesignMatrix matrix) {
    Checks.positive("features", features);
    Checks.require(classes >= 2, "classes must be >= 2. Provided value: " + classes);
    Checks.require(labels.length == size,
        "labels must have one entry per example (" + size + "). Provided value: " + labels.length);
    for (int i = 0; i < size; i++) {
      if (labels[i] < 0 || labels[i] >= classes) {
        throw new IllegalArgumentException("label of example " + i + " must be in [0, " + (classes - 1)
            + "]. Provided value: " + labels[i]);
      }
    }
    this.size = size;
    this.features = features;
    this.classes = classes;
    this.labels = labels;
    this.dense = dense;
    this.denseFloat = denseFloat;
    this.matrix = matrix;
  }

  /** Row-major {@code x} of {@code rows x features} doubles, used in place. */
  public static Examples dense(double[] x, int[] labels, int rows, int features, int classes) {
    checkShape(x.length, rows, features);
    return new Examples(rows, features, classes, labels, x, null, null);
  }

  /** Row-major {@code x} of {@code rows x features} floats, converted per batch. */
  public static Examples dense(float[] x, int[] labels, int rows, int features, int classes) {
    checkShape(x.length, rows, features);
    return new Examples(rows, features, classes, labels, null, x, null);
  }

  /**
   * The rows of a classification design matrix without its intercept column 0: {@code cols() - 1}
   * features, {@code numClasses()} classes.
   */
  public static Examples of(DesignMatrix m) {
    Checks.require(!m.hasTargets(), "an MLP classifier needs class labels, not numeric targets");
    Checks.require(m.cols() >= 2, "a design matrix needs a feature besides the intercept. Provided cols: "
        + m.cols());
    return new Examples(m.rows(), m.cols() - 1, m.numClasses(), m.labels(), null, null, m);
  }

  private static void checkShape(long length, int rows, int features) {
    Checks.nonNegative("rows", rows);
    Checks.positive("features", features);
    Checks.require(length == (long) rows * features,
        "x must hold rows x features = " + ((long) rows * features) + " values. Provided length: " + length);
  }

  /** The number of examples. */
  public int size() {
    return size;
  }

  /** The number of input values per example. */
  public int features() {
    return features;
  }

  /** The number of classes. */
  public int classes() {
    return classes;
  }

  /** The class of example {@code i}. */
  public int label(int i) {
    return labels[i];
  }

  /** Example {@code i} written densely into {@code dest[0 .. features())}. */
  public void copyFeatures(int i, double[] dest) {
    Batch b = gather(new int[] {i}, 0, 1);
    System.arraycopy(b.x(), b.offsets()[0], dest, 0, features);
  }

  /**
   * The inputs of a batch as dense rows: row j (example {@code idx[from + j]}) is {@code
   * x[offsets[j] .. + features)}; {@code x} is the backing array of dense double inputs (read
   * only) or a fresh copy.
   */
  record Batch(double[] x, int[] offsets) {}

  Batch gather(int[] idx, int from, int m) {
    int[] off = new int[m];
    for (int j = 0; j < m; j++) {
      int i = idx[from + j];
      if (i < 0 || i >= size) {
        throw new IllegalArgumentException("batch index must be in [0, " + (size - 1) + "]. Provided value: " + i);
      }
    }
    if (dense != null) {
      for (int j = 0; j < m; j++) {
        off[j] = idx[from + j] * features;
      }
      return new Batch(dense, off);
    }
    if (denseFloat != null) {
      double[] x = new double[m * features];
      for (int j = 0; j < m; j++) {
        int src = idx[from + j] * features;
        int dst = j * features;
        for (int c = 0; c < features; c++) {
          x[dst + c] = denseFloat[src + c];
        }
        off[j] = dst;
      }
      return new Batch(x, off);
    }
    // The design matrix writes a whole row, intercept first; the batch keeps columns 1.. only.
    double[] x = new double[m * features];
    double[] row = new double[features + 1];
    for (int j = 0; j < m; j++) {
      matrix.copyRow(idx[from + j], row);
      System.arraycopy(row, 1, x, j * features, features);
      off[j] = j * features;
    }
    return new Batch(x, off);
  }
}
