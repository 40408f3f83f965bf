package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.transport.store.Store;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.RoundStart;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DP-FL (federated DP-SGD) over the network: the same DpFlPlan as the in-process simulation. */
@org.junit.jupiter.api.Tag("integration")
class NetworkedDpFlTest {
  private static final Dataset DIGITS = TestData.digits();

  /**
   * A DP-FL session under add-or-remove neighbours with the RDP accountant (fast to calibrate) and
   * a public normaliser of q x 60 records per party.
   */
  private static SessionConfig config(int parties, int min, double eps, double q, int rounds) {
    return Loopback.algorithm(Loopback.config(DIGITS, parties, min, eps), "dp-fl",
        "{\"learner\": {\"clip_bound\": 10}, \"dpfl\": {\"sampling_rate\": " + q + ", \"grad_clip\": 1, \"rounds\": "
            + rounds + ", \"learning_rate\": 2, \"noise_split\": \"honest\", \"accountant\": \"rdp\", "
            + "\"neighbours\": \"add-remove\", \"expected_batch\": " + q * 60 * parties + "}}")
        .setDeadlines(dev.helmet.transport.wire.Deadlines.newBuilder().setEnrolmentSeconds(60).setRoundSeconds(60))
        .build();
  }

  private static List<Dataset> shards(Partition p) {
    List<Dataset> out = new ArrayList<>();
    for (int i = 0; i < p.count(); i++) {
      out.add(DIGITS.subset(p.indices(i), "shard " + i));
    }
    return out;
  }

  /**
   * 8 participants, 5 rounds, every record in every batch (q = 1) and eps = 1e6 (negligible noise):
   * the released model is the in-process DpFl run's on the same partition, up to the fixed-point
   * encoding. Every round is one SecAgg+ summation (5 SecAgg rounds each are recorded).
   */
  @Test
  void matchesTheInProcessRun(@TempDir Path dir) throws Exception {
    int w = 8;
    int rounds = 5;
    Partition partition = new PartitionStrategy.Iid(w, 60).split(DIGITS, new SplittableRandom(5));
    SessionConfig config = config(w, w, 1e6, 1, rounds);
    Simulation.Result local = Simulation.run(Simulation.prepare(SessionPlan.spec(config), DIGITS, partition, 1, 2,
        Progress.NONE), w, new PlainSummation(), NoiseFactory.seededForTesting(1), 2, Progress.NONE);
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, shards(partition), null, i -> null,
          ParticipantPolicy.upTo(1e7));
      Coordinator.Result r = c.await(120, TimeUnit.SECONDS);
      Loopback.assertAllCompleted(r, outs, w);
      double diff = Loopback.maxDifference(r.model().weights().parameters(), local.model().parameters());
      assertTrue(diff < 1e-4, "largest difference from the in-process run: " + diff);
      assertTrue(r.epsilon() <= 1e6 && r.epsilon() > 0.99e6, "eps " + r.epsilon());
      assertEquals("dp-fl", r.model().provenance().get("algorithm"));
      assertEquals(rounds, r.model().privacy().details().get("rounds"));
      Store s = c.store();
      assertEquals("SPENT", s.ledgerEntry(c.sessionId()).get("STATUS"));
      List<Map<String, Object>> recorded = s.rounds(c.sessionId());
      assertEquals(5 * rounds, recorded.size());
      assertTrue(recorded.stream().anyMatch(m -> "R4/UNMASKING".equals(m.get("ROUND"))), recorded::toString);
    }
  }

  /**
   * Parties that leave between rounds are dropped from the rest of the session: with 10 parties
   * and min_contributors 8, two leaving at round 2 leave a model of the 8 others; a third leaving
   * aborts round 2, releases no model, and the two rounds whose sums were released are charged, on
   * the coordinator's ledger and on every participant's own (each computed by its own accountant
   * from the plan: a released round is spent forever).
   */
  @Test
  void partiesLeavingBetweenRoundsAreDroppedAndTooManyAbortChargingTheReleasedRounds(@TempDir Path dir)
      throws Exception {
    int w = 10;
    Partition partition = new PartitionStrategy.Iid(w, 40).split(DIGITS, new SplittableRandom(7));
    SessionConfig config = config(w, 8, 2, 0.5, 4);
    int[] sizes = new int[w];
    java.util.Arrays.fill(sizes, 40);
    PrivacyCharge charge = SessionPlan.spec(config).plan(sizes, 8).charge();
    for (int leaving : new int[] {2, 3}) {
      Path sub = dir.resolve("leaving-" + leaving);
      List<LocalLedger> ledgers = new ArrayList<>();
      for (int i = 0; i < w; i++) {
        ledgers.add(new LocalLedger(sub.resolve("ledger-" + i + ".json"), 10, 1e-3));
      }
      try (Coordinator c = Coordinator.start(Loopback.inProcess(config, sub, null, 10))) {
        List<Loopback.Outcome> outs = Loopback.participants(c, shards(partition), null, i -> null,
            ParticipantPolicy.upTo(10), i -> i < leaving ? killAtRound(2) : Participant.Hook.NONE, ledgers::get);
        Coordinator.Result r = c.await(180, TimeUnit.SECONDS);
        Store s = c.store();
        if (leaving == 2) {
          assertTrue(r.completed(), r.reason());
          assertEquals(8, r.contributors().size());
          assertTrue(r.dropped().stream().allMatch(d -> d.round().startsWith("R2/")), r.dropped()::toString);
          assertEquals(2, r.dropped().size(), r.dropped()::toString);
          assertEquals("SPENT", s.ledgerEntry(c.sessionId()).get("STATUS"));
          for (int i = leaving; i < w; i++) {
            assertNull(outs.get(i).error(), String.valueOf(outs.get(i).error()));
            assertEquals(charge.epsilon(4), ledgers.get(i).used()[0].doubleValue(), 0, "all four rounds sent");
          }
          for (int i = 0; i < leaving; i++) {
            assertEquals(charge.epsilon(2), ledgers.get(i).used()[0].doubleValue(), 0, "left after two rounds");
          }
        } else {
          assertFalse(r.completed());
          assertTrue(r.reason().startsWith("round 2: secure aggregation aborted"), r.reason());
          assertTrue(r.reason().contains("2 of 4 rounds were released before it and are charged"), r.reason());
          assertNull(r.model());
          Map<String, Object> entry = s.ledgerEntry(c.sessionId());
          assertEquals("SPENT", entry.get("STATUS"), "a released round is never refunded");
          assertEquals(2, ((Number) entry.get("RELEASED_ROUNDS")).intValue());
          double twoRounds = charge.epsilon(2);
          assertEquals(twoRounds, ((Number) entry.get("EPSILON")).doubleValue(), 0);
          assertTrue(twoRounds > 0 && twoRounds < charge.epsilon(4), "two rounds cost less than four: " + twoRounds);
          assertEquals(twoRounds, r.epsilon(), 0);
          assertNull(s.releasedModel(c.sessionId()));
          Participant.Result told = outs.get(w - 1).result();
          assertNotNull(told, String.valueOf(outs.get(w - 1).error()));
          assertFalse(told.completed());
          for (int i = 0; i < w; i++) {
            assertEquals(twoRounds, ledgers.get(i).used()[0].doubleValue(), 0, "participant " + i + " sent two rounds");
          }
        }
      }
    }
  }

  /**
   * A participant answers only the next round it expects, never more rounds than were accounted,
   * and only a finite model of the right length: a coordinator that replays round 0, opens a round
   * past the last, or sends a NaN model is refused (the participant stops; the others go on).
   */
  @Test
  void participantRefusesReplayedExtraAndMalformedRounds(@TempDir Path dir) throws Exception {
    int w = 4;
    int rounds = 3;
    Partition partition = new PartitionStrategy.Iid(w, 30).split(DIGITS, new SplittableRandom(9));
    SessionConfig config = config(w, 3, 2, 0.5, rounds);
    List<UnaryOperator<CoordinatorMessage>> attacks = List.of(
        // round 1 replaced by a replay of round 0's number
        m -> m.hasRoundStart() && m.getRoundStart().getRound() == 1
            ? m.toBuilder().setRoundStart(m.getRoundStart().toBuilder().setRound(0)).build() : m,
        // the outcome replaced by one more round
        m -> m.hasOutcome() ? CoordinatorMessage.newBuilder().setRoundStart(RoundStart.newBuilder().setRound(rounds)
            .setState(m.getOutcome().getModelGzip())).build() : m,
        // a NaN in round 1's model
        m -> m.hasRoundStart() && m.getRoundStart().getRound() == 1
            ? m.toBuilder().setRoundStart(m.getRoundStart().toBuilder().setState(nan(m.getRoundStart().getState())))
                .build() : m);
    List<String> expected = List.of("expects round 1", "no further round (all 3 accounted rounds have run)",
        "model value 0 of the round state is not finite");
    for (int a = 0; a < attacks.size(); a++) {
      UnaryOperator<CoordinatorMessage> attack = attacks.get(a);
      try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir.resolve("a" + a), null, 10))) {
        List<Loopback.Outcome> outs = Loopback.participants(c, shards(partition), null, i -> null,
            ParticipantPolicy.upTo(10), i -> i == 0 ? rewriting(attack) : Participant.Hook.NONE);
        Coordinator.Result r = c.await(120, TimeUnit.SECONDS);
        Exception e = outs.get(0).error();
        assertNotNull(e, "the attacked participant went on");
        assertTrue(e.getMessage().contains(expected.get(a)), e.getMessage());
        if (a != 1) {
          // it stopped mid-session; the other three (= min_contributors) completed without it
          assertTrue(r.completed(), r.reason());
          assertEquals(3, r.contributors().size());
        }
      }
    }
  }

  private static ByteString nan(ByteString model) {
    byte[] b = model.toByteArray();
    java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putDouble(1, Double.NaN); // after the version
    return ByteString.copyFrom(b);
  }

  private static Participant.Hook rewriting(UnaryOperator<CoordinatorMessage> f) {
    return new Participant.Hook() {
      @Override
      public CoordinatorMessage rewrite(CoordinatorMessage m) {
        return f.apply(m);
      }
    };
  }

  /** Closes the participant's connection when round {@code round} starts. */
  private static Participant.Hook killAtRound(int round) {
    return new Participant.Hook() {
      @Override
      public void received(CoordinatorMessage m, io.grpc.ManagedChannel channel) throws Participant.ParticipantException {
        if (m.hasRoundStart() && m.getRoundStart().getRound() == round) {
          channel.shutdownNow();
          throw new Participant.ParticipantException("killed at round " + round);
        }
      }
    };
  }
}
