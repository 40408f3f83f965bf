package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.Outcome;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalLedgerTest {
  /** Cheap enough that two rounds fit the reservations below (a commit may cost no more than its reservation). */
  private static final PrivacyCharge CHARGE = new PrivacyCharge("gaussian", new GaussianDpEvent(20), 3, 1e-5, 1e-5,
      "replace one record", "record");

  /**
   * Security review turn 3, T3-6 (built on its {@code LedgerRacePocTest}): two runs of one data
   * holder on one ledger each read, checked and wrote it with no lock between them, so both
   * reserved the whole budget (137 of 200 races) and the file then kept one entry (131). Now
   * reservations against one file are exclusive: of two racing for a budget of 1 at eps 1 each,
   * exactly one wins, and the file keeps it.
   */
  @Test
  void twoLedgersOnOneFileNeverBothReserveTheWholeBudget(@TempDir Path dir) throws Exception {
    for (int t = 0; t < 100; t++) {
      Path file = dir.resolve("ledger-" + t + ".json");
      LocalLedger a = new LocalLedger(file, 1.0, 1e-4);
      LocalLedger b = new LocalLedger(file, 1.0, 1e-4);
      java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
      String[] why = new String[2];
      Thread ta = new Thread(() -> why[0] = race(go, a, "session-a"));
      Thread tb = new Thread(() -> why[1] = race(go, b, "session-b"));
      ta.start();
      tb.start();
      go.countDown();
      ta.join(30_000);
      tb.join(30_000);
      assertTrue((why[0] == null) != (why[1] == null), "race " + t + ": " + java.util.Arrays.toString(why));
      assertEquals(1, new LocalLedger(file, 1.0, 1e-4).entries().size(), "race " + t);
    }
  }

  /**
   * A ledger path that is a symbolic link is followed, not replaced by the first write: the
   * attacker's read of T3-6 had one ledger split into the link's name and the target's, each with its
   * own lock, and 1.9 reserved against a budget of 1.
   */
  @Test
  void aLedgerReachedThroughALinkStaysOneLedger(@TempDir Path dir) throws Exception {
    Path real = dir.resolve("real.json");
    Path link = dir.resolve("link.json");
    assertNull(new LocalLedger(real, 1.0, 1e-4).reserve("s1", 0.6, 1e-5));
    Files.createSymbolicLink(link, real);
    String why = new LocalLedger(link, 1.0, 1e-4).reserve("s2", 0.6, 1e-5);
    assertTrue(why != null && why.contains("has (eps = 0.6"), "the link's ledger did not see the target's entry: " + why);
    assertTrue(Files.isSymbolicLink(link), "the link was replaced");
    assertNull(new LocalLedger(link, 1.0, 1e-4).reserve("s3", 0.3, 1e-5));
    assertEquals(2, new LocalLedger(real, 1.0, 1e-4).entries().size());
  }

  /** A commit whose rounds would cost more than the session reserved is refused before the input leaves. */
  @Test
  void aCommitCostingMoreThanTheReservationIsRefused(@TempDir Path dir) {
    LocalLedger l = new LocalLedger(dir.resolve("ledger.json"), 10, 1e-3);
    assertNull(l.reserve("s1", CHARGE.epsilon(2), 1e-5));
    l.commit("s1", CHARGE, 1);
    l.commit("s1", CHARGE, 2);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> l.commit("s1", CHARGE, 3));
    assertTrue(e.getMessage().contains("more than the"), e.getMessage());
  }

  private static String race(java.util.concurrent.CountDownLatch go, LocalLedger l, String session) {
    try {
      go.await();
      return l.reserve(session, 1.0, 1e-5);
    } catch (Exception e) {
      return "error " + e;
    }
  }

  /**
   * Across processes: while another process holds the ledger's lock (and writes its reservation
   * only after it said so), a reservation here waits for it, then sees that reservation and is
   * refused; reading without the lock would have reserved the whole budget a second time.
   */
  @Test
  void aReservationWaitsForAnotherProcessHoldingTheLedger(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("ledger.json");
    Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), LedgerLockHolder.class.getName(), file.toString(), "700")
        .redirectErrorStream(true).start();
    try {
      java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(other.getInputStream(),
          java.nio.charset.StandardCharsets.UTF_8));
      assertEquals("locked", out.readLine());
      String why = new LocalLedger(file, 1.0, 1e-4).reserve("this-run", 1.0, 1e-5);
      assertTrue(why != null && why.contains("has (eps = 1.0"), "reserved past the other process's entry: " + why);
      assertTrue(other.waitFor(30, TimeUnit.SECONDS), "the other process did not finish");
      assertEquals(0, other.exitValue());
    } finally {
      other.destroyForcibly();
    }
  }

  /** A participant's budget, too, is spent under one relation and unit (issue 12). */
  @Test
  void epsilonsOfDifferentRelationsAreNotAdded(@TempDir Path dir) {
    LocalLedger l = new LocalLedger(dir.resolve("ledger.json"), 10, 1e-3);
    dev.helmet.privacy.ledger.PrivacyCharge addRemove = new dev.helmet.privacy.ledger.PrivacyCharge("gaussian",
        new dev.helmet.privacy.event.GaussianDpEvent(5), 2, 1e-5, 1e-5, "add or remove one record", "record");
    dev.helmet.privacy.ledger.PrivacyCharge replaceOne = new dev.helmet.privacy.ledger.PrivacyCharge("gaussian",
        new dev.helmet.privacy.event.GaussianDpEvent(5), 2, 1e-5, 1e-5, "replace one record", "record");
    org.junit.jupiter.api.Assertions.assertNull(l.reserve("s1", 1, 1e-5));
    l.commit("s1", addRemove, 1);
    l.settle("s1");
    org.junit.jupiter.api.Assertions.assertNull(l.relationConflict(addRemove));
    String why = l.relationConflict(replaceOne);
    org.junit.jupiter.api.Assertions.assertTrue(why != null && why.contains("do not add up"), why);
  }

  @Test
  void reservesChargesTheRoundsSentAndRefusesPastTheBudget(@TempDir Path dir) {
    LocalLedger l = new LocalLedger(dir.resolve("ledger.json"), 1.0, 1e-4);
    assertNull(l.reserve("a", 0.1, 1e-5));
    assertNull(l.reserve("b", 0.2, 1e-5));
    assertEquals(0, l.settle("b")); // stopped before sending anything: refunded
    assertNull(l.reserve("c", 0.7, 1e-5));
    l.commit("c", CHARGE, 1);
    l.commit("c", CHARGE, 2);
    double spent = l.settle("c"); // two rounds sent: charged their eps by this ledger's own accountant
    assertEquals(CHARGE.epsilon(2), spent, 0);
    assertTrue(spent > CHARGE.epsilon(1) && spent < CHARGE.epsilon(3), "two rounds cost more than one, less than three");
    assertEquals(0, l.used()[0].compareTo(BigDecimal.valueOf(0.1).add(BigDecimal.valueOf(spent))));
    assertThrows(IllegalStateException.class, () -> l.settle("c"), "a settled session stays settled");
    String why = l.reserve("d", 0.95, 1e-5);
    assertTrue(why != null && why.contains("spent or reserved"), why);
    // A participant that crashed keeps its reservation ("a" above) in full.
    assertTrue(Files.exists(dir.resolve("ledger.json")));
  }

  /**
   * An entry a crashed participant left open is settled by the operator: a reservation with no
   * committed round is refunded (nothing about the data left), a committed one is spent at the
   * participant's own eps for the rounds it sent (they may have been released); both recorded as
   * settled by the operator with the reason, and the refunded share is available again.
   */
  @Test
  void theOperatorSettlesStaleEntriesRecordingWhy(@TempDir Path dir) {
    LocalLedger l = new LocalLedger(dir.resolve("ledger.json"), 1.0, 1e-4);
    assertNull(l.reserve("a", 0.6, 1e-5));
    assertNull(l.reserve("c", 0.3, 1e-5));
    l.commit("c", CHARGE, 1);
    assertTrue(l.reserve("d", 0.5, 1e-5) != null, "the stale entries hold the budget");
    assertThrows(IllegalArgumentException.class, () -> l.settleStale("a", " "), "a reason is required");
    assertEquals(0, l.settleStale("a", "coordinator crashed in enrolment"));
    assertEquals(CHARGE.epsilon(1), l.settleStale("c", "coordinator crashed in round 2"), 0);
    assertThrows(IllegalStateException.class, () -> l.settleStale("a", "again"));
    var a = l.entries().get(0);
    assertEquals("refunded", a.path("status").asText());
    assertEquals("operator", a.path("settled_by").asText());
    assertEquals("coordinator crashed in enrolment", a.path("reason").asText());
    assertEquals("spent", l.entries().get(1).path("status").asText());
    // a's 0.6 is back: what is left after c's spend fits a small session again.
    assertNull(l.reserve("d", 0.05, 1e-5));
  }

  /**
   * The ledger takes no amount from outside: a negative or non-finite eps is refused when
   * reserving, and a file edited to hold one is an error, never a credit (release 0.1 settled on the
   * coordinator's reported eps: a reported -5 gave 5 eps of extra budget, NaN broke every later read).
   */
  @Test
  void negativeOrNonFiniteAmountsAreNeverCredited(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("ledger.json");
    LocalLedger l = new LocalLedger(f, 1.0, 1e-4);
    assertThrows(IllegalArgumentException.class, () -> l.reserve("x", -5, 1e-5));
    assertThrows(IllegalArgumentException.class, () -> l.reserve("y", Double.NaN, 1e-5));
    assertThrows(IllegalArgumentException.class, () -> l.reserve("z", 0.1, Double.POSITIVE_INFINITY));
    Files.writeString(f, "[{\"session\": \"s\", \"epsilon\": -5, \"delta\": 0, \"status\": \"spent\"}]");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, l::used);
    assertTrue(e.getMessage().contains("ledger.json") && e.getMessage().contains("epsilon"), e.getMessage());
  }

  @Test
  void aMalformedLedgerIsRefusedNamingTheFile(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("ledger.json");
    Files.writeString(f, "{\"not\": \"a list\"}");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new LocalLedger(f, 1, 1e-4).used());
    assertTrue(e.getMessage().contains("ledger.json"), e.getMessage());
  }

  /**
   * Participants charge their own ledgers with their own accounting, whatever the coordinator
   * reports: one is told "aborted" after it sent its input (release 0.1 refunded it), another is
   * told eps = -5 (release 0.1 credited it 5). Both charge what they computed. A later session
   * beyond a participant's budget is refused by it.
   */
  @Test
  void participantsChargeTheirOwnLedgers(@TempDir Path dir) throws Exception {
    Dataset digits = TestData.digits();
    var config = Loopback.config(digits, 3, 3, 1e6).build();
    List<LocalLedger> ledgers = List.of(new LocalLedger(dir.resolve("l0.json"), 1.5e6, 1e-4),
        new LocalLedger(dir.resolve("l1.json"), 1.5e6, 1e-4), new LocalLedger(dir.resolve("l2.json"), 1.5e6, 1e-4));
    List<Dataset> shards = Loopback.shards(digits, 3, 50, 1);
    List<java.util.function.UnaryOperator<Outcome>> lies = List.of(
        o -> o.toBuilder().setStatus("aborted").setReason("nothing was released, trust me").build(),
        o -> o.toBuilder().setEpsilon(-5).build(),
        o -> o);
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 1e7))) {
      java.util.List<Participant.Result> results = new java.util.ArrayList<>();
      java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
      try {
        var fs = new java.util.ArrayList<java.util.concurrent.Future<Participant.Result>>();
        for (int i = 0; i < 3; i++) {
          int k = i;
          Participant.Hook lying = new Participant.Hook() {
            @Override
            public CoordinatorMessage rewrite(CoordinatorMessage m) {
              return m.hasOutcome() ? m.toBuilder().setOutcome(lies.get(k).apply(m.getOutcome())).build() : m;
            }
          };
          fs.add(pool.submit(() -> Participant.run(Loopback.at(c, new Participant.Settings("127.0.0.1:" + c.port(), null,
              ParticipantPolicy.upTo(1e7), shards.get(k), null, 60, ledgers.get(k))), lying)));
        }
        for (var f : fs) {
          results.add(f.get(300, TimeUnit.SECONDS));
        }
      } finally {
        pool.shutdownNow();
      }
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      for (int i = 0; i < 3; i++) {
        // Each participant charged its own account of the one round it sent: the plan's eps at the
        // planned contributors, the same arithmetic the coordinator used (all three contributed).
        assertTrue(results.get(i).epsilon() > 0);
        assertEquals(results.get(i).epsilon(), ledgers.get(i).used()[0].doubleValue(), 0);
        assertEquals(r.epsilon(), results.get(i).epsilon(), 1e-9 * r.epsilon());
      }
    }
    // The next session of eps 1e6 would exceed each participant's 1.5e6: refused before anything is sent.
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir.resolve("second"), null, 1e7))) {
      Participant.ParticipantException e = assertThrows(Participant.ParticipantException.class,
          () -> Participant.run(Loopback.at(c, new Participant.Settings("127.0.0.1:" + c.port(), null,
              ParticipantPolicy.upTo(1e7), shards.get(0), null, 30, ledgers.get(0)))));
      assertTrue(e.getMessage().contains("the local budget"), e.getMessage());
    }
  }
  /**
   * Security review turn 3, T3-10: a setup aborted after the reveals let the coordinator restart for
   * another joint seed at no cost. The ledger remembers each setup that started and never finished,
   * within a day, across runs; from the third the participant refuses another setup.
   */
  @Test
  void setupsThatStartedAndNeverFinishedAreCountedAndTheThirdRefusesTheNext(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("ledger.json");
    LocalLedger first = new LocalLedger(file, 10, 1e-3);
    for (String s : new String[] {"s1", "s2", "s3", "ok"}) {
      assertNull(first.reserve(s, 1, 1e-6));
      first.markSetup(s, false);
    }
    // "ok": its first input left (a commit), so its setup finished; not an abort
    first.commit("ok", CHARGE, 1);
    // "late": its setup reached its last step but the session ended before any input left, so the
    // coordinator got the reveals for free: an abort (the attacker's read of this fix)
    assertNull(first.reserve("late", 1, 1e-6));
    first.markSetup("late", false);
    for (String s : new String[] {"s1", "s2", "s3", "ok", "late"}) {
      first.settle(s);
    }
    // a later run of the same data reads them from the file
    LocalLedger later = new LocalLedger(file, 10, 1e-3);
    assertNull(later.reserve("s4", 1, 1e-6));
    List<String> aborted = later.abortedSetups(ParticipantRun.SETUP_ABORT_WINDOW, "s4");
    assertEquals(List.of("s1", "s2", "s3", "late"), aborted);
    String refusal = ParticipantRun.setupAbortRefusal("s4", aborted);
    assertTrue(refusal != null && refusal.contains("4 setups of this data were aborted"), refusal);
    assertNull(ParticipantRun.setupAbortRefusal("s4", aborted.subList(0, 2)), "two aborted setups are tolerated");
    assertTrue(ParticipantRun.setupAbortRefusal("s4", aborted.subList(0, 3)) != null, "the third refuses the next");
    // outside the window they no longer count
    assertEquals(List.of(), later.abortedSetups(java.time.Duration.ofMillis(-60_000), "s4"));
  }
}
