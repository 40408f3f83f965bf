package dev.helmet.protocols.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.LinearModel;
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

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** Helmet's settings for a softmax learner, in its canonical form's shape. */
  private static ObjectNode helmetSettings(String sensitivity) {
    ObjectNode o = JSON.createObjectNode();
    o.putObject("learner").put("kind", "softmax").put("lambda", 0.5).put("radius", 2.0).put("epochs", 50)
        .put("batch_size", 10).put("smoothness", "tight").put("huber_h", 0.1).put("sensitivity", sensitivity);
    o.put("noise", "discrete");
    return o;
  }

  private static ReleasedModel model() {
    LinearModel w = new LinearModel(3, 3, new double[] {1, 2, 3, 4, 5, 6, 7, 8, -9.5e-7});
    PrivacyLedger ledger = new PrivacyLedger("helmet", "replace-one", "record", "Gaussian(sigma=7)", "gaussian-exact",
        0.5, 1e-5, Map.of("noise_multiplier", 7.03, "parties", 1000));
    return new ReleasedModel(w, new Preprocessing(10, true), LabelSet.of(List.of("a", "b", "c")), 2,
        LearnerKind.SOFTMAX, "helmet", helmetSettings("tight"), ledger, Map.of("seed", 1, "dataset", "x"), null);
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
    assertEquals(LearnerKind.SOFTMAX, back.kind());
    assertEquals("helmet", back.algorithm());
    assertEquals(helmetSettings("tight"), back.settings());
    assertEquals(m.privacy().epsilon(), back.privacy().epsilon());
    assertEquals(7.03, back.privacy().details().get("noise_multiplier"));
    assertEquals("x", back.provenance().get("dataset"));
    try (var files = Files.list(dir)) {
      assertEquals(1, files.count(), "no temporary file is left behind");
    }
  }

  /** The record keeps its own copy of the settings: changing the caller's tree changes nothing. */
  @Test
  void theSettingsAreTheModelsOwn() {
    ObjectNode mine = helmetSettings("tight");
    ReleasedModel m = new ReleasedModel(model().weights(), model().preprocessing(), model().labels(), 2,
        LearnerKind.SOFTMAX, "helmet", mine, null, Map.of(), null);
    mine.put("noise", "changed");
    m.settings().put("noise", "changed too");
    assertEquals("discrete", m.settings().get("noise").asText());
  }

  /**
   * A file written before the tight sensitivity bound existed has no {@code learner.sensitivity}:
   * its noise was sized with the papers' L, so it must read as paper, never as today's default;
   * a version 4 file keeps whichever bound its settings name.
   */
  @Test
  void aFileWithoutTheSensitivityKeyReadsAsThePapersBound() throws IOException {
    Path old = Path.of("src/test/resources/fixtures/models/0.1.0-SNAPSHOT/helmet.json");
    ReleasedModel read = ModelFile.read(old);
    assertEquals("paper", read.settings().get("learner").get("sensitivity").asText());
    assertEquals("helmet", read.algorithm());
    for (String b : List.of("tight", "paper")) {
      Path p = dir.resolve(b + ".json");
      ReleasedModel m = model();
      ModelFile.write(new ReleasedModel(m.weights(), m.preprocessing(), m.labels(), m.features(), m.kind(),
          m.algorithm(), helmetSettings(b), m.privacy(), m.provenance(), null), p);
      assertEquals(b, ModelFile.read(p).settings().get("learner").get("sensitivity").asText());
    }
  }

  /**
   * Version 4 records every algorithm's own settings and names only the kind in the learner section;
   * a version 3 file of another algorithm (its settings in provenance.algorithm_config, its learner
   * section the kind and a pointer) reads as version 4 would record it.
   */
  @Test
  void everyAlgorithmsModelRecordsItsOwnSettings() throws IOException {
    ReleasedModel h = model();
    ObjectNode wd = JSON.createObjectNode();
    wd.putObject("wd_dp").put("steps", 50).put("weighting", "size");
    ReleasedModel m = new ReleasedModel(h.weights(), h.preprocessing(), h.labels(), h.features(), LearnerKind.SOFTMAX,
        "wd-dp", wd, h.privacy(), Map.of("algorithm", "wd-dp"), null);
    Path p = dir.resolve("w.json");
    ModelFile.write(m, p);
    var tree = JSON.readTree(p.toFile());
    assertEquals(4, tree.get("version").asInt());
    assertEquals("wd-dp", tree.get("algorithm").get("id").asText());
    assertEquals(wd, tree.get("algorithm").get("settings"));
    assertEquals(JSON.createObjectNode().put("kind", "softmax"), tree.get("learner"), "the learner section is the kind");
    ReleasedModel back = ModelFile.read(p);
    assertEquals("wd-dp", back.algorithm());
    assertEquals(wd, back.settings());
    assertEquals(m.weights(), back.weights());

    // The same model as version 3 wrote it.
    ObjectNode v3 = (ObjectNode) tree.deepCopy();
    v3.put("version", 3);
    v3.remove("algorithm");
    ((ObjectNode) v3.get("learner")).put("settings", "provenance.algorithm_config");
    ((ObjectNode) v3.get("provenance")).set("algorithm_config", wd);
    ReleasedModel legacy = ModelFile.fromJson(v3, "v3.json");
    assertEquals("wd-dp", legacy.algorithm());
    assertEquals(wd, legacy.settings());
    assertEquals(LearnerKind.SOFTMAX, legacy.kind());
  }

  /**
   * Version 1 and 2 files hold Helmet's learner hyperparameters in the learner section: they read as
   * Helmet's settings, merged into provenance.algorithm_config where a runner put one.
   */
  @Test
  void aVersion1FileReadsAsHelmetsSettings() throws IOException {
    ObjectNode v1 = (ObjectNode) ModelFile.toJson(model());
    v1.put("version", 1);
    v1.remove("algorithm");
    ObjectNode l = v1.putObject("learner");
    l.put("kind", "softmax").put("lambda", 0.5).put("radius", 2).put("epochs", 50).put("batch_size", 10)
        .put("smoothness", "tight").put("huber_h", 0.1);
    ((ObjectNode) v1.get("provenance")).set("algorithm_config", JSON.createObjectNode().put("noise", "discrete"));
    ReleasedModel m = ModelFile.fromJson(v1, "v1.json");
    assertEquals("helmet", m.algorithm(), "no algorithm named: Helmet's");
    assertEquals(helmetSettings("paper"), m.settings(), "no sensitivity key: the papers' bound");
  }

  /** An MLP model writes its layer widths and parameters and reads back predicting the same. */
  @Test
  void anMlpModelReadsBackIdentically() throws IOException {
    dev.helmet.core.nn.Mlp net = new dev.helmet.core.nn.Mlp(2, 4, 3);
    dev.helmet.core.nn.MlpModel mlp = new dev.helmet.core.nn.MlpModel(net, net.initialise(7));
    ReleasedModel m = new ReleasedModel(mlp, new Preprocessing(10, true), LabelSet.of(List.of("a", "b", "c")), 2,
        LearnerKind.MLP, "smm", JSON.createObjectNode(), model().privacy(), Map.of("algorithm", "smm"), null);
    Path p = dir.resolve("mlp.json");
    ModelFile.write(m, p);
    var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(p.toFile());
    assertEquals(4, tree.get("version").asInt());
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
    ReleasedModel m = new ReleasedModel(w, pre, dev.helmet.core.data.TabularData.NO_CLASSES, 2, LearnerKind.LINREG,
        "wd-dp", JSON.createObjectNode(), ledger, Map.of(), null);
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
    assertRejected(good.replace("\"version\":4", "\"version\":99"), "version 99 is not supported");
    assertRejected(good.replace("\"version\":4", "\"version\":0"), "version 0 is not supported");
    assertRejected(good.replace("\"algorithm\":{\"id\":\"helmet\",", "\"algorithm\":{"), "missing field 'id'");
    assertRejected(good.replace("\"algorithm\":{", "\"algorithm_was\":{"), "missing field 'algorithm'");
    assertRejected(good.replace("\"learner\":{\"kind\":\"softmax\"}", "\"learner\":{\"kind\":\"tree\"}"),
        "learner:");
    // A legacy (version 1) learner section is still checked field by field.
    String v1 = good.replace("\"version\":4", "\"version\":1").replace("\"learner\":{\"kind\":\"softmax\"}",
        "\"learner\":{\"kind\":\"softmax\",\"lambda\":-1,\"radius\":2,\"epochs\":50,\"batch_size\":10,"
            + "\"smoothness\":\"tight\",\"huber_h\":0.1}");
    assertRejected(v1, "lambda must be > 0");
    assertRejected(good.replace("\"rows\":3", "\"rows\":2"), "weights are 2 x 3 but 9 values");
    assertRejected(good.replace("\"features\":2,", ""), "missing field 'features'");
    assertRejected(good.replace("\"features\":2", "\"features\":5"), "columns for 5 features");
    assertThrows(ModelFormatException.class, () -> ModelFile.read(dir.resolve("absent.json")));
  }
}
