package dev.helmet.core.preprocess;

import dev.helmet.core.util.Checks;
import java.util.Arrays;

/**
 * Per-feature scaling from public bounds: feature j is clipped to {@code [lower_j, upper_j]} and
 * mapped linearly onto {@code [-1, 1]} (a feature with equal bounds becomes 0). It runs before the
 * row normalisation, so that a feature with a large range no longer dominates every row.
 *
 * <p>The bounds must be public: declared by the user (a schema or flags) or taken from a data set's
 * documentation (the Wisconsin breast-cancer attributes are scores 1 to 10), never computed from
 * private data. Each record is scaled by itself, so the scaling is a fixed public transformation
 * and costs no privacy; a value outside its bounds is clipped, never used to move the bounds.
 *
 * @param lower per-feature lower bounds
 * @param upper per-feature upper bounds, each at least its lower bound
 */
public record FeatureScaling(double[] lower, double[] upper) {
  public FeatureScaling {
    Checks.notNull("lower bounds", lower);
    Checks.notNull("upper bounds", upper);
    Checks.require(lower.length == upper.length && lower.length > 0, "feature bounds need as many lower as upper "
        + "bounds (at least one). Provided: " + lower.length + " lower, " + upper.length + " upper");
    for (int j = 0; j < lower.length; j++) {
      Checks.require(Double.isFinite(lower[j]) && Double.isFinite(upper[j]) && lower[j] <= upper[j],
          "feature " + (j + 1) + "'s bounds must be finite with lower <= upper. Provided: [" + lower[j] + ", "
              + upper[j] + "]");
    }
    lower = lower.clone();
    upper = upper.clone();
  }

  /** The same bounds for all {@code features}. */
  public static FeatureScaling uniform(int features, double lower, double upper) {
    double[] lo = new double[Checks.positive("features", features)];
    double[] hi = new double[features];
    Arrays.fill(lo, lower);
    Arrays.fill(hi, upper);
    return new FeatureScaling(lo, hi);
  }

  /** The number of features the bounds describe. */
  public int features() {
    return lower.length;
  }

  @Override
  public double[] lower() {
    return lower.clone();
  }

  @Override
  public double[] upper() {
    return upper.clone();
  }

  /** Scales {@code v[offset .. offset + features())} in place. */
  public void apply(double[] v, int offset) {
    for (int j = 0; j < lower.length; j++) {
      double lo = lower[j];
      double hi = upper[j];
      if (hi == lo) {
        v[offset + j] = 0;
        continue;
      }
      double x = Math.max(lo, Math.min(hi, v[offset + j]));
      v[offset + j] = 2 * (x - lo) / (hi - lo) - 1;
    }
  }

  /** In words: "features clipped to public bounds [1, 10] and scaled to [-1, 1]" (or "per-feature bounds"). */
  public String describe() {
    boolean same = true;
    for (int j = 1; j < lower.length; j++) {
      same &= lower[j] == lower[0] && upper[j] == upper[0];
    }
    return same ? "features clipped to public bounds [" + num(lower[0]) + ", " + num(upper[0]) + "] and scaled to "
        + "[-1, 1]" : "features clipped to public per-feature bounds and scaled to [-1, 1]";
  }

  static String num(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FeatureScaling f && Arrays.equals(lower, f.lower) && Arrays.equals(upper, f.upper);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(lower) + Arrays.hashCode(upper);
  }

  @Override
  public String toString() {
    return "FeatureScaling" + Arrays.toString(lower) + Arrays.toString(upper);
  }
}
