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

/** wd-dp over gRPC with the same code as in-process: coordinator, three participants, a released model. */
@org.junit.jupiter.api.Tag("integration")
class NetworkWdDpTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aWdDpSessionReleasesAModelWhoseLedgerSaysWhoItProtectsAgainst(@TempDir Path dir) throws Exception {
    assertEquals(0, Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "3").exit);
    int port = Loopback.freePort();
    Path yaml = dir.resolve("session.yaml");
    Files.writeString(yaml, String.join("\n",
        "name: iris-wd-dp",
        "dataset: iris",
        "algorithm: wd-dp",
        "parties: 3",
        "min_contributors: 3",
        "features: 4",
        "labels: [0, 1, 2]",
        "wd_dp: {steps: 50}",
        "privacy: {epsilon: 1.0, delta: 1.0e-5, honest_fraction: 1.0}",
        "deadlines: {enrolment_seconds: 60, round_seconds: 30}",
        "listen: 127.0.0.1:" + port,
        "tls: {certificate: certs/coordinator.pem, key: certs/coordinator-key.pem, ca: certs/ca.pem}",
        "budget: {epsilon: 1.5, delta: 1.0e-4}", ""));
    CompletableFuture<Cli> coordinator = CompletableFuture.supplyAsync(() -> Cli.run("coordinator", "--config",
        yaml.toString(), "--json", "-o", dir.resolve("model.json").toString()));
    String iris = TestData.path("iris.csv").toString();
    // The step noise is floating point: a participant that requires exact noise refuses, saying so.
    Cli refusing = Loopback.onceReachable("participant", "--coordinator", "127.0.0.1:" + port, "--data", iris,
        "--skip-rows", "1",
          "--tls-dir", dir.resolve("certs").toString(), "--name", "participant-1", "--no-ledger");
    assertEquals(Main.SESSION_FAILED, refusing.exit, refusing.toString());
    assertTrue(refusing.err.contains("refusing to join"), refusing.err);
    List<CompletableFuture<Cli>> parts = new ArrayList<>();
    for (int k = 1; k <= 3; k++) {
      String name = "participant-" + k;
      parts.add(CompletableFuture.supplyAsync(() -> Cli.run("participant", "--coordinator", "127.0.0.1:" + port,
          "--data", iris, "--skip-rows", "1", "--tls-dir", dir.resolve("certs").toString(), "--name", name, "--ledger", dir.resolve(name + "-ledger.json").toString(),
          "--min-contributors", "3", "--honest-fraction", "1", "--allow-float-noise", "--test", iris, "--json")));
    }
    for (CompletableFuture<Cli> f : parts) {
      Cli p = f.get(120, TimeUnit.SECONDS);
      assertEquals(0, p.exit, p.toString());
      JsonNode j = JSON.readTree(p.out);
      assertEquals("completed", j.get("status").asText());
      assertTrue(j.get("epsilon").asDouble() <= 1.0 + 1e-9, "its own accounting: " + j);
      // --test: the released model on the party's own held-out rows, with train --json's keys.
      double acc = j.get("local_evaluation").get("test_accuracy").asDouble();
      assertTrue(acc >= 0 && acc <= 1, j.toString());
      assertTrue(j.get("local_evaluation").get("note").asText().contains("no guarantee"), j.toString());
    }
    Cli c = coordinator.get(120, TimeUnit.SECONDS);
    assertEquals(0, c.exit, c.toString());
    JsonNode model = JSON.readTree(dir.resolve("model.json").toFile());
    assertEquals("wd-dp", model.get("provenance").get("algorithm").asText());
    String against = model.get("privacy").get("guarantees").get(0).get("against").asText();
    assertTrue(against.contains("colluding with up to 2 parties"), "each party's own noise protects it: " + against);
    Cli predict = Cli.run("predict", "--model", dir.resolve("model.json").toString(), "--data", iris, "--skip-rows",
        "1", "--json");
    assertEquals(0, predict.exit, predict.toString());
  }

  /**
   * A regression session over gRPC: the session says {@code targets: numeric} with public target
   * bounds, each participant's label column is read as numbers, and the released model predicts
   * values in the target's units.
   */
  @Test
  void aRegressionSessionReleasesALinearModel(@TempDir Path dir) throws Exception {
    assertEquals(0, Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "3").exit);
    StringBuilder csv = new StringBuilder("a,b,c,y\n");
    java.util.SplittableRandom r = new java.util.SplittableRandom(1);
    for (int i = 0; i < 600; i++) {
      double a = 2 * r.nextDouble() - 1;
      double b = 2 * r.nextDouble() - 1;
      csv.append(String.format(java.util.Locale.ROOT, "%.4f,%.4f,%.4f,%.4f%n", a, b, 2 * r.nextDouble() - 1,
          10 + 5 * (a - b) + 0.3 * r.nextGaussian()));
    }
    Path data = dir.resolve("rows.csv");
    Files.writeString(data, csv);
    int port = Loopback.freePort();
    Path yaml = dir.resolve("session.yaml");
    Files.writeString(yaml, String.join("\n",
        "name: synthetic-regression",
        "dataset: synthetic",
        "algorithm: wd-dp",
        "parties: 3",
        "min_contributors: 3",
        "features: 3",
        "targets: numeric",
        "learner: {target_bounds: {lower: 0, upper: 20}, feature_bounds: {lower: -1, upper: 1}}",
        "wd_dp: {steps: 100}",
        "privacy: {epsilon: 5.0, delta: 1.0e-5, honest_fraction: 1.0}",
        "deadlines: {enrolment_seconds: 60, round_seconds: 30}",
        "listen: 127.0.0.1:" + port,
        "tls: {certificate: certs/coordinator.pem, key: certs/coordinator-key.pem, ca: certs/ca.pem}",
        "budget: {epsilon: 6, delta: 1.0e-4}", ""));
    CompletableFuture<Cli> coordinator = CompletableFuture.supplyAsync(() -> Cli.run("coordinator", "--config",
        yaml.toString(), "--json", "-o", dir.resolve("model.json").toString()));
    List<CompletableFuture<Cli>> parts = new ArrayList<>();
    for (int k = 1; k <= 3; k++) {
      String name = "participant-" + k;
      parts.add(CompletableFuture.supplyAsync(() -> Cli.run("participant", "--coordinator", "127.0.0.1:" + port,
          "--data", data.toString(), "--tls-dir", dir.resolve("certs").toString(), "--name", name, "--ledger", dir.resolve(name + "-ledger.json").toString(),
          "--min-contributors", "3", "--honest-fraction", "1", "--allow-float-noise", "--max-epsilon", "6",
          "--learners", "linreg", "--test", data.toString(), "--json")));
    }
    for (CompletableFuture<Cli> f : parts) {
      Cli p = f.get(120, TimeUnit.SECONDS);
      assertEquals(0, p.exit, p.toString());
      JsonNode j = JSON.readTree(p.out);
      assertEquals("completed", j.get("status").asText());
      assertTrue(j.get("local_evaluation").get("test_accuracy").isNull(), j.toString());
      assertTrue(j.get("local_evaluation").get("test_r2").asDouble() > 0.3, "a useful fit at eps 5: " + j);
    }
    Cli c = coordinator.get(120, TimeUnit.SECONDS);
    assertEquals(0, c.exit, c.toString());
    JsonNode model = JSON.readTree(dir.resolve("model.json").toFile());
    assertEquals("linreg", model.get("learner").get("kind").asText());
    // The model records wd-dp's own settings (format version 4), not Helmet's hyperparameters.
    assertEquals("wd-dp", model.get("algorithm").get("id").asText());
    assertTrue(model.get("algorithm").get("settings").has("wd_dp"), model.toString());
    assertTrue(model.get("learner").get("lambda") == null, "no Helmet hyperparameters: " + model.get("learner"));
    assertEquals(20.0, model.get("preprocessing").get("target_bounds").get("upper").asDouble());
    Cli predict = Cli.run("predict", "--model", dir.resolve("model.json").toString(), "--data", data.toString(),
        "--json");
    assertEquals(0, predict.exit, predict.toString());
    JsonNode p = JSON.readTree(predict.out);
    assertEquals(600, p.get("predictions").size());
    assertTrue(p.get("r2").asDouble() > 0.3, "a useful fit at eps 5: " + p);
  }
}
