package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.ArrivalsRequest;
import dev.helmet.transport.wire.ComputeNodeEntry;
import dev.helmet.transport.wire.ComputeNodeGrpc;
import dev.helmet.transport.wire.NodeOpened;
import dev.helmet.transport.wire.NodeSession;
import dev.helmet.transport.wire.ReleaseRequest;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.RosterEntry;
import dev.helmet.transport.wire.SessionConfig;
import dev.helmet.transport.wire.ShareChunk;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security review turn 3, T3-12: a compute node kept every session it was opened for and every
 * share of a round it never released (an aborted session's stayed in its heap for good), and took a
 * party's shares for every future round at once. Now a node takes uploads for the one round the
 * coordinator has opened, zeroes a round's shares at its release, ends a session at its last release
 * or once the coordinator leaves it idle beyond its deadlines (zeroing what it held), and holds at
 * most {@code --max-sessions} sessions. The test plays the coordinator and three participants
 * against node 1 of 2 (a seed node: 32-byte shares) on loopback, with the node's idle clock in the
 * test's hand.
 */
@org.junit.jupiter.api.Tag("integration")
class ComputeNodeMemoryTest {
  private static final Dataset DIGITS = TestData.digits();
  /** Three rounds of dp-fl (one summation each). */
  private static final String DPFL = "{\"learner\": {\"clip_bound\": 10}, \"dpfl\": {\"sampling_rate\": 0.5, "
      + "\"grad_clip\": 1, \"rounds\": 3, \"learning_rate\": 2, \"accountant\": \"rdp\", \"neighbours\": "
      + "\"add-remove\", \"expected_batch\": 45}}";
  private static final int PARTIES = 3;

  /** A running node 1, the certificates, and channels for the coordinator and each participant. */
  private static final class Harness implements AutoCloseable {
    final Path certs;
    final AtomicLong clock = new AtomicLong();
    final ComputeNodeServer node;
    final List<ComputeNodeEntry> entries = new ArrayList<>();
    final ManagedChannel coordinator;
    final List<ManagedChannel> participants = new ArrayList<>();
    /** One roster per session (a binding's signature is randomized, and a second Open must be the same). */
    final java.util.Map<ByteString, Roster> rosters = new java.util.HashMap<>();

    Harness(Path dir, int maxSessions) throws Exception {
      certs = dir.resolve("certs");
      Certificates.create(certs, List.of("localhost", "127.0.0.1"), PARTIES, 2, Duration.ofDays(1));
      node = ComputeNodeServer.start(new ComputeNodeServer.Settings("compute-node-1", "127.0.0.1", 0,
          Tls.Files.in(certs, "compute-node-1"), null, 1, ComputeNodeServer.Settings.DEFAULT_SESSION_IDLE_SECONDS,
          maxSessions), clock::get);
      entries.add(ComputeNodeEntry.newBuilder().setName(node.name()).setEndpoint("127.0.0.1:" + node.port())
          .setCertificateSha256(ByteString.copyFrom(node.certificateSha256())).build());
      // Node 2 is listed (dca needs two) but not run: node 1 is the one under test.
      entries.add(ComputeNodeEntry.newBuilder().setName("compute-node-2").setEndpoint("127.0.0.1:1")
          .setCertificateSha256(ByteString.copyFrom(IdentityBinding.fingerprint(IdentityBinding.certificate(
              Tls.Files.in(certs, "compute-node-2"))))).build());
      coordinator = channel("coordinator");
      for (int i = 1; i <= PARTIES; i++) {
        participants.add(channel("participant-" + i));
      }
    }

    private ManagedChannel channel(String who) {
      return NettyChannelBuilder.forTarget("127.0.0.1:" + node.port(), NodeTls.pinned(Tls.Files.in(certs, who),
          node.certificateSha256(), node.name())).build();
    }

    SessionConfig config(int id) {
      byte[] session = new byte[16];
      session[0] = (byte) id;
      SessionConfig.Builder b = Loopback.config(DIGITS, PARTIES, 2, 1).setColludingFraction(0.5).setProtocol("dca")
          .addAllComputeNodes(entries).setSessionId(ByteString.copyFrom(session));
      b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5));
      return Loopback.algorithm(b, "dp-fl", DPFL).build();
    }

    /** The roster a coordinator builds: each participant's certificate and its identity binding. */
    Roster roster(SessionConfig config) {
      return rosters.computeIfAbsent(config.getSessionId(), k -> build(config));
    }

    private Roster build(SessionConfig config) {
      Roster.Builder r = Roster.newBuilder().setCoordinatorNonce(ByteString.copyFrom(new byte[32]));
      for (int i = 0; i < PARTIES; i++) {
        Tls.Files files = Tls.Files.in(certs, "participant-" + (i + 1));
        byte[] cert = IdentityBinding.certificate(files);
        byte[] key = filled(32, i + 1);
        byte[] nonce = filled(32, i + 101);
        r.addParties(RosterEntry.newBuilder().setParty(i).setPoints(config.getMaxPoints())
            .setIdentityKey(ByteString.copyFrom(key)).setNonceCommitment(ByteString.copyFrom(nonce))
            .setCertificateSha256(ByteString.copyFrom(IdentityBinding.fingerprint(cert)))
            .setCertificate(ByteString.copyFrom(cert))
            .setIdentityBinding(ByteString.copyFrom(IdentityBinding.sign(files, SessionPlan.digest(config), key, nonce))));
      }
      return r.build();
    }

    NodeOpened open(SessionConfig config) {
      return ComputeNodeGrpc.newBlockingStub(coordinator).withDeadlineAfter(30, TimeUnit.SECONDS)
          .open(NodeSession.newBuilder().setConfig(config).setRoster(roster(config)).build());
    }

    /** Party {@code party}'s 32-byte seed for {@code round}; the status it ends with. */
    Status upload(SessionConfig config, int round, int party) throws Exception {
      return NodeUploads.upload(ComputeNodeGrpc.newStub(participants.get(party)), ShareChunk.newBuilder()
          .setSessionId(config.getSessionId()).setRound(round).setParty(party).setTotalBytes(32)
          .setData(ByteString.copyFrom(filled(32, 0x50 + 16 * round + party))).build());
    }

    void arrivals(SessionConfig config, int round) {
      ComputeNodeGrpc.newBlockingStub(coordinator).withDeadlineAfter(30, TimeUnit.SECONDS).arrivals(ArrivalsRequest
          .newBuilder().setSessionId(config.getSessionId()).setRound(round).setExpected(everyone()).setWaitMillis(0)
          .build());
    }

    void release(SessionConfig config, int round) {
      ComputeNodeGrpc.newBlockingStub(coordinator).withDeadlineAfter(30, TimeUnit.SECONDS).release(ReleaseRequest
          .newBuilder().setSessionId(config.getSessionId()).setRound(round).setContributors(everyone()).build());
    }

    /** Round {@code round} as an honest session runs it: every party's share, the arrivals, the sum. */
    void run(SessionConfig config, int round) throws Exception {
      for (int p = 0; p < PARTIES; p++) {
        assertEquals(Status.Code.OK, upload(config, round, p).getCode(), "party " + p + ", round " + round);
      }
      arrivals(config, round);
      release(config, round);
    }

    /** The idle limit of these sessions: no setup, so two round deadlines plus the default slack. */
    long idleSeconds(SessionConfig config) {
      return 2L * config.getDeadlines().getRoundSeconds() + ComputeNodeServer.Settings.DEFAULT_SESSION_IDLE_SECONDS;
    }

    void advance(long seconds) {
      clock.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
    }

    @Override
    public void close() {
      coordinator.shutdownNow();
      participants.forEach(ManagedChannel::shutdownNow);
      node.close();
    }
  }

  private static ByteString everyone() {
    BitSet all = new BitSet();
    all.set(0, PARTIES);
    return ByteString.copyFrom(Bits.encode(all, PARTIES));
  }

  private static byte[] filled(int n, int value) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) value);
    return b;
  }

  private static boolean zero(byte[] b) {
    for (byte x : b) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  @Test
  void aShareForARoundTheCoordinatorHasNotOpenedIsRefusedUntilTheRoundBeforeIsReleased(@TempDir Path dir)
      throws Exception {
    try (Harness h = new Harness(dir, 4)) {
      SessionConfig config = h.config(1);
      assertEquals(3, h.open(config).getRounds());
      for (int future = 1; future < 3; future++) {
        Status s = h.upload(config, future, 0);
        assertEquals(Status.Code.FAILED_PRECONDITION, s.getCode(), "round " + future + ": " + s);
        assertTrue(s.getDescription().contains("round " + future + " is not open at this node"), s.getDescription());
      }
      for (int p = 0; p < PARTIES; p++) {
        assertEquals(Status.Code.OK, h.upload(config, 0, p).getCode(), "party " + p);
      }
      byte[] id = config.getSessionId().toByteArray();
      assertEquals(PARTIES, h.node.service().heldShares(id).size(), "only round 0's shares are held");
      h.arrivals(config, 0);
      Status early = h.upload(config, 1, 1);
      assertEquals(Status.Code.FAILED_PRECONDITION, early.getCode(), "round 0 is closed but not yet released: " + early);
      h.release(config, 0);
      assertEquals(Status.Code.OK, h.upload(config, 1, 0).getCode(), "round 1 opens once round 0 is released");
      Status closed = h.upload(config, 0, 2);
      assertTrue(closed.getDescription().contains("round 0 is closed"), closed.toString());
    }
  }

  @Test
  void afterItsLastReleaseTheNodeHoldsNoSessionNoShareAndAnswersNoMore(@TempDir Path dir) throws Exception {
    try (Harness h = new Harness(dir, 4)) {
      SessionConfig config = h.config(2);
      h.open(config);
      byte[] id = config.getSessionId().toByteArray();
      for (int r = 0; r < 3; r++) {
        for (int p = 0; p < PARTIES; p++) {
          assertEquals(Status.Code.OK, h.upload(config, r, p).getCode(), "party " + p + ", round " + r);
        }
        List<byte[]> held = h.node.service().heldShares(id);
        assertEquals(PARTIES, held.size());
        assertTrue(held.stream().noneMatch(ComputeNodeMemoryTest::zero), "the shares arrived as sent");
        h.arrivals(config, r);
        h.release(config, r);
        assertTrue(held.stream().allMatch(ComputeNodeMemoryTest::zero), "round " + r + "'s shares are zeroed at its "
            + "release");
        assertTrue(h.node.service().heldShares(id).isEmpty());
      }
      assertFalse(h.node.service().hasSession(id), "the session ended at its last release");
      assertEquals(0, h.node.service().sessionCount());

      StatusRuntimeException again = assertThrows(StatusRuntimeException.class, () -> h.release(config, 2));
      assertEquals(Status.Code.FAILED_PRECONDITION, again.getStatus().getCode());
      assertTrue(again.getStatus().getDescription().contains("already released"), again.getStatus().toString());
      StatusRuntimeException reopen = assertThrows(StatusRuntimeException.class, () -> h.open(config));
      assertTrue(reopen.getStatus().getDescription().contains("is over at this node"), reopen.getStatus().toString());
      Status late = h.upload(config, 0, 0);
      assertEquals(Status.Code.FAILED_PRECONDITION, late.getCode(), late.toString());
      assertFalse(h.node.service().hasSession(id), "nothing reopened it");
    }
  }

  /** A session that aborts (here: the coordinator never closes round 0) must not keep its shares. */
  @Test
  void aSessionTheCoordinatorLeavesIdleBeyondItsDeadlinesEndsWithItsSharesZeroed(@TempDir Path dir)
      throws Exception {
    try (Harness h = new Harness(dir, 4)) {
      SessionConfig config = h.config(3);
      h.open(config);
      byte[] id = config.getSessionId().toByteArray();
      assertEquals(Status.Code.OK, h.upload(config, 0, 0).getCode());
      assertEquals(Status.Code.OK, h.upload(config, 0, 1).getCode());
      List<byte[]> held = h.node.service().heldShares(id);
      assertEquals(2, held.size());

      h.advance(h.idleSeconds(config) - 1);
      assertEquals(0, h.node.service().expire(), "within its deadlines and slack the session stays");
      assertTrue(h.node.service().hasSession(id));
      assertTrue(held.stream().noneMatch(ComputeNodeMemoryTest::zero));

      h.advance(2);
      assertEquals(1, h.node.service().expire());
      assertFalse(h.node.service().hasSession(id), "the idle session is dropped");
      assertTrue(held.stream().allMatch(ComputeNodeMemoryTest::zero), "its unreleased shares are zeroed");
      StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> h.arrivals(config, 0));
      assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
      assertTrue(e.getStatus().getDescription().contains("expired"), e.getStatus().toString());
      Status late = h.upload(config, 0, 2);
      assertTrue(late.getDescription().contains("is over at this node"), late.toString());
    }
  }

  @Test
  void aNodeAtItsSessionCapRefusesAnotherOpenUntilOneEnds(@TempDir Path dir) throws Exception {
    try (Harness h = new Harness(dir, 1)) {
      SessionConfig first = h.config(4);
      SessionConfig second = h.config(5);
      h.open(first);
      StatusRuntimeException full = assertThrows(StatusRuntimeException.class, () -> h.open(second));
      assertEquals(Status.Code.RESOURCE_EXHAUSTED, full.getStatus().getCode());
      assertTrue(full.getStatus().getDescription().contains("--max-sessions 1"), full.getStatus().toString());
      h.open(first); // the same Open again is the session it holds, not another
      assertEquals(1, h.node.service().sessionCount());

      h.advance(h.idleSeconds(first) + 1);
      assertEquals(3, h.open(second).getRounds(), "the idle first session made room");
      assertFalse(h.node.service().hasSession(first.getSessionId().toByteArray()));
      assertTrue(h.node.service().hasSession(second.getSessionId().toByteArray()));
    }
  }
  /**
   * The attacker's read of the T3-12 fix: refused calls (an Arrivals for a round not open) kept a
   * session alive, as did valid calls forever, and round_seconds 2^31 - 1 made its limits decades.
   * Now only accepted calls touch a session, a session lives at most as long as its published
   * deadlines allow whatever calls come, and a session may not publish a round deadline over a day.
   */
  @Test
  void refusedPingsDoNotKeepASessionAndNoSessionOutlivesItsDeadlines(@TempDir Path dir) throws Exception {
    try (Harness h = new Harness(dir, 4)) {
      SessionConfig pinged = h.config(6);
      h.open(pinged);
      assertEquals(Status.Code.OK, h.upload(pinged, 0, 0).getCode());
      byte[] id = pinged.getSessionId().toByteArray();
      for (int i = 0; i < 3; i++) {
        h.advance(h.idleSeconds(pinged) / 2);
        assertThrows(StatusRuntimeException.class, () -> h.arrivals(pinged, 1)); // round 1 is not open
      }
      assertEquals(1, h.node.service().expire(), "refused pings kept the session alive");
      assertFalse(h.node.service().hasSession(id));

      SessionConfig busy = h.config(7);
      h.open(busy);
      byte[] id2 = busy.getSessionId().toByteArray();
      long step = h.idleSeconds(busy) / 4;
      long elapsed = 0;
      // the coordinator calls (accepted) well within every idle limit but never releases round 0:
      // the round's shares go once it is older than its deadlines allow (the attacker's second read:
      // a session's lifetime grows with its published rounds, so round 0's shares could wait decades)
      assertEquals(Status.Code.OK, h.upload(busy, 0, 0).getCode());
      while (h.node.service().hasSession(id2) && elapsed <= 4 * h.idleSeconds(busy)) {
        h.advance(step);
        elapsed += step;
        h.node.service().expire();
        if (h.node.service().hasSession(id2)) {
          h.arrivals(busy, 0);
        }
      }
      assertTrue(elapsed > h.idleSeconds(busy) && elapsed <= h.idleSeconds(busy) + step,
          "round 0 ended after " + elapsed + " s; its limit is " + h.idleSeconds(busy) + " s");
      assertFalse(h.node.service().hasSession(id2), "a session lived past every deadline it publishes");
    }
    SessionConfig forever = Loopback.config(DIGITS, PARTIES, 2, 1).setDeadlines(
        dev.helmet.transport.wire.Deadlines.newBuilder().setEnrolmentSeconds(60).setRoundSeconds(Integer.MAX_VALUE))
        .build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SessionPlan.validate(forever));
    assertTrue(e.getMessage().contains("round_seconds may be at most 86400"), e.getMessage());
  }
}
