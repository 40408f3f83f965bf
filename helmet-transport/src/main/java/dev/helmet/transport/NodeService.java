package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.Setup;
import dev.helmet.secagg.ring.BitPacking;
import dev.helmet.transport.wire.ArrivalsRequest;
import dev.helmet.transport.wire.ComputeNodeGrpc;
import dev.helmet.transport.wire.NodeArrivals;
import dev.helmet.transport.wire.NodeDrop;
import dev.helmet.transport.wire.NodeOpened;
import dev.helmet.transport.wire.NodeSession;
import dev.helmet.transport.wire.NodeSum;
import dev.helmet.transport.wire.PartyTraffic;
import dev.helmet.transport.wire.ReleaseRequest;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.SessionConfig;
import dev.helmet.transport.wire.ShareChunk;
import dev.helmet.transport.wire.UploadAck;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A compute node's gRPC service: the sessions the coordinator opened, each party's share per
 * round, and one sum per round. Logs name sessions, rounds, parties, sizes and reasons, never a
 * share or a sum.
 *
 * <p>What a node holds is bounded, and shares no sum needs are erased (security review turn 3,
 * T3-12: a node kept every session and every share of a round never released, e.g. of an aborted
 * session, and took a party's shares for every future round at once; a node compromised later
 * together with the others would have rebuilt those inputs):
 * <ul>
 *   <li>a session takes uploads for one round only, the one the coordinator has opened: the
 *       lowest round this node has not released. The coordinator sends a round's RoundStart only
 *       after every node released the round before (RoundDriver, DcaRounds), so an honest party
 *       never uploads ahead, and one session holds at most one share per party;</li>
 *   <li>a session ends at its last release, or when the coordinator has called nothing for longer
 *       than its published deadlines allow ({@link Session#idleNanos}, e.g. an aborted session):
 *       its shares are zeroed ({@link NodeRound#erase}) and its id remembered, so it is never
 *       reopened nor released again;</li>
 *   <li>a node holds at most {@code maxSessions} sessions at once and refuses another Open.</li>
 * </ul>
 */
final class NodeService extends ComputeNodeGrpc.ComputeNodeImplBase {
  /** The largest chunk a participant sends. */
  static final int CHUNK_BYTES = 1 << 20;
  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  /** One session the coordinator opened at this node. */
  static final class Session {
    final SessionConfig config;
    final Roster roster;
    final String hex;
    final int node;
    final int nodes;
    final int length;
    final int bits;
    final int rounds;
    /** Roster index by the hex SHA-256 of the party's certificate. */
    final Map<String, Integer> parties = new HashMap<>();
    final Map<Integer, NodeRound> byRound = new HashMap<>();
    /**
     * The longest an honest coordinator leaves this session without a call: the setup before round
     * 0 waits at most one round deadline per step, and between a round's Release and the next
     * round's Arrivals it sends the RoundStart within at most two round deadlines (a stalled reader
     * is cut off after one, Outbound.sendCounted); {@code slackSeconds} covers its own computing.
     * An Arrivals waiting or a Release summing holds the session ({@link #busy}).
     */
    final long idleNanos;
    /** The round that takes uploads: every earlier one was released here. Guarded by the service. */
    int open;
    /** Control calls running on this session now (an Arrivals waiting, a Release summing). */
    int busy;
    /** The service clock's time of the coordinator's last call. */
    long touched;
    /** Set once the session ended here: its shares are erased and no call finds it. */
    boolean ended;

    Session(SessionConfig config, Roster roster, int node, PublicPlan plan, long slackSeconds) {
      this.config = config;
      this.roster = roster;
      this.hex = HexFormat.of().formatHex(config.getSessionId().toByteArray());
      this.node = node;
      this.nodes = config.getComputeNodesCount();
      this.length = plan.length();
      this.bits = plan.encoding().ringBits();
      this.rounds = plan.rounds();
      for (int i = 0; i < roster.getPartiesCount(); i++) {
        parties.put(HexFormat.of().formatHex(roster.getParties(i).getCertificateSha256().toByteArray()), i);
      }
      // The setup's schedule is public: its steps depend on the plan, not on the session bytes.
      Setup setup = plan.setup(new byte[16]);
      long steps = setup == null ? 0 : setup.steps();
      long roundSeconds = config.getDeadlines().getRoundSeconds();
      this.idleNanos = TimeUnit.SECONDS.toNanos(Math.addExact(Math.multiplyExact(steps + 2, roundSeconds),
          slackSeconds));
      // However busy, a session lives at most as long as an honest one can: its setup, two round
      // deadlines per round (uploads, then the Release after the RoundStart) and the slack.
      this.lifetimeNanos = TimeUnit.SECONDS.toNanos(Math.addExact(Math.multiplyExact(steps + 2 + 2L * rounds,
          roundSeconds), slackSeconds));
    }

    /** The longest an honest session takes, from its Open: see the constructor. */
    final long lifetimeNanos;
    /** The service clock's time of the session's Open. */
    long openedAt;
    /**
     * When the open round opened (the session's Open, or the Release of the round before): a round
     * not released within {@link #idleNanos} of it ends the session, however often the coordinator
     * calls (the attacker's second read: a session's lifetime grows with its published rounds, up to
     * decades, while round 0's shares waited).
     */
    long roundOpenedAt;

    boolean seeds() {
      return node < nodes - 1;
    }

    /** The exact size of one share at this node. */
    long shareBytes() {
      return seeds() ? 32 : BitPacking.packedBytes(length, bits);
    }

    NodeRound round(int r) {
      return byRound.computeIfAbsent(r, NodeRound::new);
    }
  }

  /** How many ended sessions a node remembers (each a 32-character id and a sentence). */
  static final int ENDED_REMEMBERED = 4096;

  private final ComputeNodeServer server;
  private final int maxSessions;
  /** Nanoseconds, for the idle limits ({@link System#nanoTime}; tests advance their own). */
  private final LongSupplier clock;
  /** Sessions by hex session id. Guarded by this. */
  private final Map<String, Session> sessions = new HashMap<>();
  /**
   * Why each ended session ended, by hex id, the most recent {@link #ENDED_REMEMBERED}: a session id
   * is the coordinator's fresh random value, so an Open of an ended one is a replay and is refused.
   * Guarded by this.
   */
  private final Map<String, String> ended = new LinkedHashMap<>() {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
      return size() > ENDED_REMEMBERED;
    }
  };

  NodeService(ComputeNodeServer server, int maxSessions, LongSupplier clock) {
    this.server = server;
    this.maxSessions = maxSessions;
    this.clock = clock;
  }

  @Override
  public void open(NodeSession request, StreamObserver<NodeOpened> response) {
    String why = server.controlProblem(Tls.PEER_CERTIFICATE.get(), request.getConfig());
    if (why != null) {
      fail(response, Status.PERMISSION_DENIED, "Open refused: " + why);
      return;
    }
    Session s;
    try {
      s = server.admit(request.getConfig(), request.getRoster());
    } catch (IllegalArgumentException e) {
      fail(response, Status.INVALID_ARGUMENT, "Open refused: " + e.getMessage());
      return;
    }
    synchronized (this) {
      String over = ended.get(s.hex);
      if (over != null) {
        fail(response, Status.FAILED_PRECONDITION, "Open refused: session " + s.hex + " is over at this node ("
            + over + "); a session opens once");
        return;
      }
      Session old = sessions.get(s.hex);
      if (old != null && !(old.config.equals(s.config) && old.roster.equals(s.roster))) {
        fail(response, Status.ALREADY_EXISTS, "Open refused: session " + s.hex + " is already open here with another "
            + "configuration or roster");
        return;
      }
      if (old == null) {
        if (sessions.size() >= maxSessions) {
          expire();
        }
        if (sessions.size() >= maxSessions) {
          fail(response, Status.RESOURCE_EXHAUSTED, "Open refused: this node holds " + sessions.size() + " open "
              + "session(s), its most (--max-sessions " + maxSessions + "); a session ends at its last release or "
              + "once the coordinator leaves it idle beyond its deadlines");
          return;
        }
        s.openedAt = clock.getAsLong();
        s.roundOpenedAt = s.openedAt;
        sessions.put(s.hex, s);
      } else {
        s = old;
      }
      s.touched = clock.getAsLong();
    }
    ComputeNodeServer.LOG.log(Level.INFO, "{0}: session {1} open, node {2} of {3}, {4} parties, {5} values of {6} bits",
        server.name(), s.hex, s.node + 1, s.nodes, s.roster.getPartiesCount(), s.length, s.bits);
    response.onNext(NodeOpened.newBuilder().setNode(s.node).setLength(s.length).setRingBits(s.bits)
        .setRounds(s.rounds).build());
    response.onCompleted();
  }

  @Override
  public StreamObserver<ShareChunk> upload(StreamObserver<UploadAck> response) {
    byte[] peer = Tls.PEER_CERTIFICATE.get();
    return new StreamObserver<>() {
      Session s;
      NodeRound round;
      int party = -1;
      byte[] share;
      int filled;
      long start;
      boolean done;

      @Override
      public void onNext(ShareChunk c) {
        if (done) {
          return;
        }
        long cpu0 = CPU.getCurrentThreadCpuTime();
        try {
          String why = party < 0 ? begin(c) : next(c);
          if (why != null) {
            finish(why);
            return;
          }
          c.getData().copyTo(share, filled);
          filled += c.getData().size();
        } finally {
          addCpu(cpu0);
        }
      }

      /** The first chunk names the session, round and party; checks them against the certificate. */
      private String begin(ShareChunk c) {
        synchronized (NodeService.this) {
          String hex = HexFormat.of().formatHex(c.getSessionId().toByteArray());
          s = sessions.get(hex);
          if (s == null) {
            String over = ended.get(hex);
            return over != null ? fatal(Status.FAILED_PRECONDITION, "session " + hex + " is over at this node: " + over)
                : fatal(Status.NOT_FOUND, "no session " + hex + " is open at this node");
          }
          Integer who = peer == null ? null : s.parties.get(HexFormat.of().formatHex(IdentityBinding.fingerprint(peer)));
          if (who == null) {
            return fatal(Status.PERMISSION_DENIED, "the uploader's certificate is not in the roster of session " + s.hex);
          }
          if (who != c.getParty()) {
            return fatal(Status.PERMISSION_DENIED, "an upload claiming to be from party " + c.getParty() + " with the "
                + "certificate of party " + who);
          }
          if (c.getRound() < 0 || c.getRound() >= s.rounds) { // uint32 on the wire
            return fatal(Status.OUT_OF_RANGE, "round " + c.getRound() + " does not exist: session " + s.hex + " runs "
                + s.rounds + " round(s)");
          }
          if (c.getRound() < s.open) {
            return fatal(Status.FAILED_PRECONDITION, "round " + c.getRound() + " is closed at this node");
          }
          if (c.getRound() > s.open) {
            // One round at a time: else one party made the node hold its shares of every round at once.
            return fatal(Status.FAILED_PRECONDITION, "round " + c.getRound() + " is not open at this node: session "
                + s.hex + " takes uploads for round " + s.open + " only, until this node has released it");
          }
          round = s.round(s.open);
          if (round.state != NodeRound.State.OPEN) {
            return fatal(Status.FAILED_PRECONDITION, "round " + c.getRound() + " is closed at this node");
          }
          if (round.seen(who)) {
            return fatal(Status.ALREADY_EXISTS, "party " + who + " already uploaded its share of round " + c.getRound()
                + " (a replay is refused; the first upload stands)");
          }
          party = who;
          round.uploading.set(party);
          start = System.nanoTime();
          if (round.firstNanos == 0) {
            round.firstNanos = start;
          }
          round.bytesIn += c.getSerializedSize();
          round.traffic.computeIfAbsent(party, k -> new long[2])[0] += c.getSerializedSize();
          if (c.getTotalBytes() != s.shareBytes()) {
            return malformed("a share of " + c.getTotalBytes() + " bytes; node " + (s.node + 1) + " of " + s.nodes
                + " takes " + (s.seeds() ? "32-byte seeds" : s.length + " elements of " + s.bits + " bits packed in "
                + s.shareBytes() + " bytes"));
          }
          share = new byte[(int) s.shareBytes()];
          return chunkProblem(c);
        }
      }

      private String next(ShareChunk c) {
        synchronized (NodeService.this) {
          if (s.ended) {
            return fatal(Status.FAILED_PRECONDITION, "session " + s.hex + " ended at this node during the upload");
          }
          round.bytesIn += c.getSerializedSize();
          round.traffic.get(party)[0] += c.getSerializedSize();
          if (round.state != NodeRound.State.OPEN) {
            return malformed("the round closed before its share was complete");
          }
          if (!c.getSessionId().equals(s.config.getSessionId()) || c.getRound() != round.round || c.getParty() != party
              || c.getTotalBytes() != share.length) {
            return malformed("a chunk that changes the session, round, party or size of its upload");
          }
          return chunkProblem(c);
        }
      }

      private String chunkProblem(ShareChunk c) {
        if (c.getData().size() > CHUNK_BYTES || filled + c.getData().size() > share.length) {
          return malformed("more than the " + share.length + " bytes its share has, or a chunk above " + CHUNK_BYTES
              + " bytes");
        }
        return null;
      }

      /** Refuses the upload without recording the party (it is not one, or the round is not open). */
      private String fatal(Status code, String why) {
        failure = code;
        return why;
      }

      /** Refuses the party's share for this round and records why; the coordinator drops it. */
      private String malformed(String why) {
        failure = Status.INVALID_ARGUMENT;
        if (round != null && party >= 0 && !round.shares.containsKey(party)) {
          round.refused.put(party, why);
          round.uploading.clear(party);
          NodeService.this.notifyAll();
        }
        return why;
      }

      Status failure;

      private void finish(String why) {
        done = true;
        erase();
        ComputeNodeServer.LOG.log(Level.WARNING, "{0}: upload refused: {1}", server.name(), why);
        fail(response, failure, why);
      }

      /** Zeroes a share that will not be kept (refused, cut off, or its session ended). */
      private void erase() {
        if (share != null) {
          Arrays.fill(share, (byte) 0);
        }
      }

      @Override
      public void onError(Throwable t) {
        if (!done && party >= 0) {
          synchronized (NodeService.this) {
            done = true;
            erase();
            round.uploading.clear(party);
            NodeService.this.notifyAll();
          }
        }
      }

      @Override
      public void onCompleted() {
        if (done) {
          return;
        }
        if (party < 0) {
          fail(response, Status.INVALID_ARGUMENT, "an empty upload");
          return;
        }
        long cpu0 = CPU.getCurrentThreadCpuTime();
        String why = null;
        synchronized (NodeService.this) {
          String packing;
          if (s.ended) {
            why = fatal(Status.FAILED_PRECONDITION, "session " + s.hex + " ended at this node during the upload");
          } else if (filled != share.length) {
            why = malformed("its share ended after " + filled + " of " + share.length + " bytes");
          } else if (!s.seeds() && (packing = BitPacking.problem(share, s.length, s.bits)) != null) {
            why = malformed("last share: " + packing);
          } else if (round.state != NodeRound.State.OPEN) {
            why = malformed("the round closed before its share was complete");
          } else {
            done = true;
            round.shares.put(party, share);
            round.uploading.clear(party);
            round.traffic.get(party)[1] = System.nanoTime() - start;
            UploadAck ack = UploadAck.newBuilder().setRound(round.round).setBytes(filled).build();
            round.bytesOut += ack.getSerializedSize();
            NodeService.this.notifyAll();
            response.onNext(ack);
            response.onCompleted();
          }
        }
        addCpu(cpu0);
        if (why != null) {
          finish(why);
        }
      }

      private void addCpu(long cpu0) {
        if (round != null) {
          synchronized (NodeService.this) {
            round.cpuNanos += CPU.getCurrentThreadCpuTime() - cpu0;
          }
        }
      }
    };
  }

  @Override
  public void arrivals(ArrivalsRequest request, StreamObserver<NodeArrivals> response) {
    long cpu0 = CPU.getCurrentThreadCpuTime();
    String why = server.controlProblem(Tls.PEER_CERTIFICATE.get(), null);
    if (why != null) {
      fail(response, Status.PERMISSION_DENIED, "Arrivals refused: " + why);
      return;
    }
    NodeArrivals.Builder out = NodeArrivals.newBuilder();
    synchronized (this) {
      Session s = controlled(request.getSessionId(), request.getRound(), "Arrivals", response);
      if (s == null) {
        return;
      }
      BitSet expected;
      try {
        expected = Bits.decode(request.getExpected().toByteArray(), s.roster.getPartiesCount());
      } catch (IllegalArgumentException e) {
        fail(response, Status.INVALID_ARGUMENT, "Arrivals refused: expected " + e.getMessage());
        return;
      }
      NodeRound r = s.round(s.open);
      // An honest coordinator waits at most one round deadline for arrivals; a longer wait would hold
      // the session (busy) past its expiry (the attacker's read of T3-12: 2^31 - 1 ms, 24.8 days).
      long wait = Math.min(Integer.toUnsignedLong(request.getWaitMillis()),
          TimeUnit.SECONDS.toMillis(s.config.getDeadlines().getRoundSeconds()));
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait);
      s.busy++;
      try {
        while (r.state == NodeRound.State.OPEN && !r.complete(expected)) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            break;
          }
          try {
            TimeUnit.NANOSECONDS.timedWait(this, left);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          }
        }
      } finally {
        s.busy--;
        s.touched = clock.getAsLong();
      }
      if (r.state == NodeRound.State.OPEN) {
        r.state = NodeRound.State.CLOSED;
        ComputeNodeServer.LOG.log(Level.INFO, "{0}: session {1} round {2} closed with {3} share(s), {4} refused",
            server.name(), s.hex, r.round, r.shares.size(), r.refused.size());
      }
      out.setArrived(ByteString.copyFrom(Bits.encode(r.arrived(), s.roster.getPartiesCount())));
      r.refused.forEach((p, reason) -> out.addRefused(NodeDrop.newBuilder().setParty(p).setReason(reason)));
      r.traffic.forEach((p, t) -> out.addTraffic(PartyTraffic.newBuilder().setParty(p).setBytes(t[0])
          .setSeconds(t[1] / 1e9)));
      NodeArrivals a = out.build();
      r.bytesIn += request.getSerializedSize();
      r.bytesOut += a.getSerializedSize();
      r.cpuNanos += CPU.getCurrentThreadCpuTime() - cpu0;
      response.onNext(a);
    }
    response.onCompleted();
  }

  @Override
  public void release(ReleaseRequest request, StreamObserver<NodeSum> response) {
    long cpu0 = CPU.getCurrentThreadCpuTime();
    String why = server.controlProblem(Tls.PEER_CERTIFICATE.get(), null);
    if (why != null) {
      fail(response, Status.PERMISSION_DENIED, "Release refused: " + why);
      return;
    }
    Session s;
    NodeRound r;
    int[] contributors;
    byte[][] held;
    synchronized (this) {
      s = controlled(request.getSessionId(), request.getRound(), "Release", response);
      if (s == null) {
        return;
      }
      r = s.round(s.open);
      BitSet set;
      try {
        set = Bits.decode(request.getContributors().toByteArray(), s.roster.getPartiesCount());
      } catch (IllegalArgumentException e) {
        fail(response, Status.INVALID_ARGUMENT, "Release refused: contributors " + e.getMessage());
        return;
      }
      BitSet missing = (BitSet) set.clone();
      missing.andNot(r.arrived());
      if (set.cardinality() < s.config.getMinContributors()) {
        fail(response, Status.FAILED_PRECONDITION, "Release refused: " + set.cardinality() + " contributors, fewer than "
            + "min_contributors = " + s.config.getMinContributors());
        return;
      }
      if (!missing.isEmpty()) {
        fail(response, Status.FAILED_PRECONDITION, "Release refused: parties " + missing + " are named but this node "
            + "holds no share of theirs");
        return;
      }
      // Released from here on, whatever happens next: no second subset. The next round opens.
      r.state = NodeRound.State.RELEASED;
      s.open++;
      s.roundOpenedAt = clock.getAsLong();
      s.busy++;
      contributors = set.stream().toArray();
      held = r.sharesOf(contributors);
    }
    // The sum runs on worker threads whose CPU time the handler's thread does not see: it is counted
    // by its wall time (the workers are busy throughout).
    long sum0 = System.nanoTime();
    long handlerCpu = CPU.getCurrentThreadCpuTime() - cpu0;
    long[] sum = NodeRound.sum(held, s.seeds(), s.length, s.bits, server.threads());
    long sumNanos = System.nanoTime() - sum0;
    NodeSum.Builder out = NodeSum.newBuilder().setSum(ByteString.copyFrom(BitPacking.pack(sum, s.bits)))
        .setContributors(contributors.length);
    synchronized (this) {
      r.erase();
      s.byRound.remove(r.round);
      s.busy--;
      s.touched = clock.getAsLong();
      if (s.ended) {
        // Only a stopping node ends a session during its Release; the shares were zeroed meanwhile.
        Arrays.fill(sum, 0);
        fail(response, Status.UNAVAILABLE, "Release refused: session " + s.hex + " ended during the release (the node "
            + "is stopping)");
        return;
      }
      r.bytesIn += request.getSerializedSize();
      r.cpuNanos += handlerCpu + sumNanos;
      r.bytesOut += out.build().getSerializedSize();
      out.setBytesIn(r.bytesIn).setBytesOut(r.bytesOut).setCpuSeconds(r.cpuNanos / 1e9)
          .setWallSeconds(r.firstNanos == 0 ? 0 : (System.nanoTime() - r.firstNanos) / 1e9);
      server.record(r);
      if (s.open == s.rounds && !s.ended) {
        end(s, "every round was already released by this node; it answers once per round (the sums of two subsets "
            + "would isolate a party)");
      }
    }
    ComputeNodeServer.LOG.log(Level.INFO, "{0}: session {1} round {2} released the sum of {3} contributors",
        server.name(), s.hex, r.round, contributors.length);
    response.onNext(out.build());
    response.onCompleted();
  }

  /**
   * The open session a control call names, for the round it takes now (the lowest one this node
   * has not released), touched; or null after failing the call. Called holding this.
   */
  private Session controlled(ByteString sessionId, int round, String call, StreamObserver<?> response) {
    String hex = HexFormat.of().formatHex(sessionId.toByteArray());
    Session s = sessions.get(hex);
    if (s == null) {
      String over = ended.get(hex);
      if (over != null) {
        fail(response, Status.FAILED_PRECONDITION, call + " refused: session " + hex + " is over at this node: " + over);
      } else {
        fail(response, Status.NOT_FOUND, call + " refused: no such session or round here");
      }
      return null;
    }
    if (round < 0 || round >= s.rounds) { // uint32 on the wire
      fail(response, Status.NOT_FOUND, call + " refused: no such session or round here");
      return null;
    }
    if (round < s.open) {
      ComputeNodeServer.LOG.log(Level.WARNING, "{0}: session {1}: {2} of released round {3} refused", server.name(),
          s.hex, call, round);
      fail(response, Status.FAILED_PRECONDITION, call + " refused: round " + round + " of session " + s.hex
          + " was already released by this node; it answers once per round (the sums of two subsets would "
          + "isolate a party)");
      return null;
    }
    if (round > s.open) {
      fail(response, Status.FAILED_PRECONDITION, call + " refused: round " + round + " of session " + s.hex
          + " is not open at this node; round " + s.open + " is");
      return null;
    }
    // Only a call this node accepts keeps the session alive (refused pings kept it forever: the
    // attacker's read of T3-12).
    s.touched = clock.getAsLong();
    return s;
  }

  /**
   * Ends every session the coordinator has left idle beyond its limit ({@link Session#idleNanos}),
   * e.g. one whose session aborted: its shares are zeroed. Runs periodically and before a full
   * node refuses an Open.
   *
   * @return how many sessions ended
   */
  synchronized int expire() {
    long now = clock.getAsLong();
    List<Session> idle = sessions.values().stream().filter(s -> s.busy == 0 && now - s.touched > s.idleNanos)
        .toList();
    for (Session s : idle) {
      end(s, "it expired: the coordinator called nothing for more than " + TimeUnit.NANOSECONDS.toSeconds(s.idleNanos)
          + " s, beyond its deadlines; the shares it held were erased");
    }
    // A busy call ends within one round deadline (Arrivals waits at most that long), so an
    // over-age session is ended at the first sweep after its calls return.
    List<Session> old = sessions.values().stream().filter(s -> s.busy == 0 && now - s.openedAt > s.lifetimeNanos)
        .toList();
    for (Session s : old) {
      end(s, "it outlived every deadline its session publishes (" + TimeUnit.NANOSECONDS.toSeconds(s.lifetimeNanos)
          + " s since it opened); the shares it held were erased");
    }
    List<Session> stuck = sessions.values().stream().filter(s -> s.busy == 0 && now - s.roundOpenedAt > s.idleNanos)
        .toList();
    for (Session s : stuck) {
      end(s, "its round " + s.open + " was not released within " + TimeUnit.NANOSECONDS.toSeconds(s.idleNanos)
          + " s of opening, beyond its deadlines; the shares it held were erased");
    }
    return idle.size() + old.size() + stuck.size();
  }

  /** Ends every session (the node stops): their shares are zeroed. */
  synchronized void endAll() {
    for (Session s : List.copyOf(sessions.values())) {
      end(s, "the node stopped; the shares it held were erased");
    }
  }

  /** Forgets a session, zeroing every share it holds, and remembers why. Called holding this. */
  private void end(Session s, String why) {
    sessions.remove(s.hex);
    s.ended = true;
    for (NodeRound r : s.byRound.values()) {
      r.erase();
    }
    s.byRound.clear();
    ended.put(s.hex, why);
    notifyAll();
    ComputeNodeServer.LOG.log(Level.INFO, "{0}: session {1} ended: {2}", server.name(), s.hex, why);
  }

  private static void fail(StreamObserver<?> response, Status code, String why) {
    response.onError(code.withDescription(why).asRuntimeException());
  }

  /** Whether the session is open here (for tests). */
  synchronized boolean hasSession(byte[] sessionId) {
    return sessions.containsKey(HexFormat.of().formatHex(sessionId));
  }

  /** How many sessions are open here (for tests). */
  synchronized int sessionCount() {
    return sessions.size();
  }

  /** The very arrays of the shares the session holds now, not copies (for tests of their erasure). */
  synchronized List<byte[]> heldShares(byte[] sessionId) {
    Session s = sessions.get(HexFormat.of().formatHex(sessionId));
    return s == null ? List.of() : s.byRound.values().stream().flatMap(r -> r.shares.values().stream()).toList();
  }

  static boolean same(byte[] a, byte[] b) {
    return Arrays.equals(a, b);
  }
}
