package dev.helmet.protocols.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.LabelSet;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.learn.SmoothnessBound;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.privacy.ledger.PrivacyLedger;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelFileTest {
  @TempDir Path dir;

  private static ReleasedModel model() {
    LinearModel w = new LinearModel(3, 3, new double[] {1, 2, 3, 4, 5, 6, 7, 8, -9.5e-7});
    PrivacyLedger ledger = new PrivacyLedger("helmet", "replace-one", "record", "Gaussian(sigma=7)", "gaussian-exact",
        0.5, 1e-5, Map.of("noise_multiplier", 7.03, "parties", 1000));
    return new ReleasedModel(w, new Preprocessing(10, true), LabelSet.of(List.of("a", "b", "c")), 2,
        new LearnerConfig(LearnerKind.SOFTMAX, 0.5, 2, 50, 10, SmoothnessBound.TIGHT, 0.1), ledger,
        Map.of("seed", 1, "dataset", "x"));
  }

  @Test
  void aWrittenModelReadsBackIdentically() throws IOException {
    Path p = dir.resolve("m.json");
    ReleasedModel m = model();
    ModelFile.write(m, p);
    ReleasedModel back = ModelFile.read(p);
    assertEquals(m.weights(), back.weights());
    assertEquals(m.preprocessing(), back.preprocessing());
    assertEquals(m.labels(), back.labels());
    assertEquals(m.learner(), back.learner());
    assertEquals(m.privacy().epsilon(), back.privacy().epsilon());
    assertEquals(7.03, back.privacy().details().get("noise_multiplier"));
    assertEquals("x", back.provenance().get("dataset"));
    try (var files = Files.list(dir)) {
      assertEquals(1, files.count(), "no temporary file is left behind");
    }
  }

  /**
   * A file written before the tight sensitivity bound existed has no {@code learner.sensitivity}:
   * its noise was sized with the papers' L, so it must read as PAPER, never as today's default.
   */
  @Test
  void aFileWithoutTheSensitivityKeyReadsAsThePapersBound() throws IOException {
    Path old = Path.of("src/test/resources/fixtures/models/0.1.0-SNAPSHOT/helmet.json");
    assertEquals(dev.helmet.core.learn.SensitivityBound.PAPER, ModelFile.read(old).learner().sensitivity());
    for (var b : dev.helmet.core.learn.SensitivityBound.values()) {
      Path p = dir.resolve(b + ".json");
      ModelFile.write(withLearner(model(), model().learner().withSensitivity(b)), p);
      assertEquals(b, ModelFile.read(p).learner().sensitivity());
      assertTrue(Files.readString(p).contains("\"sensitivity\" : \"" + b.name().toLowerCase(java.util.Locale.ROOT)
          + "\""), "written as " + b);
    }
  }

  private static ReleasedModel withLearner(ReleasedModel m, LearnerConfig c) {
    return new ReleasedModel(m.weights(), m.preprocessing(), m.labels(), m.features(), c, m.privacy(),
        m.provenance());
  }

  /**
   * A model of another algorithm (here wd-dp) does not carry Helmet's learner hyperparameters, which
   * it never used: its learner section names the kind and points at provenance.algorithm_config.
   */
  @Test
  void anotherAlgorithmsModelDoesNotClaimHelmetsHyperparameters() throws IOException {
    ReleasedModel h = model();
    ReleasedModel m = new ReleasedModel(h.weights(), h.preprocessing(), h.labels(), h.features(), h.learner(),
        h.privacy(), Map.of("algorithm", "wd-dp", "algorithm_config", Map.of("wd_dp", Map.of("steps", 50))));
    Path p = dir.resolve("w.json");
    ModelFile.write(m, p);
    var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(p.toFile());
    assertEquals(3, tree.get("version").asInt());
    assertEquals("softmax", tree.get("learner").get("kind").asText());
    assertTrue(tree.get("learner").get("lambda") == null, tree.toString());
    assertEquals("provenance.algorithm_config", tree.get("learner").get("settings").asText());
    ReleasedModel back = ModelFile.read(p);
    assertEquals(LearnerKind.SOFTMAX, back.learner().kind());
    assertEquals(m.weights(), back.weights());
    // A Helmet model keeps its hyperparameters and its old version.
    ModelFile.write(h, p);
    assertEquals(1, new com.fasterxml.jackson.databind.ObjectMapper().readTree(p.toFile()).get("version").asInt());
  }

  /** An MLP model writes its layer widths and parameters and reads back predicting the same. */
  @Test
  void anMlpModelReadsBackIdentically() throws IOException {
    dev.helmet.core.nn.Mlp net = new dev.helmet.core.nn.Mlp(2, 4, 3);
    dev.helmet.core.nn.MlpModel mlp = new dev.helmet.core.nn.MlpModel(net, net.initialise(7));
    ReleasedModel m = new ReleasedModel(mlp, new Preprocessing(10, true), LabelSet.of(List.of("a", "b", "c")), 2,
        dev.helmet.protocols.helmet.HelmetDefaults.learner(LearnerKind.MLP), model().privacy(),
        Map.of("algorithm", "smm"));
    Path p = dir.resolve("mlp.json");
    ModelFile.write(m, p);
    var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(p.toFile());
    assertEquals(3, tree.get("version").asInt());
    assertEquals("[2,4,3]", tree.get("weights").get("widths").toString());
    ReleasedModel back = ModelFile.read(p);
    assertEquals(mlp, back.weights());
    dev.helmet.core.data.Dataset x = new dev.helmet.core.data.Dataset("x", new float[] {1, 2, -3, 0.5f}, new int[2],
        2, LabelSet.of(List.of("a", "b", "c")), null);
    assertArrayEquals(m.predict(x), back.predict(x));
    // Widths that do not match the number of values are refused, naming both.
    Files.writeString(p, Files.readString(p).replace("\"widths\" : [ 2, 4, 3 ]", "\"widths\" : [ 2, 5, 3 ]"));
    ModelFormatException e = assertThrows(ModelFormatException.class, () -> ModelFile.read(p));
    assertTrue(e.getMessage().contains("2-5-3"), e.getMessage());
  }

  /** A regression model keeps its public target bounds and predicts in the target's units. */
  @Test
  void aRegressionModelReadsBackWithItsTargetBounds() throws IOException {
    LinearModel w = new LinearModel(1, 3, new double[] {0.5, 0.25, -0.25});
    PrivacyLedger ledger = new PrivacyLedger("wd-dp", "replace-one", "record", "50 x Gaussian", "gaussian", 1, 1e-5,
        Map.of());
    Preprocessing pre = new Preprocessing(1, false, null, new dev.helmet.core.preprocess.TargetScaling(0, 50));
    ReleasedModel m = new ReleasedModel(w, pre, dev.helmet.core.data.TabularData.NO_CLASSES, 2,
        new LearnerConfig(LearnerKind.LINREG, 1, 1, 50, 10, SmoothnessBound.TIGHT, 0.1), ledger, Map.of());
    Path p = dir.resolve("r.json");
    ModelFile.write(m, p);
    ReleasedModel back = ModelFile.read(p);
    assertEquals(pre, back.preprocessing());
    assertTrue(back.regression());
    dev.helmet.core.data.Dataset x = new dev.helmet.core.data.Dataset("x", new float[] {0, 0}, new int[1], 2,
        dev.helmet.core.data.TabularData.NO_CLASSES, null);
    // score 0.5 on [1, 0, 0] -> 0 + (0.5 + 1) * 50 / 2 = 37.5
    assertEquals(37.5, back.values(x)[0], 1e-12);
  }

  private void assertRejected(String json, String expected) throws IOException {
    Path p = dir.resolve("bad.json");
    Files.writeString(p, json);
    ModelFormatException e = assertThrows(ModelFormatException.class, () -> ModelFile.read(p));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void malformedModelsNameTheProblem() throws IOException {
    String good = ModelFile.toJson(model()).toString();
    assertRejected("{not json", "not valid JSON");
    assertRejected("[]", "JSON object");
    assertRejected(good.replace("\"helmet-model\"", "\"other\""), "format is 'other'");
    assertRejected(good.replace("\"version\":1", "\"version\":99"), "version 99 is not supported");
    assertRejected(good.replace("\"lambda\":0.5", "\"lambda\":-1"), "lambda must be > 0");
    assertRejected(good.replace("\"rows\":3", "\"rows\":2"), "weights are 2 x 3 but 9 values");
    assertRejected(good.replace("\"features\":2,", ""), "missing field 'features'");
    assertRejected(good.replace("\"features\":2", "\"features\":5"), "columns for 5 features");
    assertThrows(ModelFormatException.class, () -> ModelFile.read(dir.resolve("absent.json")));
  }
}
