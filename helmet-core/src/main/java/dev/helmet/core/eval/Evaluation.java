package dev.helmet.core.eval;

/**
 * Classification quality on labelled data: accuracy, macro-averaged F1 and the confusion matrix
 * ({@code confusion[truth][predicted]}).
 */
public record Evaluation(double accuracy, double macroF1, long[][] confusion) {

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
