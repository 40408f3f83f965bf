package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.testdata.TestData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One source for every printed guarantee and outcome line (issue 21, item 3): the coordinator's
 * log, the coordinator's summary and every participant's summary print the same text, for a
 * released model (each guarantee) and for an abort (the reason). The coordinator runs in its own
 * process so that its log is captured with its summary.
 */
@org.junit.jupiter.api.Tag("integration")
class OutcomeLinesCliTest {
  private static Process coordinator(Path yaml, Path log) throws Exception {
    return new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), Main.class.getName(), "coordinator", "--config", yaml.toString(),
        "--status-listen", "none")).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static List<Cli> participants(Path dir, int port, int n) throws Exception {
    String iris = TestData.path("iris.csv").toString();
    List<CompletableFuture<Cli>> parts = new ArrayList<>();
    for (int k = 1; k <= n; k++) {
      String name = "participant-" + k;
      // A ledger per session: each session's budget is its own (a participant's default ledger would
      // refuse a second session of the same data at the default budget of one session's eps).
      parts.add(CompletableFuture.supplyAsync(() -> Cli.run("participant", "--coordinator", "127.0.0.1:" + port,
          "--data", iris, "--skip-rows", "1", "--tls-dir", dir.resolve("certs").toString(), "--name", name, "--ledger", dir.resolve(name + "-" + port + "-ledger.json").toString(),
          "--min-contributors", "3", "--honest-fraction", "1", "--wait", "60")));
    }
    List<Cli> out = new ArrayList<>();
    for (CompletableFuture<Cli> f : parts) {
      out.add(f.get(180, TimeUnit.SECONDS));
    }
    return out;
  }

  /** The text after {@code marker} on every line of {@code text} that holds it. */
  private static TreeSet<String> after(String text, String marker) {
    TreeSet<String> out = new TreeSet<>();
    text.lines().filter(l -> l.contains(marker)).forEach(l -> out.add(l.substring(l.indexOf(marker) + marker.length())
        .strip()));
    return out;
  }

  @Test
  void theLogTheSummaryAndEveryParticipantPrintTheSameGuaranteesAndTheSameAbortReason(@TempDir Path dir)
      throws Exception {
    assertEquals(0, Cli.run("certs", "--out", dir.resolve("certs").toString(), "--participants", "3").exit);

    // Released: each guarantee once per printer, word for word.
    int port = Loopback.freePort();
    Path yaml = NetworkCliTest.session(dir, port, "");
    Process c = coordinator(yaml, dir.resolve("released.log"));
    List<Cli> parts;
    try {
      parts = participants(dir, port, 3);
      assertTrue(c.waitFor(120, TimeUnit.SECONDS));
    } finally {
      c.destroyForcibly();
    }
    String log = Files.readString(dir.resolve("released.log"));
    assertEquals(0, c.exitValue(), log);
    TreeSet<String> summary = after(log, "  privacy  ");
    TreeSet<String> logged = after(log, "released the model of 3 contributors; ");
    assertFalse(summary.isEmpty(), log);
    assertEquals(summary, logged, log);
    for (Cli p : parts) {
      assertEquals(0, p.exit, p.toString());
      assertEquals(summary, after(p.out, "  released model: "), p.out);
    }

    // Aborted (two of three parties came before the enrolment deadline): one reason everywhere. The
    // deadline leaves room for two participants to start on a loaded machine (6 s was too short
    // with other JVMs on both cores: one of them came late).
    int port2 = Loopback.freePort();
    Path yaml2 = dir.resolve("abort.yaml");
    Files.writeString(yaml2, Files.readString(NetworkCliTest.session(dir, port2, "")).replace("enrolment_seconds: 60",
        "enrolment_seconds: 20").replace("dataset: iris", "dataset: iris-abort"));
    Process c2 = coordinator(yaml2, dir.resolve("aborted.log"));
    List<Cli> two;
    try {
      two = participants(dir, port2, 2);
      assertTrue(c2.waitFor(120, TimeUnit.SECONDS));
    } finally {
      c2.destroyForcibly();
    }
    String log2 = Files.readString(dir.resolve("aborted.log"));
    assertEquals(Main.SESSION_FAILED, c2.exitValue(), log2);
    TreeSet<String> reasons = new TreeSet<>();
    text(log2, reasons, " aborted: ");
    for (Cli p : two) {
      assertEquals(Main.SESSION_FAILED, p.exit, p.toString());
      reasons.addAll(after(p.out, "session aborted: "));
    }
    assertEquals(1, reasons.size(), "one reason, word for word: " + reasons + "\n" + log2);
    String reason = reasons.first();
    assertTrue(reason.contains("only 2 of 3 parties joined") && reason.contains("nothing was released")
        && !reason.contains("nothing was released; nothing was released"), reason);
  }

  /** Adds the reason of every "session ID aborted: REASON" line (the log's and the summary's). */
  private static void text(String log, TreeSet<String> reasons, String marker) {
    log.lines().filter(l -> l.contains("session ") && l.contains(marker))
        .forEach(l -> reasons.add(l.substring(l.indexOf(marker) + marker.length()).strip()));
    assertTrue(log.lines().filter(l -> l.contains(marker)).count() >= 2, "the log and the summary: " + log);
  }
}
