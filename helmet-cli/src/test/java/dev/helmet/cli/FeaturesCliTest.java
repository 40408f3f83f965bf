package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.testdata.TestData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The feature stage end to end: train on raw 8x8 digit images with {@code --features}, and predict
 * on raw images with the saved model, which must compute the same features itself.
 */
class FeaturesCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  /** scikit-learn's digits split into a training file (first 1400 rows) and a test file (the rest). */
  private Path[] digitsSplit() throws IOException {
    List<String> lines;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        new GZIPInputStream(Files.newInputStream(TestData.path("digits.csv.gz"))), StandardCharsets.UTF_8))) {
      lines = r.lines().toList();
    }
    Path train = dir.resolve("digits-train.csv");
    Path test = dir.resolve("digits-test.csv");
    Files.write(train, lines.subList(0, 1400));
    Files.write(test, lines.subList(1400, lines.size()));
    return new Path[] {train, test};
  }

  @ParameterizedTest
  @ValueSource(strings = {"scatter", "hog"})
  void predictOnRawImagesReproducesTheTestAccuracyOfAFeatureModel(String features) throws IOException {
    Path[] split = digitsSplit();
    Path model = dir.resolve(features + "-model.json");
    // eps = 1e6 makes the noise negligible; the point is the replay of the features, not privacy.
    Cli t = Cli.run("train", "--dataset", split[0].toString(), "--test", split[1].toString(), "--features", features,
        "--image-shape", "8x8", "--parties", "4", "--epochs", "20", "--epsilon", "1e6", "--no-reference",
        "--threads", "2", "--cache-dir", dir.resolve("cache").toString(), "--json", "--quiet", "-o", model.toString());
    assertEquals(0, t.exit, t.toString());
    JsonNode j = JSON.readTree(t.out);
    assertEquals(features, j.get("features").asText());
    double trained = j.get("test_accuracy").asDouble();
    assertTrue(trained > 0.8, "a linear model on " + features + " features of digits: " + trained);
    JsonNode file = JSON.readTree(model.toFile());
    assertEquals(4, file.get("version").asInt(), "every model is written as format version 4");
    assertEquals(features, file.get("preprocessing").get("feature_stage").get("features").asText());
    assertEquals("8x8", file.get("preprocessing").get("feature_stage").get("shape").asText());
    Cli p = Cli.run("predict", "--model", model.toString(), "--data", split[1].toString(), "--json");
    assertEquals(0, p.exit, p.toString());
    JsonNode pj = JSON.readTree(p.out);
    assertEquals(397, pj.get("rows").asInt());
    assertEquals(trained, pj.get("accuracy").asDouble(), 0.0, "predict replays the same features and weights");
    // Rows of the wrong length are refused with what the model takes.
    Path wide = dir.resolve("wide.csv");
    Files.writeString(wide, "1,2,3,4,0\n");
    Cli bad = Cli.run("predict", "--model", model.toString(), "--data", wide.toString());
    assertEquals(Main.INVALID_INPUT, bad.exit, bad.toString());
    assertTrue(bad.err.contains("64 pixels (8x8 images"), bad.err);
  }

  @Test
  void aFeatureSetBringsItsTunedDefaultsUnlessTheUserSetsThem() throws IOException {
    Path[] split = digitsSplit();
    Path tuned = dir.resolve("tuned.json");
    Path mine = dir.resolve("mine.json");
    String[] base = {"train", "--dataset", split[0].toString(), "--test", split[1].toString(), "--features", "hog",
        "--image-shape", "8x8", "--parties", "4", "--no-reference", "--quiet", "--cache-dir",
        dir.resolve("cache").toString()};
    assertEquals(0, Cli.run(concat(base, "-o", tuned.toString())).exit);
    assertEquals(0, Cli.run(concat(base, "--lambda", "0.7", "--epochs", "3", "-o", mine.toString())).exit);
    JsonNode t = JSON.readTree(tuned.toFile()).get("algorithm").get("settings").get("learner");
    // BlindAveragingDefaults.softmaxFor("hog"): chosen on the MNIST validation holdout (docs/defaults.md).
    assertEquals(1.0, t.get("lambda").asDouble());
    assertEquals(1.0, t.get("radius").asDouble());
    assertEquals(100, t.get("epochs").asInt());
    assertEquals(10, t.get("batch_size").asInt());
    JsonNode m = JSON.readTree(mine.toFile()).get("algorithm").get("settings").get("learner");
    assertEquals(0.7, m.get("lambda").asDouble(), "a value on the command line wins");
    assertEquals(3, m.get("epochs").asInt());
    assertEquals(10, m.get("batch_size").asInt(), "the others keep the feature set's defaults");
  }

  @Test
  void dataFeaturesComputesAheadAndThenReadsTheCache() throws IOException {
    String[] cmd = {"data", "features", "--dataset", TestData.path("digits.csv.gz").toString(), "--features", "hog",
        "--image-shape", "8x8", "--cache-dir", dir.resolve("cache").toString(), "--threads", "2", "--json"};
    Cli first = Cli.run(cmd);
    assertEquals(0, first.exit, first.toString());
    JsonNode j = JSON.readTree(first.out);
    assertEquals("hog", j.get("features").asText());
    assertEquals(36, j.get("feature_dimension").asInt());
    assertEquals(1797, j.get("train").get("images").asInt() + j.get("test").get("images").asInt());
    assertTrue(j.get("train").get("images_per_second").asDouble() > 0);
    try (var files = Files.list(dir.resolve("cache").resolve("features"))) {
      assertEquals(2, files.count(), "train and test features cached");
    }
    Cli again = Cli.run(cmd);
    assertEquals(0, again.exit, again.toString());
    try (var files = Files.list(dir.resolve("cache").resolve("features"))) {
      assertEquals(2, files.count(), "the second run reads the same files");
    }
  }

  @Test
  void publicFeatureBoundsScaleEveryFeatureAndTheModelReplaysThem() throws IOException {
    Path[] split = digitsSplit();
    Path model = dir.resolve("bounded.json");
    Cli t = Cli.run("train", "--dataset", split[0].toString(), "--test", split[1].toString(), "--feature-bounds",
        "0:16", "--parties", "4", "--epochs", "10", "--epsilon", "1e6", "--no-reference", "--quiet", "--json", "-o",
        model.toString());
    assertEquals(0, t.exit, t.toString());
    double trained = JSON.readTree(t.out).get("test_accuracy").asDouble();
    JsonNode file = JSON.readTree(model.toFile());
    assertEquals(4, file.get("version").asInt());
    JsonNode b = file.get("preprocessing").get("feature_bounds");
    assertEquals(64, b.get("lower").size());
    assertEquals(16.0, b.get("upper").get(63).asDouble());
    Cli p = Cli.run("predict", "--model", model.toString(), "--data", split[1].toString(), "--json");
    assertEquals(0, p.exit, p.toString());
    assertEquals(trained, JSON.readTree(p.out).get("accuracy").asDouble(), 0.0, "predict replays the scaling");
    Path bounds = dir.resolve("bounds.yaml");
    Files.writeString(bounds, "lower: 0\nupper: [1, 2]\n");
    Cli bad = Cli.run("train", "--dataset", split[0].toString(), "--feature-bounds", bounds.toString(), "--parties",
        "4", "--quiet");
    assertEquals(Main.INVALID_INPUT, bad.exit, bad.toString());
    assertTrue(bad.err.contains("one per feature (64)"), bad.err);
    Cli inverted = Cli.run("train", "--dataset", split[0].toString(), "--feature-bounds", "3:1", "--parties", "4",
        "--quiet");
    assertEquals(Main.INVALID_INPUT, inverted.exit, inverted.toString());
    assertTrue(inverted.err.contains("lower <= upper"), inverted.err);
  }

  private static String[] concat(String[] a, String... b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  @Test
  void imageFeaturesNeedAnImageShape() throws IOException {
    Path[] split = digitsSplit();
    Cli t = Cli.run("train", "--dataset", split[0].toString(), "--features", "scatter", "--parties", "4", "--quiet");
    assertEquals(Main.INVALID_INPUT, t.exit, t.toString());
    assertTrue(t.err.contains("--image-shape HxW"), t.err);
    Cli wrong = Cli.run("train", "--dataset", split[0].toString(), "--features", "hog", "--image-shape", "9x9",
        "--parties", "4", "--quiet");
    assertEquals(Main.INVALID_INPUT, wrong.exit, wrong.toString());
    assertTrue(wrong.err.contains("9x9"), wrong.err);
  }
}
