package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.transport.store.Store;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Abort semantics, defined once in the runners and the same for every algorithm: a session that
 * aborts after k of its T rounds were released charges exactly those k rounds (nothing for k = 0),
 * on the coordinator's ledger and on every participant's own ledger, each from its own accountant;
 * a completed session charges all T. Two of six parties leave when round k opens, leaving fewer
 * than the five contributors a round needs, so round k aborts and nothing of it is released.
 */
class AbortChargingTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final String DPFL = "{\"learner\": {\"clip_bound\": 10}, \"dpfl\": {\"sampling_rate\": 0.5, "
      + "\"grad_clip\": 1, \"rounds\": 3, \"learning_rate\": 2, \"accountant\": \"rdp\", \"neighbours\": "
      + "\"add-remove\", \"expected_batch\": 90}}";

  @ParameterizedTest(name = "{0}, two parties leave at round {1} of {2}")
  @CsvSource({"helmet, 0, 1", "helmet, -1, 1", "dp-fl, 0, 3", "dp-fl, 1, 3", "dp-fl, 2, 3", "dp-fl, -1, 3",
      "private-mean, 0, 1", "private-mean, -1, 1"})
  void exactlyTheReleasedRoundsAreCharged(String algorithm, int leaveAt, int rounds, @TempDir Path dir)
      throws Exception {
    int w = 6;
    String json = switch (algorithm) {
      case "helmet" -> Loopback.HELMET;
      case "dp-fl" -> DPFL;
      default -> "{\"mean\": {\"clip\": 1}}";
    };
    SessionConfig config = Loopback.algorithm(Loopback.config(DIGITS, w, 5, 2), algorithm, json).build();
    int[] sizes = new int[w];
    Arrays.fill(sizes, 30);
    PrivacyCharge charge = SessionPlan.spec(config).plan(sizes, 5).charge();
    assertEquals(rounds, charge.plannedRounds());
    List<LocalLedger> ledgers = new ArrayList<>();
    for (int i = 0; i < w; i++) {
      ledgers.add(new LocalLedger(dir.resolve("ledger-" + i + ".json"), 10, 1e-3));
    }
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 10))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(DIGITS, w, 30, 3), null,
          i -> null, ParticipantPolicy.upTo(10), i -> i < 2 && leaveAt >= 0 ? leaveAt(leaveAt) : Participant.Hook.NONE,
          ledgers::get);
      Coordinator.Result r = c.await(180, TimeUnit.SECONDS);
      Store s = c.store();
      Map<String, Object> entry = s.ledgerEntry(c.sessionId());
      if (leaveAt < 0) {
        Loopback.assertAllCompleted(r, outs, w);
        assertEquals("SPENT", entry.get("STATUS"));
        for (LocalLedger l : ledgers) {
          assertEquals(charge.epsilon(rounds), l.used()[0].doubleValue(), 0, "every round sent is charged");
        }
        return;
      }
      assertFalse(r.completed());
      assertNull(r.model());
      assertNull(s.releasedModel(c.sessionId()));
      assertEquals(leaveAt, ((Number) entry.get("RELEASED_ROUNDS")).intValue());
      double expected = charge.epsilon(leaveAt);
      assertEquals(leaveAt == 0 ? "REFUNDED" : "SPENT", entry.get("STATUS"), "a released round is never refunded");
      if (leaveAt > 0) {
        assertEquals(expected, ((Number) entry.get("EPSILON")).doubleValue(), 0);
        assertTrue(expected > 0 && expected < charge.epsilon(rounds), "k rounds cost less than all: " + expected);
      }
      assertEquals(expected, r.epsilon(), 0);
      for (int i = 0; i < w; i++) {
        assertEquals(expected, ledgers.get(i).used()[0].doubleValue(), 0, "participant " + i + "'s own ledger");
      }
      for (Loopback.Outcome o : outs) { // the parties that stayed say whom their eps holds against
        if (o.result() != null) {
          assertTrue(o.result().against().startsWith("anyone holding the released model, and the server"),
              o.result().toString());
        }
      }
    }
  }

  /** Closes the participant's connection when round {@code round} opens. */
  private static Participant.Hook leaveAt(int round) {
    return new Participant.Hook() {
      @Override
      public void received(CoordinatorMessage m, io.grpc.ManagedChannel channel) throws Participant.ParticipantException {
        if (m.hasRoundStart() && m.getRoundStart().getRound() == round) {
          channel.shutdownNow();
          throw new Participant.ParticipantException("left at round " + round);
        }
      }
    };
  }
}
