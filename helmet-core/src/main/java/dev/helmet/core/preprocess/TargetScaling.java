package dev.helmet.core.preprocess;

import dev.helmet.core.util.Checks;

/**
 * Public bounds on a regression target: a record's target is clipped to {@code [lower, upper]} and
 * mapped linearly onto {@code [-1, 1]}, so the learner's target bound is B = 1 whatever the units.
 * Predictions are mapped back with {@link #unscale}, so errors are reported in the data's units.
 *
 * <p>As for {@link FeatureScaling}, the bounds must be public (documented for the data set, e.g.
 * Boston's median values are censored at 50, or declared by the user), never computed from private
 * data. Each target is clipped by itself: a fixed public transformation that costs no privacy; a
 * target beyond the bounds is clipped, never used to move them.
 */
public record TargetScaling(double lower, double upper) {
  public TargetScaling {
    Checks.require(Double.isFinite(lower) && Double.isFinite(upper) && lower < upper,
        "target bounds must be finite with lower < upper. Provided: [" + lower + ", " + upper + "]");
  }

  /** {@code y} clipped to the bounds and mapped onto [-1, 1]. */
  public double scale(double y) {
    double x = Math.max(lower, Math.min(upper, y));
    return 2 * (x - lower) / (upper - lower) - 1;
  }

  /** The inverse of {@link #scale} on [-1, 1] (a prediction back in the target's units). */
  public double unscale(double v) {
    return lower + (v + 1) * (upper - lower) / 2;
  }

  /** In words: "targets clipped to public bounds [5, 50] and scaled to [-1, 1]". */
  public String describe() {
    return "targets clipped to public bounds [" + FeatureScaling.num(lower) + ", " + FeatureScaling.num(upper)
        + "] and scaled to [-1, 1]";
  }
}
