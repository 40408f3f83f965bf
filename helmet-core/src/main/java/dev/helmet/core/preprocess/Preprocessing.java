package dev.helmet.core.preprocess;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.util.Checks;

/**
 * The fixed, public transformation from a data row {@code x} (p features) to a learner input
 * {@code [1, x']} (p+1 values, the leading 1 is the intercept), SPEC 1.1:
 *
 * <ul>
 *   <li>clip: {@code x' = c x / max(c, ||x||_2)}, so {@code ||x'|| <= c}; or, with
 *       {@code normalise}, {@code x' = c x / ||x||} (every row has norm exactly c; a zero row stays
 *       zero). Both act on one row alone, so they do not depend on other records.
 *   <li>intercept: {@code [1, x']}, whose norm is at most {@code c' = sqrt(1 + c^2)}; every bound
 *       (Lipschitz, smoothness, sensitivity) uses c', not c.
 * </ul>
 *
 * <p>The clip bound c must be public: a constant, or computed on public data, never on the private
 * data. The same record is stored in the model and replayed at prediction.
 *
 * <p>Optionally, before both, each feature is clipped to public bounds and scaled to [-1, 1]
 * ({@link FeatureScaling}), also one row at a time.
 *
 * @param clipBound c, the public L2 bound of a row before the intercept
 * @param normalise scale every row to norm c instead of only clipping long rows
 * <p>For regression, each record's target is clipped to public bounds and scaled to [-1, 1]
 * ({@link TargetScaling}); predictions are mapped back.
 *
 * @param clipBound c, the public L2 bound of a row before the intercept
 * @param normalise scale every row to norm c instead of only clipping long rows
 * @param scaling per-feature public bounds applied first, or null for none
 * @param target public bounds of a regression target, or null (classification)
 */
public record Preprocessing(double clipBound, boolean normalise, FeatureScaling scaling, TargetScaling target) {
  public Preprocessing {
    Checks.positive("clip bound c", clipBound);
  }

  /** No per-feature scaling. */
  public Preprocessing(double clipBound, boolean normalise) {
    this(clipBound, normalise, null, null);
  }

  /** No target bounds (classification). */
  public Preprocessing(double clipBound, boolean normalise, FeatureScaling scaling) {
    this(clipBound, normalise, scaling, null);
  }

  /** In words, for reports: "clip c=10 (rows normalised)", with the scaling when there is one. */
  public String describe() {
    String s = "clip c=" + java.math.BigDecimal.valueOf(clipBound).stripTrailingZeros().toPlainString()
        + (normalise ? " (rows normalised)" : "");
    String out = scaling == null ? s : scaling.describe() + "; " + s;
    return target == null ? out : out + "; " + target.describe();
  }

  /** The bound on the norm of a learner input {@code [1, x']}: {@code c' = sqrt(1 + c^2)}. */
  public double inputNormBound() {
    return Math.sqrt(1 + clipBound * clipBound);
  }

  /** The length of a learner input: the data dimension plus the intercept. */
  public static int inputDimension(int dataDimension) {
    return dataDimension + 1;
  }

  /**
   * Writes the learner input of {@code data} row {@code row} into
   * {@code dest[offset .. offset + dimension + 1)}.
   */
  public void apply(Dataset data, int row, double[] dest, int offset) {
    int p = data.dimension();
    dest[offset] = 1.0;
    data.copyRow(row, dest, offset + 1);
    if (scaling != null) {
      if (scaling.features() != p) {
        throw new IllegalArgumentException(data.name() + ": the feature bounds describe " + scaling.features()
            + " features, the rows have " + p);
      }
      scaling.apply(dest, offset + 1);
    }
    double sq = 0;
    for (int j = 1; j <= p; j++) {
      double v = dest[offset + j];
      sq += v * v;
    }
    double norm = Math.sqrt(sq);
    // Target a norm a hair below c: a floating-point norm summed in another order can differ by up
    // to about (p + 2) units in the last place, so the shrink by 2 (p + 2) 2^-53 (relative) keeps
    // ||x'|| <= c in any evaluation order, as the sensitivity proof assumes. The change is far
    // below anything that affects accuracy.
    double target = clipBound * (1 - 2.0 * (p + 2) * 0x1.0p-53);
    double scale;
    if (normalise) {
      scale = norm > 0 ? target / norm : 1.0;
    } else {
      scale = norm > target ? target / norm : 1.0;
    }
    if (scale != 1.0) {
      for (int j = 1; j <= p; j++) {
        dest[offset + j] *= scale;
      }
    }
  }

  /**
   * The heap bytes the design matrix of {@code rows} will take (its dense or its sparse form, as
   * {@link #design} will choose), found by one preprocessing pass that counts the non-zeros; lets a
   * caller decline a matrix that would not fit instead of running out of memory.
   */
  public long designBytes(Dataset data, int[] rows) {
    int d = inputDimension(data.dimension());
    double[] row = new double[d];
    long nonZeros = 0;
    for (int r : rows) {
      apply(data, r, row, 0);
      for (double v : row) {
        if (v != 0) {
          nonZeros++;
        }
      }
    }
    boolean sparse = DesignMatrix.sparse(nonZeros, rows.length, d, Runtime.getRuntime().maxMemory());
    // dense: 8 bytes a value; sparse: a value and its column index, plus row starts; both + labels
    return (sparse ? 12 * nonZeros + 4L * (rows.length + 1) : 8L * rows.length * d) + 4L * rows.length;
  }

  /** The learner inputs of the given rows, as a design matrix (sparse if mostly zeros). */
  public DesignMatrix design(Dataset data, int[] rows) {
    return design(data, rows, true);
  }

  /** As {@link #design(Dataset, int[])}; {@code allowSparse = false} forces the dense form. */
  public DesignMatrix design(Dataset data, int[] rows, boolean allowSparse) {
    int d = inputDimension(data.dimension());
    double[] row = new double[d];
    // Count the non-zeros first (preprocessing is cheap next to training), so the sparse form is
    // allocated once at its exact size: no growing copies of a pooled data set.
    long nonZeros = 0;
    for (int row_ : rows) {
      apply(data, row_, row, 0);
      for (double v : row) {
        if (v != 0) {
          nonZeros++;
        }
      }
    }
    DesignMatrix.Builder b = new DesignMatrix.Builder(rows.length, d, data.numClasses(), nonZeros,
        data.isRegression());
    for (int row_ : rows) {
      apply(data, row_, row, 0);
      b.add(row, data.label(row_), data.isRegression() ? target(data.target(row_)) : 0);
    }
    return b.build(allowSparse);
  }

  /** A regression target as the learner sees it: scaled by the public target bounds, or as it is. */
  public double target(double y) {
    return target == null ? y : target.scale(y);
  }

  /** A prediction in the target's units: the learner's output mapped back by the target bounds. */
  public double untarget(double v) {
    return target == null ? v : target.unscale(v);
  }

  /** The learner inputs of all rows. */
  public DesignMatrix design(Dataset data) {
    int[] all = new int[data.size()];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    return design(data, all);
  }
}
