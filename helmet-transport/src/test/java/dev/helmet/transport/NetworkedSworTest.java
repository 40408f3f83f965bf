package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.BoardChunk;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cross-silo DP-SGD with sampling without replacement over the network: before round 0 the parties
 * run the token mixnet and the joint seed (the paper's Algorithm 2) on the coordinator's board,
 * each post signed by its sender's identity key, then train on their records in each step's batch.
 * Three parties of 30 digits each, SecAgg+ over loopback.
 */
@org.junit.jupiter.api.Tag("integration")
class NetworkedSworTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final int W = 3;
  /** The setup's steps for three parties: keys, wraps, three mixers, commit, reveal, seed, agreement. */
  private static final int SEED_STEP = W + 4;

  private static SessionConfig config() {
    SessionConfig.Builder b = Loopback.config(DIGITS, W, W, 4).setColludingFraction(0.5);
    b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5));
    return Loopback.algorithm(b, "cross-silo", "{\"learner\": {\"kind\": \"softmax\", \"clip_bound\": 10}, "
        + "\"crosssilo\": {\"colluders\": 0, \"sampling\": \"swor\", \"batch\": 20, \"rounds\": 3, "
        + "\"swor_analysis\": \"worst-case\", \"optimizer\": \"sgd\", \"learning_rate\": 2}}").build();
  }

  private static List<Dataset> shards() {
    Partition p = new PartitionStrategy.Iid(W, 30).split(DIGITS, new SplittableRandom(3));
    List<Dataset> out = new ArrayList<>();
    for (int i = 0; i < W; i++) {
      out.add(DIGITS.subset(p.indices(i), "shard " + i));
    }
    return out;
  }

  private record Run(Coordinator.Result result, List<Loopback.Outcome> outcomes) {}

  private static Run run(Path dir, IntFunction<Participant.Hook> hooks) throws Exception {
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config(), dir, null, 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, shards(), null, i -> null,
          ParticipantPolicy.upTo(1e7), hooks);
      return new Run(c.await(120, TimeUnit.SECONDS), outs);
    }
  }

  /** Records what each party posts at each setup step (its chunks, in order), by its roster index. */
  private static Participant.Hook recording(Map<String, byte[]> posts) {
    return new Participant.Hook() {
      @Override
      public List<ParticipantMessage> sending(ParticipantMessage m) {
        if (m.hasBoardChunk()) {
          BoardChunk ch = m.getBoardChunk();
          posts.merge(ch.getSender() + "/" + ch.getStep(), ch.getData().toByteArray(), NetworkedSworTest::concat);
        }
        return List.of(m);
      }
    };
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * The session completes and every participant releases the model; every party posted the same
   * 32-byte joint seed, then the same agreement after reading everyone's; the last mixer's final
   * list holds the 90 distinct tokens; and the ledger says the batches came from the mixnet.
   */
  @Test
  void theMixnetRunsOnTheBoardAndTheSessionReleases(@TempDir Path dir) throws Exception {
    Map<String, byte[]> posts = new ConcurrentHashMap<>();
    Run run = run(dir, k -> recording(posts));
    Loopback.assertAllCompleted(run.result(), run.outcomes(), W);
    byte[] seed = posts.get("0/" + SEED_STEP);
    assertNotNull(seed);
    assertEquals(32, seed.length);
    for (int k = 1; k < W; k++) {
      assertArrayEquals(seed, posts.get(k + "/" + SEED_STEP), "party " + k + "'s joint seed");
    }
    // each party read every seed and posted its agreement before round 0 (T3-10)
    for (int k = 0; k < W; k++) {
      assertArrayEquals(posts.get("0/" + (SEED_STEP + 1)), posts.get(k + "/" + (SEED_STEP + 1)), "party " + k
          + "'s agreement");
    }
    assertEquals(32, posts.get("0/" + (SEED_STEP + 1)).length);
    byte[] last = posts.get((W - 1) + "/" + (W + 1));
    assertEquals(90 * 16, last.length, "the final list: 90 plain tokens");
    java.util.Set<ByteString> tokens = new java.util.HashSet<>();
    for (int off = 0; off < last.length; off += 16) {
      tokens.add(ByteString.copyFrom(last, off, 16));
    }
    assertEquals(90, tokens.size());
    Object sampling = run.result().model().privacy().details().get("sampling");
    assertTrue(String.valueOf(sampling).contains("mixnet"), String.valueOf(sampling));
  }

  /**
   * A party whose post is altered after signing (here its wrapped tokens, on the way out) is caught
   * by the coordinator's signature check: the session ends at once naming the party (its roster
   * index, which the order of enrolment decides), no round ran, and no participant's data was
   * charged.
   */
  @Test
  void anAlteredPostEndsTheSessionNamingThePartyBeforeAnyRound(@TempDir Path dir) throws Exception {
    java.util.concurrent.atomic.AtomicInteger altered = new java.util.concurrent.atomic.AtomicInteger(-1);
    Run run = run(dir, k -> k != 1 ? Participant.Hook.NONE : new Participant.Hook() {
      @Override
      public List<ParticipantMessage> sending(ParticipantMessage m) {
        if (m.hasBoardChunk() && m.getBoardChunk().getStep() == 1) {
          altered.set(m.getBoardChunk().getSender());
          byte[] data = m.getBoardChunk().getData().toByteArray();
          data[0] ^= 1;
          return List.of(m.toBuilder().setBoardChunk(m.getBoardChunk().toBuilder()
              .setData(ByteString.copyFrom(data))).build());
        }
        return List.of(m);
      }
    });
    assertFalse(run.result().completed());
    assertTrue(altered.get() >= 0, "the hook saw the party's wrapped tokens");
    assertTrue(run.result().reason().contains("party " + altered.get() + " sent a bad post")
        && run.result().reason().contains("not signed"), run.result().reason());
    for (Loopback.Outcome o : run.outcomes()) {
      if (o.result() != null) {
        assertFalse(o.result().completed());
        assertEquals(0, o.result().epsilon(), "nothing was sent, so nothing is charged");
      }
    }
  }

  /**
   * A coordinator that alters a relayed post (here the final list on its way to party 0) is caught
   * by the reader: party 0 stops, naming the signature, and the session ends without a round.
   */
  @Test
  void aRelayedPostTheCoordinatorAlteredStopsTheReader(@TempDir Path dir) throws Exception {
    Run run = run(dir, k -> k != 0 ? Participant.Hook.NONE : new Participant.Hook() {
      @Override
      public CoordinatorMessage rewrite(CoordinatorMessage m) {
        if (m.hasBoardChunk() && m.getBoardChunk().getStep() == W + 1) {
          byte[] data = m.getBoardChunk().getData().toByteArray();
          data[3] ^= 1;
          return m.toBuilder().setBoardChunk(m.getBoardChunk().toBuilder().setData(ByteString.copyFrom(data))).build();
        }
        return m;
      }
    });
    assertFalse(run.result().completed());
    Loopback.Outcome zero = run.outcomes().get(0);
    String why = zero.error() != null ? zero.error().getMessage() : zero.result().reason();
    assertTrue(why.contains("not signed by its identity key"), why);
    assertTrue(run.result().reason().contains("setup"), run.result().reason());
  }
}
