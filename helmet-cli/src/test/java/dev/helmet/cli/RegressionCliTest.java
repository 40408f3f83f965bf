package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Regression from a CSV file through train and predict, as a user runs it. */
class RegressionCliTest {
  /** y = 10 + 5 (a - b) + noise with a, b, c in [-1, 1]. */
  private static Path csv(Path dir, String name, int n, long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    StringBuilder sb = new StringBuilder("a,b,c,y\n");
    for (int i = 0; i < n; i++) {
      double a = 2 * r.nextDouble() - 1;
      double b = 2 * r.nextDouble() - 1;
      double c = 2 * r.nextDouble() - 1;
      sb.append(String.format(Locale.ROOT, "%.4f,%.4f,%.4f,%.4f%n", a, b, c, 10 + 5 * (a - b) + 0.3 * r.nextGaussian()));
    }
    Path p = dir.resolve(name);
    Files.writeString(p, sb);
    return p;
  }

  /**
   * The pipeline (train, report, predict), not accuracy at a small eps: the noise is drawn from
   * SecureRandom and cannot be seeded, and at eps 5 one run in many had test R^2 near 0, so the run
   * uses eps 20, where R^2 > 0.3 is far inside what the noise allows.
   */
  @Test
  void trainReportsMseR2AndTheGapAndPredictMapsBack(@TempDir Path dir) throws Exception {
    Path train = csv(dir, "train.csv", 1200, 1);
    Path test = csv(dir, "test.csv", 300, 2);
    Path model = dir.resolve("m.json");
    Cli run = Cli.run("train", "--algorithm", "wd-dp", "--dataset", train.toString(), "--test", test.toString(),
        "--target-bounds", "0:20", "--feature-bounds", "-1:1", "--parties", "4", "--epsilon", "20", "--steps", "200",
        "--model-out", model.toString(), "--json", "-q");
    assertEquals(0, run.exit, run.toString());
    JsonNode j = new ObjectMapper().readTree(run.out);
    assertTrue(j.get("test_accuracy").isNull(), "no accuracy for regression");
    double mse = j.get("test_mse").asDouble();
    assertTrue(j.get("test_r2").asDouble() > 0.3 && mse > 0, run.out);
    assertTrue(j.get("optimality_gap").asDouble() >= 0, run.out);
    assertTrue(j.has("reference_mse") && j.has("optimum"), run.out);
    assertEquals("linreg", j.get("learner").asText());
    assertEquals(20.0, j.get("target_epsilon").asDouble());
    // the model file holds no evaluation of private data
    String file = Files.readString(model);
    assertTrue(file.contains("target_bounds") && !file.contains("mse") && !file.contains("optimality"), file);
    Cli predict = Cli.run("predict", "--model", model.toString(), "--data", test.toString(), "--json");
    assertEquals(0, predict.exit, predict.toString());
    JsonNode p = new ObjectMapper().readTree(predict.out);
    assertEquals(300, p.get("predictions").size());
    assertEquals(mse, p.get("mse").asDouble(), 1e-9 * mse, "predict replays the same preprocessing");
  }

  @Test
  void helmetRefusesRegressionSayingWhatFitsIt(@TempDir Path dir) throws Exception {
    Path train = csv(dir, "train.csv", 200, 1);
    Cli run = Cli.run("train", "--dataset", train.toString(), "--target-bounds", "0:20", "--parties", "2", "-q");
    assertTrue(run.exit != 0);
    assertTrue(run.err.contains("--algorithm wd-dp"), run.err);
  }
}
