package dev.helmet.core.eval;

import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Shuffle;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Repeated stratified k-fold cross-validation (the Helmet paper uses 5-repeated 6-fold): each
 * repeat shuffles every class and deals its rows round-robin into k folds, so each fold's class
 * proportions match the whole data's up to one row per class.
 */
public final class StratifiedKFold {
  private StratifiedKFold() {}

  /** One train/test split. */
  public record Fold(int repeat, int fold, int[] train, int[] test) {}

  /**
   * All {@code repeats x k} folds of the rows with the given labels.
   *
   * @throws IllegalArgumentException if k < 2 or some fold would have no test rows
   */
  public static List<Fold> split(int[] labels, int numClasses, int k, int repeats, SplittableRandom rng) {
    Checks.require(k >= 2, "folds must be >= 2. Provided value: " + k);
    Checks.positive("repeats", repeats);
    Checks.require(labels.length >= k, k + " folds need at least " + k + " rows; the data has " + labels.length);
    List<Fold> out = new ArrayList<>();
    for (int r = 0; r < repeats; r++) {
      int[] foldOf = new int[labels.length];
      int next = 0; // continue the round-robin across classes so fold sizes stay balanced
      for (int[] rows : shuffledByClass(labels, numClasses, rng)) {
        for (int row : rows) {
          foldOf[row] = next;
          next = (next + 1) % k;
        }
      }
      for (int f = 0; f < k; f++) {
        int testSize = 0;
        for (int v : foldOf) {
          if (v == f) {
            testSize++;
          }
        }
        int[] test = new int[testSize];
        int[] train = new int[labels.length - testSize];
        int a = 0;
        int b = 0;
        for (int i = 0; i < labels.length; i++) {
          if (foldOf[i] == f) {
            test[a++] = i;
          } else {
            train[b++] = i;
          }
        }
        out.add(new Fold(r, f, train, test));
      }
    }
    return out;
  }

  /**
   * A single stratified holdout: about {@code testFraction} of each class goes to the test part.
   * Used when a data file comes without a test file.
   */
  public static Fold holdout(int[] labels, int numClasses, double testFraction, SplittableRandom rng) {
    Checks.openUnit("test fraction", testFraction);
    List<Integer> train = new ArrayList<>();
    List<Integer> test = new ArrayList<>();
    for (int[] rows : shuffledByClass(labels, numClasses, rng)) {
      int nTest = (int) Math.round(rows.length * testFraction);
      if (rows.length >= 2) {
        nTest = Math.max(1, Math.min(rows.length - 1, nTest));
      }
      for (int i = 0; i < rows.length; i++) {
        (i < nTest ? test : train).add(rows[i]);
      }
    }
    Checks.require(!train.isEmpty() && !test.isEmpty(),
        "the data is too small to split off a test set; give one with --test");
    return new Fold(0, 0, train.stream().mapToInt(Integer::intValue).sorted().toArray(),
        test.stream().mapToInt(Integer::intValue).sorted().toArray());
  }

  /** The rows of each class, each class's rows shuffled. */
  private static List<int[]> shuffledByClass(int[] labels, int numClasses, SplittableRandom rng) {
    int[] counts = new int[numClasses];
    for (int y : labels) {
      counts[y]++;
    }
    List<int[]> byClass = new ArrayList<>();
    for (int c = 0; c < numClasses; c++) {
      byClass.add(new int[counts[c]]);
    }
    int[] fill = new int[numClasses];
    for (int i = 0; i < labels.length; i++) {
      byClass.get(labels[i])[fill[labels[i]]++] = i;
    }
    for (int[] rows : byClass) {
      Shuffle.shuffle(rows, rng);
    }
    return byClass;
  }
}
