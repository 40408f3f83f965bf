package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.store.Store;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.CoordinatorMessage.BodyCase;
import dev.helmet.transport.wire.SessionConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fault test of issue 21: the coordinator process is killed (SIGKILL) during enrolment or
 * during a round and started again, by its operator, on the same port and database. Participants
 * that wait for it ({@code --wait}) join the restarted coordinator's session by themselves and
 * finish there; no command is typed again. Both ledgers stay consistent: the coordinator's refunds
 * the lost session (nothing was released) and charges the new one once; each participant's charges
 * what it sent, by its own accounting (a lost session in which it sent its input stays charged,
 * since it cannot know what the coordinator did with it), and the new session once.
 */
@org.junit.jupiter.api.Tag("integration")
class CoordinatorRideOutTest {
  private static final Dataset DIGITS = TestData.digits();

  /** A killed first coordinator, its successor on the same port and database, and the participants' runs. */
  private record Killed(SessionConfig config, int w, String firstSession, List<Loopback.Outcome> outs,
      List<LocalLedger> ledgers, CompletableFuture<Coordinator> successor) {}

  /**
   * Starts a coordinator process, kills it (SIGKILL) when the first participant receives {@code
   * killAt}, has the operator start it again, and runs every participant to its end, each with its
   * own ledger of {@code budget}.
   */
  private static Killed killAndRestart(String algorithm, BodyCase killAt, Path dir, double budget) throws Exception {
    boolean dpfl = algorithm.equals("dp-fl");
    int w = dpfl ? 4 : 8;
    int min = dpfl ? w : w - 2;
    SessionConfig config = dpfl ? CoordinatorProcess.dpflConfig(w, min)
        : Loopback.config(DIGITS, w, min, 1e6).build();
    int port;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    Process first = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), CoordinatorProcess.class.getName(), dir.toString(),
        String.valueOf(w), String.valueOf(min), algorithm, String.valueOf(port))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    CompletableFuture<Coordinator> successor = new CompletableFuture<>();
    String firstSession;
    List<Loopback.Outcome> outs;
    List<LocalLedger> ledgers = new ArrayList<>();
    try {
      BufferedReader in = new BufferedReader(new InputStreamReader(first.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("PORT " + port, in.readLine().trim());
      firstSession = in.readLine().replace("SESSION ", "").trim();
      // The operator: once the first coordinator is dead, starts it again on the same port and database.
      Thread operator = new Thread(() -> {
        try {
          first.waitFor();
          successor.complete(Coordinator.start(Loopback.onPort(Loopback.settings(config, dir, null, 1.5e6), port)));
        } catch (Exception | Error e) {
          successor.completeExceptionally(e);
        }
      }, "operator");
      operator.setDaemon(true);
      operator.start();
      AtomicBoolean killed = new AtomicBoolean();
      Participant.Hook kill = new Participant.Hook() {
        @Override
        public void received(CoordinatorMessage m, io.grpc.ManagedChannel channel) {
          boolean roundTwo = !m.hasRoundStart() || m.getRoundStart().getRound() == 2;
          if (m.getBodyCase() == killAt && roundTwo && killed.compareAndSet(false, true)) {
            first.destroyForcibly(); // SIGKILL: no shutdown hook, no cleanup
          }
        }
      };
      for (int i = 0; i < w; i++) {
        ledgers.add(new LocalLedger(dir.resolve("ledger-" + i + ".json"), budget, 1e-3));
      }
      outs = Loopback.participants(port, Loopback.shards(DIGITS, w, 60, 9), null, i -> null,
          ParticipantPolicy.upTo(1e7), i -> kill, ledgers::get, 120);
      assertTrue(killed.get(), "the coordinator was killed");
    } finally {
      first.destroyForcibly();
    }
    return new Killed(config, w, firstSession, outs, ledgers, successor);
  }

  /**
   * Security review turn 3, T3-1, on a real restart: a participant whose ledger has room for one
   * session (budget 1.5e6, eps 1e6 per session) sent its input before the coordinator was killed;
   * it does not send again in the restarted session, and says why (its local budget).
   */
  @org.junit.jupiter.api.Test
  void aParticipantWhoseBudgetHoldsOneSessionDoesNotSendAgainAfterTheRestart(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    Killed k = killAndRestart("helmet", BodyCase.UNMASKING_REQUEST, dir, 1.5e6);
    try (Coordinator c = k.successor().get(60, TimeUnit.SECONDS)) {
      for (int i = 0; i < k.w(); i++) {
        Loopback.Outcome o = k.outs().get(i);
        assertNotNull(o.error(), "participant " + i + " joined the restarted session beyond its budget");
        assertTrue(o.error().getMessage().contains("the local budget (eps = 1500000"), o.error().getMessage());
        List<JsonNode> entries = k.ledgers().get(i).entries();
        assertEquals(1, entries.size(), entries::toString);
        assertEquals(k.firstSession(), entries.get(0).path("session").asText());
        assertEquals("spent", entries.get(0).path("status").asText(), entries::toString);
      }
      assertEquals(0, c.live().enrolled(), "nobody enrolled in the restarted session");
    }
  }

  @ParameterizedTest(name = "{0}, killed at the first {1}")
  @CsvSource({"helmet, ENROLLED", "helmet, UNMASKING_REQUEST", "dp-fl, ROUND_START"})
  void participantsFinishInTheRestartedCoordinatorsSessionWithConsistentLedgers(String algorithm, BodyCase killAt,
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    boolean dpfl = algorithm.equals("dp-fl");
    Killed k = killAndRestart(algorithm, killAt, dir, 3e6);
    SessionConfig config = k.config();
    int w = k.w();
    String firstSession = k.firstSession();
    List<Loopback.Outcome> outs = k.outs();
    List<LocalLedger> ledgers = k.ledgers();
    CompletableFuture<Coordinator> successor = k.successor();
    try (Coordinator c = successor.get(60, TimeUnit.SECONDS)) {
      Coordinator.Result r = c.await(120, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      assertNotEquals(firstSession, c.sessionId());
      for (Loopback.Outcome o : outs) {
        assertNull(o.error(), () -> "no command typed again, yet: " + o.error());
        assertTrue(o.result().completed(), o.result().reason());
      }
      assertEquals(w, r.contributors().size(), "every participant came back");

      // The coordinator's ledger: the lost session recorded as aborted, refunded unless rounds were
      // released (DP-FL releases each round's sum: killed when round 2 opens, rounds 0 and 1 stay
      // charged); the new session charged once; no model of the lost session.
      Store s = c.store();
      assertEquals("ABORTED", s.session(firstSession).get("STATUS"));
      assertNull(s.releasedModel(firstSession));
      var lost = s.ledgerEntry(firstSession);
      assertEquals(dpfl ? "SPENT" : "REFUNDED", lost.get("STATUS"));
      assertEquals("SPENT", s.ledgerEntry(c.sessionId()).get("STATUS"));
      BigDecimal lostCharge = dpfl ? new BigDecimal(lost.get("EPSILON").toString()) : BigDecimal.ZERO;
      BigDecimal used = s.used(config.getDataset())[0];
      assertEquals(0, used.compareTo(lostCharge.add(BigDecimal.valueOf(r.epsilon()))),
          "the dataset is charged the lost session's released rounds and the new session once: " + used);
      if (dpfl) {
        assertEquals(2, ((Number) lost.get("RELEASED_ROUNDS")).intValue());
      }

      // Each participant's own ledger: two entries; the lost session refunded if it sent nothing,
      // else spent at its own eps for the rounds it sent; the new session spent at the eps its
      // result reports (its own accounting).
      boolean sentBeforeKill = killAt != BodyCase.ENROLLED;
      for (int i = 0; i < w; i++) {
        List<JsonNode> entries = ledgers.get(i).entries();
        assertEquals(2, entries.size(), entries::toString);
        assertEquals(firstSession, entries.get(0).path("session").asText());
        assertEquals(sentBeforeKill ? "spent" : "refunded", entries.get(0).path("status").asText(),
            entries::toString);
        if (sentBeforeKill) {
          assertTrue(entries.get(0).path("rounds").asInt() >= 1);
          assertTrue(entries.get(0).path("epsilon").asDouble() > 0);
        }
        assertEquals(c.sessionId(), entries.get(1).path("session").asText());
        assertEquals("spent", entries.get(1).path("status").asText());
        assertEquals(outs.get(i).result().epsilon(), entries.get(1).path("epsilon").asDouble(), 0);
        assertNotNull(outs.get(i).result().model());
      }
    }
  }
}
