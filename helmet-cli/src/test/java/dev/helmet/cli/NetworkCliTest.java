package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.testdata.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** helmet certs, coordinator and participant as a user runs them (in-process, real sockets and TLS). */
@org.junit.jupiter.api.Tag("integration")
class NetworkCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static int freePort() throws Exception {
    return Loopback.freePort();
  }

  static Path session(Path dir, int port, String extra) throws Exception {
    Path yaml = dir.resolve("session.yaml");
    Files.writeString(yaml, String.join("\n",
        "name: iris-test",
        "dataset: iris",
        "parties: 3",
        "min_contributors: 3",
        "features: 4",
        "labels: [0, 1, 2]",
        // DP-FL reads only the preprocessing from learner: and refuses Helmet's local epochs there.
        extra.contains("algorithm: dp-fl") ? "learner: {kind: softmax}" : "learner: {kind: softmax, epochs: 5}",
        "privacy: {epsilon: 1.0, delta: 1.0e-5, honest_fraction: 1.0}",
        "deadlines: {enrolment_seconds: 60, round_seconds: 30}",
        "listen: 127.0.0.1:" + port,
        "tls: {certificate: certs/coordinator.pem, key: certs/coordinator-key.pem, ca: certs/ca.pem}",
        "budget: {epsilon: 1.5, delta: 1.0e-4}",
        extra, ""));
    return yaml;
  }

  @Test
  void aCoordinatorAndThreeParticipantsReleaseAModelAndTheBudgetRefusesASecondSession(@TempDir Path dir)
      throws Exception {
    Cli certs = Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "3");
    assertEquals(0, certs.exit, certs.toString());
    assertEquals("rw-------", PosixFilePermissions.toString(
        Files.getPosixFilePermissions(dir.resolve("certs/participant-2-key.pem"))));
    int port = freePort();
    Path yaml = session(dir, port, "");
    CompletableFuture<Cli> coordinator = CompletableFuture.supplyAsync(() -> Cli.run("coordinator", "--config",
        yaml.toString(), "--json", "-o", dir.resolve("model.json").toString()));
    String iris = TestData.path("iris.csv").toString();
    // A participant whose policy forbids eps = 1 refuses, saying why (exit 4), and does not join.
    Cli refusing = Loopback.onceReachable("participant", "--coordinator", "127.0.0.1:" + port, "--data", iris,
        "--skip-rows", "1", "--tls-dir", dir.resolve("certs").toString(), "--name", "participant-1", "--no-ledger",
        "--max-epsilon", "0.5");
    assertEquals(Main.SESSION_FAILED, refusing.exit, refusing.toString());
    assertTrue(refusing.err.contains("refusing to join") && refusing.err.contains("accepts at most 0.5"),
        refusing.err);
    // Its phases, one line each, up to the refusal.
    assertTrue(refusing.err.contains("connecting to the coordinator at 127.0.0.1:" + port)
        && refusing.err.contains("target eps = 1"), refusing.err);
    List<CompletableFuture<Cli>> parts = new ArrayList<>();
    for (int k = 1; k <= 3; k++) {
      String name = "participant-" + k;
      // participant-1 keeps the default ledger (in its ledger directory), the others a file they name
      List<String> ledger = k == 1 ? List.of("--ledger-dir", dir.resolve("ledgers").toString())
          : List.of("--ledger", dir.resolve(name + "-ledger.json").toString());
      List<String> args = new ArrayList<>(List.of("participant", "--coordinator", "127.0.0.1:" + port,
          "--data", iris, "--skip-rows", "1", "--tls-dir", dir.resolve("certs").toString(), "--name", name,
          "--min-contributors", "3", "--honest-fraction", "1", "--json"));
      args.addAll(ledger);
      parts.add(CompletableFuture.supplyAsync(() -> Cli.run(args.toArray(new String[0]))));
    }
    List<JsonNode> partyGuarantees = new ArrayList<>();
    for (CompletableFuture<Cli> f : parts) {
      Cli p = f.get(120, TimeUnit.SECONDS);
      assertEquals(0, p.exit, p.toString());
      JsonNode j = JSON.readTree(p.out);
      partyGuarantees.add(j.at("/privacy/guarantees"));
      assertEquals("completed", j.get("status").asText());
      assertEquals(3, j.get("contributors").asInt());
      // One session with input: the run's total is the session's own eps (T3-1).
      assertEquals(1, j.get("sessions_with_inputs").asInt());
      assertEquals(j.get("epsilon").asDouble(), j.get("epsilon_run_total").asDouble(), 1e-12);
      // A named ledger is reported by its path, the default one by its directory only (its file name
      // is a keyed digest of the records, and the summary may leave the machine).
      Path book = Path.of(j.get("ledger").asText());
      if (Files.isDirectory(book)) {
        assertFalse(j.toString().matches(".*[0-9a-f]{32}\\.json.*"), j.toString());
        try (var in = Files.list(book)) {
          book = in.filter(file -> file.toString().endsWith(".json")).findFirst().orElseThrow();
        }
      }
      assertTrue(Files.isRegularFile(book), "no ledger at " + book);
      assertTrue(Files.readString(book).contains("\"spent\""), Files.readString(book));
      // With --json each phase is one JSON object per line on stderr, in order.
      List<String> events = new ArrayList<>();
      for (String line : p.err.lines().filter(l -> l.startsWith("{")).toList()) {
        JsonNode event = JSON.readTree(line);
        events.add(event.get("event").asText());
        if (event.get("event").asText().equals("roster")) {
          // the eps it commits to names whom it holds against: the released model's audience
          assertEquals(j.at("/privacy/guarantees/0/against").asText(), event.get("against").asText(), line);
        }
      }
      assertEquals(j.at("/privacy/guarantees/0/against").asText(), j.get("against").asText());
      for (String kind : List.of("connecting", "session", "preparing", "training", "prepared", "joined", "roster",
          "round", "sent", "outcome")) {
        assertTrue(events.contains(kind), kind + " missing from " + events);
      }
      assertTrue(events.indexOf("joined") < events.indexOf("roster")
          && events.indexOf("roster") < events.indexOf("round") && events.indexOf("round") < events.indexOf("sent"),
          events.toString());
    }
    // The default ledger: one file for the data in the ledger directory, named by a keyed digest.
    try (var files = Files.list(dir.resolve("ledgers"))) {
      List<String> names = files.map(f -> f.getFileName().toString()).sorted().toList();
      assertTrue(names.contains("ledgers.key") && names.stream().anyMatch(n -> n.matches("[0-9a-f]{32}\\.json")),
          names.toString());
    }
    Cli c = coordinator.get(120, TimeUnit.SECONDS);
    assertEquals(0, c.exit, c.toString());
    JsonNode j = JSON.readTree(c.out);
    assertEquals("completed", j.get("status").asText());
    assertTrue(j.get("epsilon").asDouble() <= 1.0);
    assertEquals(j.at("/privacy/guarantees/0/against").asText(), j.get("against").asText());
    // One source for every printed guarantee: each participant's own derivation of the released
    // model's guarantees says exactly what the coordinator's --json says (who, relation, eps, delta).
    assertTrue(j.at("/privacy/guarantees").size() >= 1, j.toString());
    for (JsonNode g : partyGuarantees) {
      assertEquals(j.at("/privacy/guarantees"), g);
    }
    assertTrue(Files.size(dir.resolve("model.json")) > 0);
    Cli predict = Cli.run("predict", "--model", dir.resolve("model.json").toString(), "--data", iris, "--skip-rows",
        "1", "--json");
    assertEquals(0, predict.exit, predict.toString());

    // Each participant's JSON names its own accounting, at least the coordinator's (all contributed).
    // 1 of 1.5 is spent: a second session of eps = 1 would exceed the data set's budget.
    Cli second = Cli.run("coordinator", "--config", session(dir, freePort(), "").toString());
    assertEquals(Main.SESSION_FAILED, second.exit, second.toString());
    assertTrue(second.err.contains("privacy budget of data set 'iris'"), second.err);

    // Editing the session file does not reset the budget (release 0.1 overwrote it): a different
    // budget is refused, and only `helmet budget set` changes it, with a recorded reason.
    Path raised = session(dir, freePort(), "");
    Files.writeString(raised, Files.readString(raised).replace("budget: {epsilon: 1.5", "budget: {epsilon: 10"));
    Cli edited = Cli.run("coordinator", "--config", raised.toString());
    assertEquals(Main.SESSION_FAILED, edited.exit, edited.toString());
    assertTrue(edited.err.contains("helmet budget set"), edited.err);
    Cli set = Cli.run("budget", "set", "--config", raised.toString(), "--epsilon", "3", "--delta", "1e-4",
        "--reason", "a second cohort joined");
    assertEquals(0, set.exit, set.toString());
    assertTrue(set.out.contains("changed from (eps = 1.5"), set.out);
    Cli show = Cli.run("budget", "show", "--config", raised.toString(), "--json");
    assertEquals(0, show.exit, show.toString());
    JsonNode b = JSON.readTree(show.out);
    assertEquals(3.0, b.get("budget").get("epsilon").asDouble());
    assertEquals(2, b.get("history").size());
    assertEquals("a second cohort joined", b.get("history").get(1).get("reason").asText());
  }

  @Test
  void aSessionFileWithAnUnknownKeyIsRejectedNamingIt(@TempDir Path dir) throws Exception {
    Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "1");
    Path yaml = session(dir, freePort(), "privacy_budget: 3");
    Cli c = Cli.run("coordinator", "--config", yaml.toString());
    assertEquals(Main.INVALID_INPUT, c.exit, c.toString());
    assertTrue(c.errorLine().contains("unknown key privacy_budget"), c.err);
    Files.writeString(yaml, Files.readString(yaml).replace("privacy_budget: 3", "")
        .replace("epsilon: 1.0, delta: 1.0e-5, honest", "epsilon: -1, delta: 1.0e-5, honest"));
    c = Cli.run("coordinator", "--config", yaml.toString());
    assertEquals(Main.INVALID_INPUT, c.exit, c.toString());
    assertTrue(c.errorLine().contains("privacy.epsilon must be in"), c.err);
  }

  /** A DP-FL session from a session file: the coordinator and three participants, as a user runs them. */
  @Test
  void aDpFlSessionRunsItsRoundsAndReleasesAModel(@TempDir Path dir) throws Exception {
    assertEquals(0, Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "3").exit);
    int port = freePort();
    Path yaml = session(dir, port, "algorithm: dp-fl\ndpfl: {sampling_rate: 0.5, rounds: 4, learning_rate: 1}");
    CompletableFuture<Cli> coordinator = CompletableFuture.supplyAsync(() -> Cli.run("coordinator", "--config",
        yaml.toString(), "--json", "-o", dir.resolve("model.json").toString()));
    String iris = TestData.path("iris.csv").toString();
    List<CompletableFuture<Cli>> parts = new ArrayList<>();
    for (int k = 1; k <= 3; k++) {
      String name = "participant-" + k;
      parts.add(CompletableFuture.supplyAsync(() -> {
        try {
          return Loopback.onceReachable("participant", "--coordinator", "127.0.0.1:" + port, "--data", iris,
              "--skip-rows", "1", "--tls-dir", dir.resolve("certs").toString(), "--name", name, "--ledger", dir.resolve(name + "-ledger.json").toString(),
              "--min-contributors", "3", "--honest-fraction", "1", "--allow-float-noise", "--json");
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }));
    }
    for (CompletableFuture<Cli> f : parts) {
      Cli p = f.get(120, TimeUnit.SECONDS);
      assertEquals(0, p.exit, p.toString());
      assertEquals("completed", JSON.readTree(p.out).get("status").asText());
    }
    Cli c = coordinator.get(120, TimeUnit.SECONDS);
    assertEquals(0, c.exit, c.toString());
    JsonNode model = JSON.readTree(dir.resolve("model.json").toFile());
    assertTrue(model.toString().contains("dp-fl (federated DP-SGD"), model.toString());
    assertTrue(JSON.readTree(c.out).get("epsilon").asDouble() <= 1.0);
  }

  @Test
  void dpFlKeysAreCheckedNamingTheKey(@TempDir Path dir) throws Exception {
    Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "1");
    String[][] cases = {
        {"dpfl: {rounds: 3}", "unknown key dpfl"},
        {"algorithm: dp-fl\ndpfl: {rounds: 3, epochs: 2}", "dpfl.rounds and dpfl.epochs are alternatives"},
        {"algorithm: dp-fl\ndpfl: {round: 3}", "unknown key dpfl.round"},
        {"algorithm: dp-fl\ndpfl: {sampling_rate: 2}", "dpfl.sampling_rate must be in"},
        {"algorithm: dpfl", "algorithm names an unknown algorithm 'dpfl'; known: helmet, dp-fl"},
        {"algorithm: dpfl", "(did you mean dp-fl?)"},
        {"targets: numeric", "labels a session with numeric targets (regression) has no labels"},
        {"targets: numbers", "targets must be classes or numeric"},
    };
    for (String[] k : cases) {
      Cli c = Cli.run("coordinator", "--config", session(dir, freePort(), k[0]).toString());
      assertEquals(Main.INVALID_INPUT, c.exit, c.toString());
      assertTrue(c.errorLine().contains(k[1]), k[1] + " not in: " + c.err);
    }
  }

  /**
   * The status page's token from a file (the attacker's read of T3-4: a --status-token on the
   * command line is visible to every local user); both at once, or an empty file, are refused
   * before anything starts.
   */
  @Test
  void theStatusTokenComesFromAFileAndConflictingOptionsAreRefused(@TempDir Path dir) throws Exception {
    Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "1");
    Path yaml = session(dir, freePort(), "");
    Path empty = Files.writeString(dir.resolve("empty.token"), "\n");
    Cli both = Cli.run("coordinator", "--config", yaml.toString(), "--status-token", "a", "--status-token-file",
        empty.toString());
    assertEquals(Main.INVALID_INPUT, both.exit, both.toString());
    assertTrue(both.errorLine().contains("not both"), both.err);
    Cli none = Cli.run("coordinator", "--config", yaml.toString(), "--status-token-file", empty.toString());
    assertEquals(Main.INVALID_INPUT, none.exit, none.toString());
    assertTrue(none.errorLine().contains("holds no token"), none.err);
  }
}
