package dev.helmet.core.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EvaluationTest {
  @Test
  void accuracyMacroF1AndConfusionMatchAHandComputedExample() {
    int[] truth = {0, 0, 0, 1, 1, 2};
    int[] pred = {0, 0, 1, 1, 2, 2};
    Evaluation e = Evaluation.of(truth, pred, 3);
    assertEquals(4.0 / 6, e.accuracy(), 1e-15);
    // F1: class 0: tp 2, actual 3, predicted 2 -> 4/5; class 1: tp 1, 2, 2 -> 1/2; class 2: tp 1, 1, 2 -> 2/3.
    assertEquals((0.8 + 0.5 + 2.0 / 3) / 3, e.macroF1(), 1e-15);
    assertEquals(1, e.confusion()[0][1]);
    assertEquals(1, e.confusion()[1][2]);
    assertEquals(2, e.confusion()[0][0]);
  }

  @Test
  void stratifiedFoldsCoverEveryRowOnceAndKeepClassProportions() {
    int[] labels = new int[300];
    for (int i = 0; i < labels.length; i++) {
      labels[i] = i < 200 ? 0 : i < 270 ? 1 : 2; // 200 / 70 / 30
    }
    List<StratifiedKFold.Fold> folds = StratifiedKFold.split(labels, 3, 5, 2, new SplittableRandom(4));
    assertEquals(10, folds.size());
    for (int r = 0; r < 2; r++) {
      Set<Integer> tested = new HashSet<>();
      for (StratifiedKFold.Fold f : folds.subList(5 * r, 5 * r + 5)) {
        assertEquals(300, f.train().length + f.test().length);
        int[] c = new int[3];
        for (int i : f.test()) {
          assertTrue(tested.add(i), "row tested twice in one repeat");
          c[labels[i]]++;
        }
        assertTrue(Math.abs(c[0] - 40) <= 1 && Math.abs(c[1] - 14) <= 1 && Math.abs(c[2] - 6) <= 1,
            java.util.Arrays.toString(c));
      }
      assertEquals(300, tested.size());
    }
    assertTrue(!java.util.Arrays.equals(folds.get(0).test(), folds.get(5).test()), "repeats reshuffle");
  }

  @Test
  void holdoutKeepsEveryClassOnBothSides() {
    int[] labels = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2};
    StratifiedKFold.Fold f = StratifiedKFold.holdout(labels, 3, 0.2, new SplittableRandom(1));
    Set<Integer> testClasses = new HashSet<>();
    for (int i : f.test()) {
      testClasses.add(labels[i]);
    }
    assertEquals(Set.of(0, 1, 2), testClasses);
    assertEquals(12, f.train().length + f.test().length);
  }

  /** MSE, RMSE and R^2 of a hand-worked example: residuals 0.5, -0.5, 0, 1 about truth mean 2.5. */
  @Test
  void regressionErrorsMatchAHandComputedExample() {
    double[] truth = {1, 2, 3, 4};
    double[] pred = {1.5, 1.5, 3, 5};
    Evaluation e = Evaluation.regression(truth, pred);
    assertTrue(e.isRegression());
    assertEquals(1.5 / 4, e.regression().mse(), 1e-15);
    assertEquals(Math.sqrt(1.5 / 4), e.regression().rmse(), 1e-15);
    // SS_tot = 2.25 + 0.25 + 0.25 + 2.25 = 5; R^2 = 1 - 1.5 / 5
    assertEquals(0.7, e.regression().r2(), 1e-15);
    assertTrue(Double.isNaN(e.accuracy()));
    assertTrue(e.headline().startsWith("MSE 0.375"), e.headline());
    // predicting the mean scores R^2 = 0
    assertEquals(0, Evaluation.regression(truth, new double[] {2.5, 2.5, 2.5, 2.5}).regression().r2(), 1e-15);
  }
}
