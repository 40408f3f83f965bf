package dev.helmet.experiments;

import java.util.List;

/**
 * One run of an experiment: a protocol variant with one hyperparameter point, on one partition of
 * one party count, at one privacy level, for one repeat and validation fold. {@code selection} is
 * "grid" for every run; {@link Results} adds copies marked "test" (the best on the test set, the
 * papers' way) and "validation" (the best on the validation split, honest).
 *
 * @param variant the variant's name in the configuration
 * @param learner the model trained
 * @param lambda the regularisation, where the algorithm has one (else NaN)
 * @param radius the model radius, where the algorithm has one (else NaN)
 * @param epochs the local epochs or passes over the data, where the algorithm has them (else NaN)
 * @param learningRate the server's step, where the algorithm has one (else NaN)
 * @param clip the per-example gradient clip, where the algorithm has one (else NaN)
 * @param samplingRate the Poisson sampling rate, where the algorithm has one (else NaN)
 * @param rounds the summations the run took
 * @param parties W
 * @param perParty records per party
 * @param partition iid, one-class or dirichlet
 * @param fold the validation fold
 * @param seed the repeat's seed (partition, local shuffles)
 * @param targetEps the eps asked for
 * @param dpEps the eps achieved (accounted; at most the target)
 * @param dpDelta delta
 * @param valAcc accuracy on the validation split
 * @param testAcc accuracy on the test set
 * @param testF1 macro-F1 on the test set
 * @param selection grid, test or validation
 * @param selectionEps for a selected run: the eps of the whole selection, the composition of every
 *     candidate's release on the same data (choosing the best of k looks at all k); NaN for a grid run
 * @param neighbours the neighbouring relation of dpEps and selectionEps, in words
 * @param charge the run's privacy charge as JSON (what the selection composes; not a CSV column)
 * @param features the feature set the run trained and was evaluated on (raw, scatter, hog; the
 *     last CSV column, so readers that go by position keep their columns). A row stored before
 *     feature stages existed has none and ran on raw values: null reads as raw
 * @param testMse regression: mean squared error on the test set, in the target's units (else NaN)
 * @param testR2 regression: R^2 on the test set (else NaN)
 * @param valMse regression: mean squared error on the validation split (else NaN)
 * @param gap the optimality gap L_D(theta) - L_D(theta*) on the cell's pooled training data, for
 *     algorithms with a training objective (wd-dp; else NaN)
 * @param nonPrivate the test metric (accuracy, or MSE for regression) of the non-private optimum
 *     theta* of the same objective on the same records (else NaN)
 *     (these four columns come after features, so older readers keep their positions)
 */
public record Row(
    String variant,
    String learner,
    double lambda,
    double radius,
    double epochs,
    double learningRate,
    double clip,
    double samplingRate,
    int rounds,
    int parties,
    int perParty,
    String partition,
    int fold,
    long seed,
    double targetEps,
    double dpEps,
    double dpDelta,
    double valAcc,
    double testAcc,
    double testF1,
    String selection,
    double selectionEps,
    String neighbours,
    String charge,
    String features,
    double testMse,
    double testR2,
    double valMse,
    double gap,
    double nonPrivate) {

  public Row {
    features = features == null ? ExperimentFeatures.RAW : features;
  }

  /** The CSV header, in column order. */
  public static final List<String> COLUMNS = List.of("variant", "learner", "lambda", "radius", "epochs",
      "learning_rate", "clip", "sampling_rate", "rounds", "parties", "per_party", "partition", "fold", "seed",
      "target_eps", "dp_eps", "dp_delta", "val_acc", "test_acc", "test_f1", "selection", "selection_eps",
      "neighbours", "features", "test_mse", "test_r2", "val_mse", "optimality_gap", "nonprivate_metric");

  /** The values in {@link #COLUMNS} order. */
  public List<Object> values() {
    return List.of(variant, learner, num(lambda), num(radius), num(epochs), num(learningRate), num(clip),
        num(samplingRate), rounds, parties, perParty, partition, fold, seed, num(targetEps), num(dpEps),
        num(dpDelta), num(valAcc), num(testAcc), num(testF1), selection, num(selectionEps),
        neighbours == null ? "" : neighbours, features, num(testMse), num(testR2), num(valMse), num(gap), num(nonPrivate));
  }

  /** Whether this run fitted numeric targets (its metric is the MSE, lower is better). */
  public boolean regression() {
    return !Double.isNaN(testMse);
  }

  /** What selection maximises on the test set: accuracy, or minus the MSE for regression. */
  public double testScore() {
    return regression() ? -testMse : testAcc;
  }

  /** What selection maximises on the validation split: accuracy, or minus the MSE for regression. */
  public double valScore() {
    return regression() ? -valMse : valAcc;
  }

  /** The headline metric: test accuracy, or test MSE for regression. */
  public double metric() {
    return regression() ? testMse : testAcc;
  }

  /** This run marked as chosen by {@code how}, from candidates whose releases together cost {@code selectionEps}. */
  public Row selectedBy(String how, double selectionEps) {
    return new Row(variant, learner, lambda, radius, epochs, learningRate, clip, samplingRate, rounds, parties,
        perParty, partition, fold, seed, targetEps, dpEps, dpDelta, valAcc, testAcc, testF1, how, selectionEps,
        neighbours, charge, features, testMse, testR2, valMse, gap, nonPrivate);
  }

  /** The hyperparameters, for the report. */
  public String hyperparameters() {
    if (Double.isNaN(lambda) && Double.isNaN(learningRate) && Double.isNaN(clip)) {
      return "the algorithm's settings (no grid)";
    }
    if (Double.isNaN(lambda)) {
      // DP-SGD variants count steps, not epochs: no "NaN ep." then.
      return String.format(java.util.Locale.ROOT, "lr %s, C %s%s", fmt(learningRate), fmt(clip),
          Double.isNaN(epochs) ? "" : ", " + fmt(epochs) + " ep.");
    }
    return String.format(java.util.Locale.ROOT, "Lambda %s, R %s, %s ep.", fmt(lambda), fmt(radius), fmt(epochs));
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "" : fmt(v);
  }

  static String fmt(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return Double.toString(v);
  }
}
