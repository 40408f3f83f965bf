package dev.helmet.protocols.audit;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.preprocess.FeatureScaling;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.protocols.algorithm.AlgorithmSpec;

/**
 * The gradient canary's record: one feature at its extreme, every other at the point the public
 * preprocessing maps to zero, so the learner sees {@code [1, +-c e_j]} (the intercept and one
 * coordinate of full norm c), and a label the data makes unlikely.
 *
 * <p>The coordinate j is the one the data's preprocessed rows put least mass on (the smallest sum of
 * squares), and the sign the one opposite their mean there: the data's own gradients then touch
 * column j of a linear model least, so little of what the canary adds along it is undone by later
 * steps on the other records (a "Dirac" canary, Nasr et al. 2021 and 2023; Steinke, Nasr and
 * Jagielski 2023, in input space). The label is the least frequent class, other than the one of
 * the record it replaces: the trained model gives it the lowest probability off the data, so the
 * canary's gradient norm, {@code |p - e_y| sqrt(1 + c^2)} for a softmax model, stays above the clip
 * bound for as long as {@code p_y} stays below {@code 1 - C sqrt((K - 1) / K) / sqrt(1 + c^2)}.
 *
 * @param features the raw record, before the public preprocessing
 * @param label its class
 * @param coordinate j
 * @param sign the sign of its extreme value (+1 or -1)
 */
record DiracRecord(float[] features, int label, int coordinate, int sign) {
  /**
   * The record for {@code spec}'s preprocessing on {@code data}.
   *
   * @param otherThan a label the canary must not take (the replaced record's), or -1
   */
  static DiracRecord of(AlgorithmSpec spec, Dataset data, int otherThan) {
    Preprocessing pre = spec.preprocessing();
    int p = data.dimension();
    double[] mass = new double[p];
    double[] sum = new double[p];
    double[] row = new double[p + 1];
    for (int i = 0; i < data.size(); i++) {
      pre.apply(data, i, row, 0);
      for (int j = 0; j < p; j++) {
        mass[j] += row[j + 1] * row[j + 1];
        sum[j] += row[j + 1];
      }
    }
    int j = 0;
    for (int k = 1; k < p; k++) {
      if (mass[k] < mass[j]) {
        j = k;
      }
    }
    int sign = sum[j] > 0 ? -1 : 1;
    float[] x = new float[p];
    FeatureScaling scaling = pre.scaling();
    if (scaling == null) {
      // Twice the clip bound: clipped (or normalised) to norm c, whatever the setting.
      x[j] = (float) (sign * 2 * pre.clipBound());
    } else {
      // The scaling maps a feature's bounds to -1 and 1 and their midpoint to 0.
      double[] lo = scaling.lower();
      double[] hi = scaling.upper();
      for (int k = 0; k < p; k++) {
        x[k] = (float) ((lo[k] + hi[k]) / 2);
      }
      x[j] = (float) (sign > 0 ? hi[j] : lo[j]);
    }
    return new DiracRecord(x, rarest(data, otherThan), j, sign);
  }

  /** The least frequent class other than {@code otherThan} (the lowest such index on a tie). */
  private static int rarest(Dataset data, int otherThan) {
    int[] counts = data.classCounts();
    int best = -1;
    for (int k = 0; k < counts.length; k++) {
      if (k != otherThan && (best < 0 || counts[k] < counts[best])) {
        best = k;
      }
    }
    return best < 0 ? 0 : best;
  }

  /** In words, for the pair's description. */
  String describe() {
    return "feature " + (coordinate + 1) + " at its " + (sign > 0 ? "largest" : "smallest") + ", the rest at zero, "
        + "label " + label;
  }
}
