package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.testdata.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A networked session with a feature stage: the session file names it, every participant computes
 * it on its own raw images, the released model records it and predicts on raw images.
 */
@org.junit.jupiter.api.Tag("integration")
class NetworkFeaturesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void participantsComputeThePublishedFeatureStageOnTheirOwnRawImages(@TempDir Path dir) throws Exception {
    Cli certs = Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "3");
    assertEquals(0, certs.exit, certs.toString());
    int port = Loopback.freePort();
    Path yaml = dir.resolve("session.yaml");
    Files.writeString(yaml, String.join("\n",
        "name: digits-hog",
        "dataset: digits",
        "parties: 3",
        "min_contributors: 3",
        "feature_stage: hog", // no `features:` -- the stage's output dimension is implied
        "image_shape: 8x8",
        "labels: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]",
        "learner: {kind: softmax, epochs: 10}",
        "privacy: {epsilon: 1.0, delta: 1.0e-5, honest_fraction: 1.0}",
        "deadlines: {enrolment_seconds: 60, round_seconds: 30}",
        "listen: 127.0.0.1:" + port,
        "tls: {certificate: certs/coordinator.pem, key: certs/coordinator-key.pem, ca: certs/ca.pem}",
        "budget: {epsilon: 1.5, delta: 1.0e-4}", ""));
    CompletableFuture<Cli> coordinator = CompletableFuture.supplyAsync(() -> Cli.run("coordinator", "--config",
        yaml.toString(), "--json", "-o", dir.resolve("model.json").toString()));
    String digits = TestData.path("digits.csv.gz").toString();
    // A participant that takes part only with raw features refuses, naming the session's stage.
    Cli refusing = Loopback.onceReachable("participant", "--coordinator", "127.0.0.1:" + port, "--data", digits,
        "--tls-dir",
          dir.resolve("certs").toString(), "--name", "participant-1", "--features", "raw", "--no-ledger");
    assertEquals(Main.SESSION_FAILED, refusing.exit, refusing.toString());
    assertTrue(refusing.err.contains("the session computes hog features"), refusing.err);
    List<CompletableFuture<Cli>> parts = new ArrayList<>();
    for (int k = 1; k <= 3; k++) {
      String name = "participant-" + k;
      parts.add(CompletableFuture.supplyAsync(() -> Cli.run("participant", "--coordinator", "127.0.0.1:" + port,
          "--data", digits, "--tls-dir", dir.resolve("certs").toString(), "--name", name, "--ledger", dir.resolve(name + "-ledger.json").toString(), "--min-contributors", "3",
          "--honest-fraction", "1", "--features", "hog,scatter", "--json")));
    }
    for (CompletableFuture<Cli> f : parts) {
      Cli p = f.get(120, TimeUnit.SECONDS);
      assertEquals(0, p.exit, p.toString());
      assertEquals("completed", JSON.readTree(p.out).get("status").asText());
    }
    Cli c = coordinator.get(120, TimeUnit.SECONDS);
    assertEquals(0, c.exit, c.toString());
    JsonNode model = JSON.readTree(dir.resolve("model.json").toFile());
    assertEquals("hog", model.get("preprocessing").get("feature_stage").get("features").asText());
    assertEquals(36, model.get("features").asInt(), "hog on 8x8: 1 block x 4 cells x 9 bins");
    Cli predict = Cli.run("predict", "--model", dir.resolve("model.json").toString(), "--data", digits, "--json");
    assertEquals(0, predict.exit, predict.toString());
    double acc = JSON.readTree(predict.out).get("accuracy").asDouble();
    // HOG of 8x8 digits with one block is a weak feature set; chance is 10 %. The noise is fresh
    // from SecureRandom at eps 1, so the accuracy varies from run to run: 0.35 to 0.68 in five runs
    // (0.35 failed the earlier bound of 0.4 once); 0.25 is still 2.5 times chance.
    assertTrue(acc > 0.25, "accuracy " + acc);
  }
}
