package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code helmet ledger --config}: the coordinator's ledger, read while a coordinator process holds
 * its H2 database (through that coordinator's status page), and a session a killed coordinator left
 * open settled by the operator (issue 21, item 6).
 */
@org.junit.jupiter.api.Tag("integration")
class LedgerCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theCoordinatorsLedgerIsShownWhileItRunsAndAStaleSessionIsSettledAfterACrash(@TempDir Path dir)
      throws Exception {
    assertEquals(0, Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "3").exit);
    Path yaml = NetworkCliTest.session(dir, Loopback.freePort(), "");
    Path discovery = dir.resolve("helmet-coordinator.status.json");
    Process coordinator = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "coordinator", "--config",
        yaml.toString())).redirectErrorStream(true).redirectOutput(dir.resolve("coordinator.log").toFile()).start();
    String session;
    try {
      for (int i = 0; i < 600 && !Files.exists(discovery); i++) {
        Thread.sleep(100);
      }
      assertTrue(Files.exists(discovery), () -> "the coordinator wrote no status address: " + log(dir));
      assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
          Files.getPosixFilePermissions(discovery)));

      Cli shown = Cli.run("ledger", "show", "--config", yaml.toString(), "--json");
      assertEquals(0, shown.exit, shown.toString());
      JsonNode j = JSON.readTree(shown.out);
      assertTrue(j.path("source").asText().startsWith("the running coordinator"), shown.out);
      assertEquals("iris", j.path("dataset").asText());
      assertEquals(1.5, j.path("budget").path("epsilon").asDouble());
      assertEquals(1, j.path("entries").size(), shown.out);
      JsonNode entry = j.path("entries").get(0);
      session = entry.path("session").asText();
      assertEquals("reserved", entry.path("status").asText());
      assertEquals("enrolling", entry.path("session_status").asText());
      assertEquals(1.0, entry.path("epsilon").asDouble());
      assertEquals(0.5, j.path("left_epsilon").asDouble(), 1e-12);

      Cli text = Cli.run("ledger", "show", "--config", yaml.toString());
      assertEquals(0, text.exit, text.toString());
      assertTrue(text.out.contains("data set 'iris' (the running coordinator") && text.out.contains(session)
          && text.out.contains("reserved while it runs"), text.out);

      // `budget show` reads the same report while the coordinator runs (it used to fail, exit 4);
      // `budget set`, which writes the database, waits for it to stop, and says so.
      Cli budget = Cli.run("budget", "show", "--config", yaml.toString(), "--json");
      assertEquals(0, budget.exit, budget.toString());
      JsonNode b = JSON.readTree(budget.out);
      assertEquals(1.5, b.path("budget").path("epsilon").asDouble());
      assertEquals(1.0, b.path("used").path("epsilon").asDouble());
      assertEquals(1, b.path("history").size(), budget.out);
      assertTrue(b.path("source").asText().startsWith("the running coordinator"), budget.out);
      Cli budgetText = Cli.run("budget", "show", "--config", yaml.toString());
      assertEquals(0, budgetText.exit, budgetText.toString());
      assertTrue(budgetText.out.contains("data set 'iris': budget (eps = 1.5") && budgetText.out.contains("(read from "
          + "the running coordinator"), budgetText.out);
      Cli set = Cli.run("budget", "set", "--config", yaml.toString(), "--epsilon", "3", "--delta", "1e-4", "--reason",
          "while it runs");
      assertEquals(Main.SESSION_FAILED, set.exit, set.toString());
      assertTrue(set.err.contains("run it once that coordinator stops"), set.err);

      // From where its status page does not answer (another host): the same condition, the same exit
      // code 4 for both commands (it was 1, an internal error, for `ledger show`), saying what to do.
      String where = Files.readString(discovery);
      Files.writeString(discovery, where.replaceFirst("\"url\"\\s*:\\s*\"[^\"]*\"",
          "\"url\": \"http://127.0.0.1:" + Loopback.freePort() + "/\""));
      try {
        for (String command : List.of("ledger", "budget")) {
          Cli away = Cli.run(command, "show", "--config", yaml.toString());
          assertEquals(Main.SESSION_FAILED, away.exit, away.toString());
          assertTrue(away.err.contains("is in use by another process") && away.err.contains("does not answer from "
              + "here") && away.err.contains("run this on the coordinator's machine"), away.err);
          assertFalse(away.err.contains("internal error"), away.err);
        }
      } finally {
        Files.writeString(discovery, where);
      }

      // The session a coordinator runs is not stale: settling it is refused while the coordinator holds it.
      Cli early = Cli.run("ledger", "settle", "--config", yaml.toString(), "--session", session, "--reason", "test");
      assertEquals(Main.SESSION_FAILED, early.exit, early.toString());
      assertTrue(early.err.contains("the session it runs is not stale"), early.err);
    } finally {
      coordinator.destroyForcibly(); // SIGKILL: nothing settles the session
      assertTrue(coordinator.waitFor(30, TimeUnit.SECONDS));
    }

    // After the crash the database is free: the stale session shows as reserved and is settled.
    Cli stale = Cli.run("ledger", "show", "--config", yaml.toString(), "--json");
    assertEquals(0, stale.exit, stale.toString());
    JsonNode left = JSON.readTree(stale.out);
    assertTrue(left.path("source").asText().startsWith("jdbc:h2:file:"), stale.out);
    assertEquals("reserved", left.path("entries").get(0).path("status").asText());
    Cli settled = Cli.run("ledger", "settle", "--config", yaml.toString(), "--session", session, "--reason",
        "coordinator host lost", "--json");
    assertEquals(0, settled.exit, settled.toString());
    assertEquals("refunded", JSON.readTree(settled.out).path("status").asText());
    JsonNode after = JSON.readTree(Cli.run("ledger", "show", "--config", yaml.toString(), "--json").out);
    assertEquals("refunded", after.path("entries").get(0).path("status").asText());
    assertEquals("aborted", after.path("entries").get(0).path("session_status").asText());
    assertEquals(0, after.path("used").path("epsilon").asDouble());
    Cli twice = Cli.run("ledger", "settle", "--config", yaml.toString(), "--session", session, "--reason", "again");
    assertEquals(2, twice.exit, twice.toString());
    assertTrue(twice.err.contains("is aborted; only an unfinished session can be settled"), twice.err);
    Cli both = Cli.run("ledger", "show", "--config", yaml.toString(), "--ledger", dir.resolve("x.json").toString());
    assertEquals(2, both.exit, both.toString());
    assertTrue(both.err.contains("give either --ledger FILE"), both.err);
  }

  private static String log(Path dir) {
    try {
      return Files.readString(dir.resolve("coordinator.log"));
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
