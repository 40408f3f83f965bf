package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.store.BudgetExceededException;
import dev.helmet.transport.store.Store;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.CoordinatorMessage.BodyCase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The coordinator dies (SIGKILL) mid-round and is started again on the same database. */
@org.junit.jupiter.api.Tag("integration")
class CoordinatorRestartTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final int W = 10;

  /**
   * The coordinator process is killed while round 2 (masked inputs) is under way. Its successor
   * finds the unfinished session, records it as aborted and refunds its reservation: no partial
   * result was released. The session is then run again and completes; the ledger holds exactly one
   * charge (the second run's), and a third run that would exceed the budget is refused.
   */
  /** A coordinator in its own JVM on {@code dir}'s database (W parties, W - 2 contributors). */
  private static Process coordinatorProcess(Path dir) throws java.io.IOException {
    return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), CoordinatorProcess.class.getName(), dir.toString(),
        String.valueOf(W), String.valueOf(W - 2))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
  }

  @Test
  void aKilledCoordinatorReleasesNothingAndTheSessionRunsAgainWithAConsistentLedger(@TempDir Path dir)
      throws Exception {
    Process child = coordinatorProcess(dir);
    String firstSession;
    try {
      BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      int port = Integer.parseInt(in.readLine().replace("PORT ", "").trim());
      firstSession = in.readLine().replace("SESSION ", "").trim();
      AtomicBoolean killed = new AtomicBoolean();
      Participant.Hook killCoordinator = new Participant.Hook() {
        @Override
        public void received(CoordinatorMessage m, io.grpc.ManagedChannel channel) {
          if (m.getBodyCase() == BodyCase.SHARE_DELIVERY && killed.compareAndSet(false, true)) {
            child.destroyForcibly(); // SIGKILL: no shutdown hook, no cleanup
          }
        }
      };
      List<Loopback.Outcome> outs = Loopback.participants(port, Loopback.shards(DIGITS, W, 60, 9),
          LongStream.range(0, W).boxed().toList(), i -> null, ParticipantPolicy.upTo(1e7), i -> killCoordinator);
      assertTrue(killed.get());
      for (Loopback.Outcome o : outs) {
        assertNotNull(o.error(), "every participant loses its coordinator");
      }
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    } finally {
      child.destroyForcibly();
    }

    var config = Loopback.config(DIGITS, W, W - 2, 1e6).build();
    double charged;
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, null, 1.5e6))) {
      Store s = c.store();
      assertEquals("ABORTED", s.session(firstSession).get("STATUS"));
      assertTrue(String.valueOf(s.session(firstSession).get("REASON")).contains("the coordinator stopped during"),
          String.valueOf(s.session(firstSession).get("REASON")));
      assertEquals("REFUNDED", s.ledgerEntry(firstSession).get("STATUS"));
      assertNull(s.releasedModel(firstSession), "no partial result is released");

      List<Loopback.Outcome> outs = Loopback.participants(c.port(), Loopback.shards(DIGITS, W, 60, 9),
          LongStream.range(0, W).boxed().toList(), i -> null, ParticipantPolicy.upTo(1e7), i -> Participant.Hook.NONE);
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      for (Loopback.Outcome o : outs) {
        assertNull(o.error(), () -> String.valueOf(o.error()));
      }
      assertEquals("SPENT", s.ledgerEntry(c.sessionId()).get("STATUS"));
      assertNotNull(s.releasedModel(c.sessionId()));
      BigDecimal[] used = s.used(config.getDataset());
      assertEquals(0, used[0].compareTo(BigDecimal.valueOf(r.epsilon())), "exactly one charge: " + used[0]);
      charged = r.epsilon();
    }
    // The ledger charges the eps achieved (here below the target, as all parties contributed); a
    // budget that leaves less than the next session's target is refused before anyone trains.
    try (Store s = Store.open("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath(), "", "")) {
      s.setBudget(config.getDataset(), charged + 0.9e6, 1e-3, "test: less than the next session needs");
    }
    BudgetExceededException e = assertThrows(BudgetExceededException.class,
        () -> Coordinator.start(Loopback.settings(config, dir, null, Double.NaN)).close());
    assertTrue(e.getMessage().contains("digits"), e.getMessage());
  }

  /**
   * SIGTERM during enrolment (what Ctrl-C does): the coordinator records the abort and returns the
   * reservation before its database closes (H2's own shutdown hook used to close it first, leaving
   * the session enrolling with its budget reserved and the failed update's stack trace in a stray
   * .trace.db).
   */
  @Test
  void aStoppedCoordinatorRecordsTheAbortAndRefundsBeforeItsDatabaseCloses(@TempDir Path dir) throws Exception {
    Process child = coordinatorProcess(dir);
    try {
      BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertTrue(in.readLine().startsWith("PORT "));
      child.destroy(); // SIGTERM
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the coordinator stopped");
    } finally {
      child.destroyForcibly();
    }
    try (Store s = Store.open("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath(), "", "")) {
      assertEquals("ABORTED", s.sessions().get(0).get("STATUS"));
      assertTrue(String.valueOf(s.sessions().get(0).get("REASON")).contains("stopped"));
      assertEquals(0, s.used("digits")[0].signum(), "the reservation was returned");
    }
  }

  /**
   * A second coordinator on the database another coordinator process holds is refused at once,
   * saying why and what to do (it used to print H2's raw error and exit 1).
   */
  @Test
  void aSecondCoordinatorOnTheSameDatabaseIsRefusedInWords(@TempDir Path dir) throws Exception {
    Process child = coordinatorProcess(dir);
    try {
      BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertTrue(in.readLine().startsWith("PORT "));
      var config = Loopback.config(TestData.digits(), 3, 3, 1).build();
      var e = assertThrows(dev.helmet.transport.store.DatabaseInUseException.class,
          () -> Coordinator.start(Loopback.settings(config, dir, null, 10)).close());
      assertTrue(e.getMessage().contains("in use by another process") && e.getMessage().contains("one coordinator "
          + "per database") && !e.getMessage().contains("DB_CLOSE_ON_EXIT"), e.getMessage());
      assertTrue(child.isAlive(), "the first coordinator runs on");
    } finally {
      child.destroyForcibly();
      child.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /**
   * A coordinator that cannot listen (the port is taken) fails at start saying so, and leaves its
   * database consistent: the session recorded as aborted and nothing reserved.
   */
  @Test
  void aPortInUseFailsAtStartWithNothingReserved(@TempDir Path dir) throws Exception {
    var config = Loopback.config(TestData.digits(), 3, 3, 1).build();
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      Coordinator.Settings s = Loopback.settings(config, dir, null, 10);
      Coordinator.Settings busy = new Coordinator.Settings(s.config(), s.host(), taken.getLocalPort(), s.tls(),
          s.databaseUrl(), s.databaseUser(), s.databasePassword(), s.budgetEpsilon(), s.budgetDelta(),
          s.uploadSlots());
      java.io.IOException e = assertThrows(java.io.IOException.class, () -> Coordinator.start(busy).close());
      assertTrue(e.getMessage().contains("cannot listen on 127.0.0.1:" + taken.getLocalPort())
          && e.getMessage().contains("not charged"), e.getMessage());
    }
    try (Store s = Store.open("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath(), "", "")) {
      assertEquals(0, s.used("digits")[0].signum(), "nothing reserved");
      assertEquals("ABORTED", s.sessions().get(0).get("STATUS"));
    }
  }

  /**
   * A DP-FL coordinator is killed (SIGKILL) when round k opens, after k rounds' sums were released.
   * Its successor charges exactly those k rounds (release 0.1 refunded them all), nothing for k = 0.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "killed when round {0} opens")
  @org.junit.jupiter.params.provider.ValueSource(ints = {0, 1, 2})
  void aKilledDpFlCoordinatorsReleasedRoundsStayCharged(int killAt, @TempDir Path dir) throws Exception {
    int w = 4;
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), CoordinatorProcess.class.getName(), dir.toString(),
        String.valueOf(w), String.valueOf(w), "dp-fl")
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String session;
    try {
      BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      int port = Integer.parseInt(in.readLine().replace("PORT ", "").trim());
      session = in.readLine().replace("SESSION ", "").trim();
      AtomicBoolean killed = new AtomicBoolean();
      Participant.Hook killCoordinator = new Participant.Hook() {
        @Override
        public void received(CoordinatorMessage m, io.grpc.ManagedChannel channel) {
          if (m.hasRoundStart() && m.getRoundStart().getRound() == killAt && killed.compareAndSet(false, true)) {
            child.destroyForcibly();
          }
        }
      };
      Loopback.participants(port, Loopback.shards(DIGITS, w, 60, 9), null, i -> null, ParticipantPolicy.upTo(1e7),
          i -> killCoordinator);
      assertTrue(killed.get());
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    } finally {
      child.destroyForcibly();
    }
    try (Store s = Store.open("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath(), "", "")) {
      List<String> recovered = s.recover();
      assertEquals(1, recovered.size(), recovered::toString);
      Map<String, Object> entry = s.ledgerEntry(session);
      assertEquals(killAt == 0 ? "REFUNDED" : "SPENT", entry.get("STATUS"));
      assertEquals(killAt, ((Number) entry.get("RELEASED_ROUNDS")).intValue());
      int[] sizes = {60, 60, 60, 60};
      double released = SessionPlan.spec(CoordinatorProcess.dpflConfig(w, w)).plan(sizes, w).charge().epsilon(killAt);
      if (killAt > 0) {
        assertEquals(released, ((Number) entry.get("EPSILON")).doubleValue(), 0);
      }
      assertNull(s.releasedModel(session));
    }
  }
}
