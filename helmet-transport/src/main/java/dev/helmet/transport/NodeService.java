package dev.helmet.transport;

import com.google.protobuf.ByteString;
import dev.helmet.protocols.algorithm.PublicPlan;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A compute node's gRPC service: the sessions the coordinator opened, each party's share per
 * round, and one sum per round. Logs name sessions, rounds, parties, sizes and reasons, never a
 * share or a sum.
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

    Session(SessionConfig config, Roster roster, int node, PublicPlan plan) {
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
    }

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

  private final ComputeNodeServer server;
  /** Sessions by hex session id. Guarded by this. */
  private final Map<String, Session> sessions = new HashMap<>();

  NodeService(ComputeNodeServer server) {
    this.server = server;
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
      Session old = sessions.get(s.hex);
      if (old != null && !(old.config.equals(s.config) && old.roster.equals(s.roster))) {
        fail(response, Status.ALREADY_EXISTS, "Open refused: session " + s.hex + " is already open here with another "
            + "configuration or roster");
        return;
      }
      if (old == null) {
        sessions.put(s.hex, s);
      }
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
          System.arraycopy(c.getData().toByteArray(), 0, share, filled, c.getData().size());
          filled += c.getData().size();
        } finally {
          addCpu(cpu0);
        }
      }

      /** The first chunk names the session, round and party; checks them against the certificate. */
      private String begin(ShareChunk c) {
        synchronized (NodeService.this) {
          s = sessions.get(HexFormat.of().formatHex(c.getSessionId().toByteArray()));
          if (s == null) {
            return fatal(Status.NOT_FOUND, "no session " + HexFormat.of().formatHex(c.getSessionId().toByteArray())
                + " is open at this node");
          }
          Integer who = peer == null ? null : s.parties.get(HexFormat.of().formatHex(IdentityBinding.fingerprint(peer)));
          if (who == null) {
            return fatal(Status.PERMISSION_DENIED, "the uploader's certificate is not in the roster of session " + s.hex);
          }
          if (who != c.getParty()) {
            return fatal(Status.PERMISSION_DENIED, "an upload claiming to be from party " + c.getParty() + " with the "
                + "certificate of party " + who);
          }
          if (c.getRound() >= s.rounds) {
            return fatal(Status.OUT_OF_RANGE, "round " + c.getRound() + " does not exist: session " + s.hex + " runs "
                + s.rounds + " round(s)");
          }
          round = s.round(c.getRound());
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
        ComputeNodeServer.LOG.log(Level.WARNING, "{0}: upload refused: {1}", server.name(), why);
        fail(response, failure, why);
      }

      @Override
      public void onError(Throwable t) {
        if (!done && party >= 0) {
          synchronized (NodeService.this) {
            done = true;
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
          if (filled != share.length) {
            why = malformed("its share ended after " + filled + " of " + share.length + " bytes");
          } else if (!s.seeds() && (packing = BitPacking.problem(share, s.length, s.bits)) != null) {
            why = malformed("last share: " + packing);
          } else if (round.state != NodeRound.State.OPEN) {
            why = malformed("the round closed before its share was complete");
          } else {
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
      Session s = sessions.get(HexFormat.of().formatHex(request.getSessionId().toByteArray()));
      if (s == null || request.getRound() >= s.rounds) {
        fail(response, Status.NOT_FOUND, "Arrivals refused: no such session or round here");
        return;
      }
      BitSet expected;
      try {
        expected = Bits.decode(request.getExpected().toByteArray(), s.roster.getPartiesCount());
      } catch (IllegalArgumentException e) {
        fail(response, Status.INVALID_ARGUMENT, "Arrivals refused: expected " + e.getMessage());
        return;
      }
      NodeRound r = s.round(request.getRound());
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(request.getWaitMillis());
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
    synchronized (this) {
      s = sessions.get(HexFormat.of().formatHex(request.getSessionId().toByteArray()));
      if (s == null || request.getRound() >= s.rounds) {
        fail(response, Status.NOT_FOUND, "Release refused: no such session or round here");
        return;
      }
      r = s.round(request.getRound());
      if (r.state == NodeRound.State.RELEASED) {
        ComputeNodeServer.LOG.log(Level.WARNING, "{0}: session {1}: a second Release of round {2} refused", server.name(),
            s.hex, r.round);
        fail(response, Status.FAILED_PRECONDITION, "Release refused: round " + r.round + " of session " + s.hex
            + " was already released by this node; it answers once per round (the sums of two subsets would "
            + "isolate a party)");
        return;
      }
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
      // Released from here on, whatever happens next: no second subset.
      r.state = NodeRound.State.RELEASED;
      contributors = set.stream().toArray();
    }
    // The sum runs on worker threads whose CPU time the handler's thread does not see: it is counted
    // by its wall time (the workers are busy throughout).
    long sum0 = System.nanoTime();
    long handlerCpu = CPU.getCurrentThreadCpuTime() - cpu0;
    long[] sum = r.sum(contributors, s.seeds(), s.length, s.bits, server.threads());
    long sumNanos = System.nanoTime() - sum0;
    NodeSum.Builder out = NodeSum.newBuilder().setSum(ByteString.copyFrom(BitPacking.pack(sum, s.bits)))
        .setContributors(contributors.length);
    synchronized (this) {
      r.shares.clear();
      r.bytesIn += request.getSerializedSize();
      r.cpuNanos += handlerCpu + sumNanos;
      r.bytesOut += out.build().getSerializedSize();
      out.setBytesIn(r.bytesIn).setBytesOut(r.bytesOut).setCpuSeconds(r.cpuNanos / 1e9)
          .setWallSeconds(r.firstNanos == 0 ? 0 : (System.nanoTime() - r.firstNanos) / 1e9);
      server.record(r);
    }
    ComputeNodeServer.LOG.log(Level.INFO, "{0}: session {1} round {2} released the sum of {3} contributors",
        server.name(), s.hex, r.round, contributors.length);
    response.onNext(out.build());
    response.onCompleted();
  }

  private static void fail(StreamObserver<?> response, Status code, String why) {
    response.onError(code.withDescription(why).asRuntimeException());
  }

  /** Whether any session is open (for tests). */
  synchronized boolean hasSession(byte[] sessionId) {
    return sessions.containsKey(HexFormat.of().formatHex(sessionId));
  }

  static boolean same(byte[] a, byte[] b) {
    return Arrays.equals(a, b);
  }
}
