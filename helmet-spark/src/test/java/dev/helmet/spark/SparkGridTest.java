package dev.helmet.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.StratifiedKFold;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.experiments.ExperimentConfig;
import dev.helmet.experiments.ExperimentRunner;
import dev.helmet.experiments.Grid;
import dev.helmet.experiments.Report;
import dev.helmet.experiments.Row;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An experiment's cells as Spark tasks on {@code local[2]}: the same cells and rows as the local
 * harness, in the same results file, report and plots, and a second run keeps every cell. With
 * secure noise the accuracies differ from run to run, so the rows are compared without them; with a
 * test's predictable noise the rows are the same in every column.
 */
@org.junit.jupiter.api.Tag("integration")
class SparkGridTest {
  private static JavaSparkContext sc;
  private static final BuiltinDataset.TrainTest DIGITS;

  static {
    Dataset all = TestData.digits();
    StratifiedKFold.Fold f = StratifiedKFold.holdout(all.labels(), all.numClasses(), 0.3, new SplittableRandom(1));
    DIGITS = new BuiltinDataset.TrainTest(all.subset(f.train(), "digits train"), all.subset(f.test(), "digits test"));
  }

  @BeforeAll
  static void start() {
    sc = new JavaSparkContext(new SparkConf().setMaster("local[2]").setAppName("SparkGridTest")
        .set("spark.ui.enabled", "false").set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1"));
  }

  @AfterAll
  static void stop() {
    sc.stop();
  }

  private static final String SMALL = String.join("\n",
      "name: small",
      "dataset: mnist",
      "parties: [5, 10]",
      "per_party: 30",
      "epsilons: [1, 5]",
      "repeats: 2",
      "variants:",
      "  - {name: helmet-softmax, algorithm: helmet, settings: {learner: {kind: softmax, lambda: [0.5, 1], epochs: 3}}}",
      "  - name: dp-fl",
      "    algorithm: dp-fl",
      "    summation: simulated",
      "    settings: {dpfl: {learning_rate: 2, grad_clip: 1, epochs: 1, sampling_rate: 'min(1, 30 / records)'}}",
      "");

  /** Every column of a row (doubles by their bits). */
  private static String all(Row r) {
    return r.variant() + "/" + r.parties() + "/" + r.seed() + "/" + r.fold() + "/" + r.lambda() + "/" + r.targetEps()
        + "/" + Double.doubleToLongBits(r.dpEps()) + "/" + r.rounds() + "/" + r.neighbours() + "/"
        + Double.doubleToLongBits(r.valAcc()) + "/" + Double.doubleToLongBits(r.testAcc()) + "/"
        + Double.doubleToLongBits(r.testF1());
  }

  @Test
  void withPredictableNoiseTheSparkGridGivesTheLocalHarnesssRowsInEveryColumn(@TempDir Path dir) throws Exception {
    ExperimentConfig c = ExperimentConfig.parse(new ObjectMapper(new YAMLFactory()).readTree(SMALL), "small.yaml");
    ExperimentRunner.Summary a = ExperimentRunner.run(c, new ExperimentRunner.Settings(dir.resolve("local"), dir, 2,
        Progress.NONE, id -> DIGITS).withTestNoiseSeed(5));
    ExperimentRunner.Summary b = ExperimentRunner.run(c, new ExperimentRunner.Settings(dir.resolve("spark"), dir, 2,
        Progress.NONE, id -> DIGITS).on(Grid.named("spark", Map.of())).withTestNoiseSeed(5));
    TreeSet<String> fromLocal = a.rows().stream().map(SparkGridTest::all).collect(Collectors.toCollection(TreeSet::new));
    TreeSet<String> fromSpark = b.rows().stream().map(SparkGridTest::all).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(a.rows().size(), fromLocal.size(), "every row differs from the others");
    assertEquals(fromLocal, fromSpark);
    // and the seed matters: another one gives other accuracies
    ExperimentRunner.Summary other = ExperimentRunner.run(c, new ExperimentRunner.Settings(dir.resolve("other"), dir,
        2, Progress.NONE, id -> DIGITS).withTestNoiseSeed(6));
    TreeSet<String> fromOther = other.rows().stream().map(SparkGridTest::all)
        .collect(Collectors.toCollection(TreeSet::new));
    assertTrue(!fromOther.equals(fromLocal), "a different noise seed changes the rows");
  }

  /** A row without its noisy outcomes (accuracies, errors), to compare runs. */
  private static String shape(Row r) {
    return r.variant() + "/" + r.parties() + "/" + r.seed() + "/" + r.fold() + "/" + r.lambda() + "/" + r.targetEps()
        + "/" + r.dpEps() + "/" + r.rounds() + "/" + r.neighbours();
  }

  @Test
  void cellsRunAsSparkTasksGiveTheLocalHarnesssRowsAndResume(@TempDir Path dir) throws Exception {
    ExperimentConfig c = ExperimentConfig.parse(new ObjectMapper(new YAMLFactory()).readTree(SMALL), "small.yaml");
    ExperimentRunner.Settings local = new ExperimentRunner.Settings(dir.resolve("local"), dir, 2, Progress.NONE,
        id -> DIGITS);
    ExperimentRunner.Summary a = ExperimentRunner.run(c, local);
    ExperimentRunner.Settings spark = new ExperimentRunner.Settings(dir.resolve("spark"), dir, 2, Progress.NONE,
        id -> DIGITS).on(Grid.named("spark", Map.of()));
    ExperimentRunner.Summary b = ExperimentRunner.run(c, spark);
    assertEquals(a.cells(), b.cells());
    assertEquals(b.cells(), b.ran());
    assertEquals(a.rows().size(), b.rows().size());
    TreeSet<String> fromLocal = a.rows().stream().map(SparkGridTest::shape).collect(Collectors.toCollection(TreeSet::new));
    TreeSet<String> fromSpark = b.rows().stream().map(SparkGridTest::shape).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(fromLocal, fromSpark);
    for (Row r : b.rows()) {
      assertTrue(r.testAcc() >= 0 && r.testAcc() <= 1 && r.valAcc() >= 0 && r.valAcc() <= 1, r.toString());
    }
    // Each task's time comes back with its rows, one thread a task.
    assertEquals(b.cells(), b.times().timed());
    assertTrue(b.times().seconds() > 0 && b.times().threadSeconds() == b.times().seconds(), "1 thread a task");
    for (String line : Files.readAllLines(dir.resolve("spark/cells.jsonl"))) {
      assertTrue(line.contains("\"threads\":1") && line.contains("\"seconds\":"), line);
    }
    Report.Outputs o = Report.write(c, b.rows(), dir.resolve("spark"), "test", b.seconds());
    Report.Outputs ol = Report.write(c, a.rows(), dir.resolve("local"), "test", a.seconds());
    assertTrue(Files.size(o.report()) > 0);
    assertEquals(Files.readAllLines(ol.csv()).size(), Files.readAllLines(o.csv()).size(), "the same results.csv rows");
    assertEquals(ol.plots().size(), o.plots().size(), "the same plots");
    // Resumable: every cell is kept.
    ExperimentRunner.Summary again = ExperimentRunner.run(c, spark);
    assertEquals(0, again.ran());
    assertEquals(b.cells(), again.skipped());
    List<Row> kept = again.rows();
    assertEquals(b.rows().size(), kept.size());
  }
}
