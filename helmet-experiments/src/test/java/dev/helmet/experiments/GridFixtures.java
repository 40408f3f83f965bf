package dev.helmet.experiments;

import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.StratifiedKFold;
import dev.helmet.core.testdata.TestData;
import java.util.SplittableRandom;

/** What the grid tests share: a small stand-in for MNIST, and a row written out in every column. */
final class GridFixtures {
  private GridFixtures() {}

  /** The 8x8 digits (1797 rows) split 70/30 stand in for MNIST, so the tests need no download. */
  static final BuiltinDataset.TrainTest DIGITS;

  static {
    Dataset all = TestData.digits();
    StratifiedKFold.Fold f = StratifiedKFold.holdout(all.labels(), all.numClasses(), 0.3, new SplittableRandom(1));
    DIGITS = new BuiltinDataset.TrainTest(all.subset(f.train(), "digits train"), all.subset(f.test(), "digits test"));
  }

  /** Every column of a row that a seeded run fixes (doubles by their bits). */
  static String allColumns(Row r) {
    return r.variant() + "/" + r.parties() + "/" + r.seed() + "/" + r.fold() + "/" + r.lambda() + "/" + r.targetEps()
        + "/" + Double.doubleToLongBits(r.dpEps()) + "/" + r.rounds() + "/" + r.neighbours() + "/"
        + Double.doubleToLongBits(r.valAcc()) + "/" + Double.doubleToLongBits(r.testAcc()) + "/"
        + Double.doubleToLongBits(r.testF1());
  }

  /**
   * A small grid on the digits: eps 1 and 5, 2 repeats, Helmet softmax at lambda 0.5 and 1, and
   * dp-fl with {@code dpfl} settings.
   */
  static String smallGrid(String name, String parties, String dpfl) {
    return String.join("\n",
        "name: " + name,
        "dataset: mnist",
        "parties: " + parties,
        "per_party: 30",
        "epsilons: [1, 5]",
        "repeats: 2",
        "variants:",
        "  - name: helmet-softmax",
        "    algorithm: helmet",
        "    settings: {learner: {kind: softmax, lambda: [0.5, 1], epochs: 3}}",
        "  - name: dp-fl",
        "    algorithm: dp-fl",
        "    summation: simulated",
        "    settings: " + dpfl,
        "");
  }
}
