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
 * smm over gRPC with the same code as in-process: a coordinator and three participants train an MLP
 * through SecAgg in a 10-bit ring; each participant accounts its own eps and the model file holds
 * the MLP.
 */
@org.junit.jupiter.api.Tag("integration")
class NetworkSmmTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void anSmmSessionTrainsAnMlpInASmallRing(@TempDir Path dir) throws Exception {
    assertEquals(0, Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "3").exit);
    int port = Loopback.freePort();
    Path yaml = dir.resolve("session.yaml");
    Files.writeString(yaml, String.join("\n",
        "name: iris-smm",
        "dataset: iris",
        "algorithm: smm",
        "parties: 3",
        "min_contributors: 3",
        "features: 4",
        "labels: [0, 1, 2]",
        "learner: {kind: mlp, hidden: [8]}",
        "smm: {bits: 10, gamma: 64, sampling_rate: 0.2, expected_batch: 90, rounds: 6, learning_rate: 0.02}",
        "privacy: {epsilon: 4.0, delta: 1.0e-5, honest_fraction: 1.0}",
        "deadlines: {enrolment_seconds: 60, round_seconds: 30}",
        "listen: 127.0.0.1:" + port,
        "tls: {certificate: certs/coordinator.pem, key: certs/coordinator-key.pem, ca: certs/ca.pem}",
        "budget: {epsilon: 5, delta: 1.0e-4}", ""));
    CompletableFuture<Cli> coordinator = CompletableFuture.supplyAsync(() -> Cli.run("coordinator", "--config",
        yaml.toString(), "--json", "-o", dir.resolve("model.json").toString()));
    String iris = TestData.path("iris.csv").toString();
    // A participant that trains only linear models refuses, naming the learner.
    Cli refusing = Loopback.onceReachable("participant", "--coordinator", "127.0.0.1:" + port, "--data", iris,
        "--skip-rows", "1", "--tls-dir", dir.resolve("certs").toString(), "--name", "participant-1", "--no-ledger",
        "--honest-fraction", "1", "--max-epsilon", "4", "--min-contributors", "3");
    assertEquals(Main.SESSION_FAILED, refusing.exit, refusing.toString());
    assertTrue(refusing.err.contains("mlp"), refusing.err);
    List<CompletableFuture<Cli>> parts = new ArrayList<>();
    for (int k = 1; k <= 3; k++) {
      String name = "participant-" + k;
      parts.add(CompletableFuture.supplyAsync(() -> Cli.run("participant", "--coordinator", "127.0.0.1:" + port,
          "--data", iris, "--skip-rows", "1", "--tls-dir", dir.resolve("certs").toString(), "--name", name, "--ledger", dir.resolve(name + "-ledger.json").toString(),
          "--min-contributors", "3", "--honest-fraction", "1", "--max-epsilon", "4", "--learners", "mlp",
          "--test", iris, "--json")));
    }
    for (CompletableFuture<Cli> f : parts) {
      Cli p = f.get(120, TimeUnit.SECONDS);
      assertEquals(0, p.exit, p.toString());
      JsonNode j = JSON.readTree(p.out);
      assertEquals("completed", j.get("status").asText());
      double eps = j.get("epsilon").asDouble();
      assertTrue(eps <= 4 + 1e-9 && eps > 3.5, "its own accounting of 6 rounds: " + j);
      // 6 rounds of 128 coordinates (83 parameters padded) at 10 bits: 160 bytes of masked input each.
      assertTrue(j.get("bytes_sent").asLong() > 6 * 160, j.toString());
      assertTrue(j.get("local_evaluation").get("test_accuracy").asDouble() >= 0, j.toString());
    }
    Cli c = coordinator.get(120, TimeUnit.SECONDS);
    assertEquals(0, c.exit, c.toString());
    JsonNode model = JSON.readTree(dir.resolve("model.json").toFile());
    assertEquals("smm", model.get("provenance").get("algorithm").asText());
    assertEquals("[4,8,3]", model.get("weights").get("widths").toString());
    assertEquals("mlp", model.get("learner").get("kind").asText());
    Cli predict = Cli.run("predict", "--model", dir.resolve("model.json").toString(), "--data", iris, "--skip-rows",
        "1", "--json");
    assertEquals(0, predict.exit, predict.toString());
  }
}
