package dev.helmet.core.eval;

/**
 * Quality on evaluation data. Classification: accuracy, macro-averaged F1 and the confusion matrix
 * ({@code confusion[truth][predicted]}), with {@code regression} null. Regression: {@code
 * regression} holds MSE, RMSE and R^2 in the target's units, and accuracy and F1 are NaN.
 */
public record Evaluation(double accuracy, double macroF1, long[][] confusion, Regression regression) {
  /** A classification result. */
  public Evaluation(double accuracy, double macroF1, long[][] confusion) {
    this(accuracy, macroF1, confusion, null);
  }

  /**
   * Regression errors: mean squared error, its root, and the coefficient of determination {@code R^2
   * = 1 - SS_res / SS_tot} (SS_tot about the evaluation targets' own mean; 1 is perfect, 0 is
   * predicting that mean, below 0 is worse).
   */
  public record Regression(double mse, double rmse, double r2) {}

  /** Whether this is a regression result. */
  public boolean isRegression() {
    return regression != null;
  }

  /** The headline in words: "accuracy 95.62 %" or "MSE 21.3 (RMSE 4.62, R^2 0.71)". */
  public String headline() {
    if (regression != null) {
      return String.format(java.util.Locale.ROOT, "MSE %.4g (RMSE %.4g, R^2 %.3f)", regression.mse,
          regression.rmse, regression.r2);
    }
    return String.format(java.util.Locale.ROOT, "accuracy %.2f %%", 100 * accuracy);
  }

  /** Errors of {@code predicted} against the numeric {@code truth}. */
  public static Evaluation regression(double[] truth, double[] predicted) {
    if (truth.length != predicted.length) {
      throw new IllegalArgumentException(truth.length + " targets but " + predicted.length + " predictions");
    }
    if (truth.length == 0) {
      throw new IllegalArgumentException("cannot evaluate on an empty data set");
    }
    double mean = 0;
    for (double y : truth) {
      mean += y;
    }
    mean /= truth.length;
    double res = 0;
    double tot = 0;
    for (int i = 0; i < truth.length; i++) {
      double e = predicted[i] - truth[i];
      res += e * e;
      double c = truth[i] - mean;
      tot += c * c;
    }
    double mse = res / truth.length;
    double r2 = tot > 0 ? 1 - res / tot : (res == 0 ? 1 : Double.NEGATIVE_INFINITY);
    return new Evaluation(Double.NaN, Double.NaN, new long[0][0], new Regression(mse, Math.sqrt(mse), r2));
  }

  /**
   * A model on evaluation data: {@code rows} are {@code data}'s rows after {@code pre}, in order.
   * For regression the predictions are mapped back to the target's units and compared with the
   * targets as given (not clipped).
   */
  public static Evaluation of(dev.helmet.core.learn.Model model, dev.helmet.core.preprocess.DesignMatrix rows,
      dev.helmet.core.data.Dataset data, dev.helmet.core.preprocess.Preprocessing pre) {
    if (rows.rows() != data.size()) {
      throw new IllegalArgumentException(rows.rows() + " preprocessed rows for " + data.size() + " data rows");
    }
    if (!data.isRegression()) {
      return of(data.labels(), model.predict(rows), data.numClasses());
    }
    double[] scores = model.linear().scores(rows);
    for (int i = 0; i < scores.length; i++) {
      scores[i] = pre.untarget(scores[i]);
    }
    return regression(data.targets(), scores);
  }

  /** Evaluates predictions against the truth for {@code k} classes. */
  public static Evaluation of(int[] truth, int[] predicted, int k) {
    if (truth.length != predicted.length) {
      throw new IllegalArgumentException(truth.length + " labels but " + predicted.length + " predictions");
    }
    if (truth.length == 0) {
      throw new IllegalArgumentException("cannot evaluate on an empty data set");
    }
    long[][] cm = new long[k][k];
    long correct = 0;
    for (int i = 0; i < truth.length; i++) {
      cm[truth[i]][predicted[i]]++;
      if (truth[i] == predicted[i]) {
        correct++;
      }
    }
    // Macro-F1 over classes that occur in the truth or the predictions; F1 = 0 for a class with
    // support but no correct prediction (scikit-learn's convention with zero_division=0).
    double f1Sum = 0;
    int counted = 0;
    for (int c = 0; c < k; c++) {
      long tp = cm[c][c];
      long actual = 0;
      long pred = 0;
      for (int j = 0; j < k; j++) {
        actual += cm[c][j];
        pred += cm[j][c];
      }
      if (actual == 0 && pred == 0) {
        continue;
      }
      counted++;
      f1Sum += 2.0 * tp / (actual + pred);
    }
    return new Evaluation((double) correct / truth.length, counted == 0 ? 0 : f1Sum / counted, cm);
  }
}
