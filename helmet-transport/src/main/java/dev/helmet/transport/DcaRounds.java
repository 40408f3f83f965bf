package dev.helmet.transport;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.protobuf.ByteString;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.secagg.ring.BitPacking;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.transport.store.Store;
import dev.helmet.transport.wire.ArrivalsRequest;
import dev.helmet.transport.wire.ComputeNodeEntry;
import dev.helmet.transport.wire.ComputeNodeGrpc;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.NodeArrivals;
import dev.helmet.transport.wire.NodeDrop;
import dev.helmet.transport.wire.NodeOpened;
import dev.helmet.transport.wire.NodeSession;
import dev.helmet.transport.wire.NodeSum;
import dev.helmet.transport.wire.PartyTraffic;
import dev.helmet.transport.wire.ReleaseRequest;
import dev.helmet.transport.wire.Roster;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator's side of a dca session: it opens the session at every compute node (the
 * published configuration and the roster) and runs each round. Every party uploads share l to node
 * l itself; each node reports who arrived; the coordinator takes the intersection S (a party
 * missing at any node is in no sum), checks |S| >= min_contributors, charges the round, and asks
 * every node for its sum over S, once; the sum of the node sums mod 2^b is the round's sum. It
 * never holds a share, and the nodes' sums reveal nothing beyond the total unless all collude.
 */
final class DcaRounds implements AutoCloseable {
  /** One round's sum, its contributors and the parties dropped in it. */
  record Summed(long[] sum, int[] contributors, List<SummationOutcome.Drop> drops) {}

  private final Coordinator c;
  private final List<ComputeNodeEntry> nodes;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final int parties;
  private final int length;
  private final int bits;
  // Totals over the rounds, per node and per party.
  private final long[] nodeIn;
  private final long[] nodeOut;
  private final double[] nodeCpu;
  private final double[] nodeWall;
  private final long[] partyBytes;
  private final double[] partySeconds;

  private DcaRounds(Coordinator c, int parties, PublicPlan plan) {
    this.c = c;
    this.nodes = c.config.getComputeNodesList();
    this.parties = parties;
    this.length = plan.length();
    this.bits = plan.encoding().ringBits();
    int m = nodes.size();
    nodeIn = new long[m];
    nodeOut = new long[m];
    nodeCpu = new double[m];
    nodeWall = new double[m];
    partyBytes = new long[parties];
    partySeconds = new double[parties];
    for (ComputeNodeEntry e : nodes) {
      channels.add(c.settings.transport().channel(e.getEndpoint(), NodeTls.pinned(c.settings.tls(),
          e.getCertificateSha256().toByteArray(), e.getName())).maxInboundMessageSize(Participant.MAX_INBOUND_BYTES)
          .build());
    }
  }

  /** Opens the session at every node; each must derive the coordinator's vector length, ring and rounds. */
  static DcaRounds open(Coordinator c, Roster roster, PublicPlan plan) throws RoundDriver.Abort {
    if (c.settings.tls() == null) {
      throw new RoundDriver.Abort("protocol dca needs mutual TLS: the compute nodes know parties by their certificates");
    }
    DcaRounds d = new DcaRounds(c, roster.getPartiesCount(), plan);
    NodeSession session = NodeSession.newBuilder().setConfig(c.config).setRoster(roster).build();
    List<ListenableFuture<NodeOpened>> fs = new ArrayList<>();
    for (int l = 0; l < d.nodes.size(); l++) {
      fs.add(d.stub(l).withDeadlineAfter(60, TimeUnit.SECONDS).open(session));
    }
    for (int l = 0; l < d.nodes.size(); l++) {
      NodeOpened o = d.get(fs.get(l), l, "refused the session");
      d.nodeIn[l] += session.getSerializedSize();
      d.nodeOut[l] += o.getSerializedSize();
      if (o.getNode() != l || o.getLength() != d.length || o.getRingBits() != d.bits || o.getRounds() != plan.rounds()) {
        d.close();
        throw new RoundDriver.Abort("compute node " + d.nodes.get(l).getName() + " derived node " + o.getNode()
            + ", " + o.getLength() + " values of " + o.getRingBits() + " bits and " + o.getRounds() + " round(s); the "
            + "coordinator derived node " + l + ", " + d.length + ", " + d.bits + " and " + plan.rounds());
      }
    }
    Coordinator.LOG.log(Level.INFO, "session {0}: opened at {1} compute nodes", c.sessionHex, d.nodes.size());
    return d;
  }

  private ComputeNodeGrpc.ComputeNodeFutureStub stub(int l) {
    return ComputeNodeGrpc.newFutureStub(channels.get(l));
  }

  private <T> T get(ListenableFuture<T> f, int l, String what) throws RoundDriver.Abort {
    try {
      return f.get();
    } catch (ExecutionException e) {
      Status s = Status.fromThrowable(e.getCause());
      throw new RoundDriver.Abort("compute node " + nodes.get(l).getName() + " (" + nodes.get(l).getEndpoint() + ") "
          + what + ": " + s.getCode() + (s.getDescription() == null ? "" : " (" + s.getDescription() + ")"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RoundDriver.Abort("the coordinator was stopped");
    }
  }

  /**
   * Round {@code r}: sends {@code opening} to every connected party, collects the arrivals, and
   * releases the sum over their intersection, charged before it is obtained.
   *
   * @throws RoundDriver.Abort if a node fails or fewer than min_contributors parties' shares reached
   *     every node (nothing of the round is released)
   */
  Summed round(int r, CoordinatorMessage opening, String prefix) throws RoundDriver.Abort, InterruptedException {
    String stage = prefix + "DCA_UPLOAD";
    long stageStart = System.nanoTime();
    List<Peer> live = new ArrayList<>();
    BitSet expected = new BitSet();
    c.lock.lock();
    try {
      c.stagePrefix = prefix;
      c.dcaStage = "DCA_UPLOAD";
      c.dcaDrops = List.of();
      c.stageDeadline = c.deadlineAfterRound();
      c.stageAnswered = 0;
      for (Peer p : c.enrolled) {
        if (!c.gone.get(p.party)) {
          live.add(p);
          expected.set(p.party);
        }
      }
      c.stageExpected = expected.cardinality();
    } finally {
      c.lock.unlock();
    }
    long sendBy = c.deadlineAfterRound();
    for (Peer p : live) {
      c.out.sendCounted(p, opening, sendBy);
    }
    c.store.stage(c.sessionHex, Store.Status.RUNNING, stage);
    int waitMillis = (int) Math.min(Integer.MAX_VALUE, TimeUnit.SECONDS.toMillis(c.config.getDeadlines().getRoundSeconds()));
    ArrivalsRequest ask = ArrivalsRequest.newBuilder().setSessionId(c.config.getSessionId()).setRound(r)
        .setExpected(ByteString.copyFrom(Bits.encode(expected, parties))).setWaitMillis(waitMillis).build();
    List<ListenableFuture<NodeArrivals>> fs = new ArrayList<>();
    for (int l = 0; l < nodes.size(); l++) {
      fs.add(stub(l).withDeadlineAfter(waitMillis + 30_000L, TimeUnit.MILLISECONDS).arrivals(ask));
    }
    BitSet s = (BitSet) expected.clone();
    Map<Integer, List<String>> why = new LinkedHashMap<>();
    for (int l = 0; l < nodes.size(); l++) {
      NodeArrivals a = get(fs.get(l), l, "did not report round " + r + "'s arrivals");
      BitSet arrived;
      try {
        arrived = Bits.decode(a.getArrived().toByteArray(), parties);
      } catch (IllegalArgumentException e) {
        throw new RoundDriver.Abort("compute node " + nodes.get(l).getName() + "'s arrivals " + e.getMessage());
      }
      String name = nodes.get(l).getName();
      for (int p = expected.nextSetBit(0); p >= 0; p = expected.nextSetBit(p + 1)) {
        if (!arrived.get(p)) {
          why.computeIfAbsent(p, k -> new ArrayList<>()).add(name + ": no share");
        }
      }
      for (NodeDrop d : a.getRefusedList()) {
        if (d.getParty() < parties) {
          List<String> list = why.computeIfAbsent(d.getParty(), k -> new ArrayList<>());
          list.removeIf(x -> x.equals(name + ": no share"));
          list.add(0, name + ": " + d.getReason());
          arrived.clear(d.getParty());
        }
      }
      for (PartyTraffic t : a.getTrafficList()) {
        if (t.getParty() < parties) {
          partyBytes[t.getParty()] += t.getBytes();
          partySeconds[t.getParty()] = Math.max(partySeconds[t.getParty()], t.getSeconds());
        }
      }
      s.and(arrived);
    }
    List<SummationOutcome.Drop> drops = new ArrayList<>();
    for (var e : why.entrySet()) {
      boolean malformed = e.getValue().stream().anyMatch(x -> !x.endsWith(": no share"));
      drops.add(new SummationOutcome.Drop(e.getKey(), stage, malformed ? "MALFORMED_INPUT" : "NO_RESPONSE",
          String.join("; ", e.getValue())));
    }
    c.lock.lock();
    try {
      c.dcaDrops = drops;
      for (SummationOutcome.Drop d : drops) {
        // A party whose share is missing anywhere is in no sum, now or later: later rounds skip it.
        c.gone.set(d.party());
        c.dropRecorded.set(d.party());
        c.store.event(c.sessionHex, stage, d.party(), "DROP", d.reason(), d.detail());
        c.listener.event("DROP", d.reason());
        Coordinator.LOG.log(Level.INFO, "session {0}: dropped party {1} in {2}: {3} ({4})", c.sessionHex, d.party(),
            stage, d.reason(), d.detail());
      }
    } finally {
      c.lock.unlock();
    }
    c.store.roundOutcome(c.sessionHex, stage, expected.cardinality(), s.cardinality());
    c.listener.stageClosed(stage, (System.nanoTime() - stageStart) / 1e9, expected.cardinality(), s.cardinality(), 0);
    if (s.cardinality() < c.config.getMinContributors()) {
      throw new RoundDriver.Abort((prefix.isEmpty() ? "" : "round " + r + ": ") + "dca: the shares of only "
          + s.cardinality() + " parties reached every compute node; min_contributors = " + c.config.getMinContributors());
    }
    return release(r, s, prefix, drops);
  }

  /** Charges the round, then asks every node for its sum over {@code s}, once. */
  private Summed release(int r, BitSet s, String prefix, List<SummationOutcome.Drop> drops) throws RoundDriver.Abort {
    c.lock.lock();
    try {
      c.dcaStage = "DCA_RELEASE";
      // Charged before any node can answer (a crash in between over-charges, which is safe); taken
      // back only if a node's sum is missing, since then the coordinator holds no total.
      c.store.roundsReleased(c.sessionHex, c.releasedRounds + 1);
    } finally {
      c.lock.unlock();
    }
    ReleaseRequest req = ReleaseRequest.newBuilder().setSessionId(c.config.getSessionId()).setRound(r)
        .setContributors(ByteString.copyFrom(Bits.encode(s, parties))).build();
    List<ListenableFuture<NodeSum>> fs = new ArrayList<>();
    for (int l = 0; l < nodes.size(); l++) {
      fs.add(stub(l).withDeadlineAfter(c.config.getDeadlines().getRoundSeconds() + 30L, TimeUnit.SECONDS).release(req));
    }
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    long[] sum = new long[length];
    try {
      for (int l = 0; l < nodes.size(); l++) {
        NodeSum ns = get(fs.get(l), l, "did not release round " + r);
        String problem = BitPacking.problem(ns.getSum().toByteArray(), length, bits);
        if (problem != null || ns.getContributors() != s.cardinality()) {
          throw new RoundDriver.Abort("compute node " + nodes.get(l).getName() + " sent a malformed sum for round " + r
              + ": " + (problem != null ? problem : ns.getContributors() + " contributors, " + s.cardinality() + " named"));
        }
        BitPacking.addInto(sum, ns.getSum().toByteArray(), bits);
        nodeIn[l] += ns.getBytesIn();
        nodeOut[l] += ns.getBytesOut();
        nodeCpu[l] += ns.getCpuSeconds();
        nodeWall[l] += ns.getWallSeconds();
      }
    } catch (RoundDriver.Abort a) {
      c.lock.lock();
      try {
        c.store.roundsReleased(c.sessionHex, c.releasedRounds);
      } finally {
        c.lock.unlock();
      }
      throw a;
    }
    for (int i = 0; i < length; i++) {
      sum[i] &= mask;
    }
    c.lock.lock();
    try {
      c.releasedRounds++;
      c.dcaStage = "BETWEEN_ROUNDS";
    } finally {
      c.lock.unlock();
    }
    Coordinator.LOG.log(Level.INFO, "session {0}: {1}dca released the sum of {2} contributors from {3} nodes",
        c.sessionHex, prefix, s.cardinality(), nodes.size());
    return new Summed(sum, s.stream().toArray(), drops);
  }

  /** Bytes all parties uploaded to the nodes. */
  long uploadBytes() {
    long t = 0;
    for (long b : partyBytes) {
      t += b;
    }
    return t;
  }

  /**
   * The summation's parameters for the report: per node (as the nodes count it: bytes received
   * from the parties and the coordinator, bytes sent, CPU seconds of their handlers, wall seconds
   * from the first upload to the sum, over all rounds) and per party (bytes to the coordinator and
   * to the nodes, and its slowest upload's seconds, the longest over the rounds).
   */
  Map<String, Object> parameters() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("summation", "dca");
    p.put("servers", nodes.size());
    p.put("min_contributors", c.config.getMinContributors());
    List<Map<String, Object>> ns = new ArrayList<>();
    for (int l = 0; l < nodes.size(); l++) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("node", nodes.get(l).getName());
      m.put("endpoint", nodes.get(l).getEndpoint());
      m.put("receives", l < nodes.size() - 1 ? "seeds" : "last shares");
      m.put("bytes_in", nodeIn[l]);
      m.put("bytes_out", nodeOut[l]);
      m.put("cpu_seconds", nodeCpu[l]);
      m.put("wall_seconds", nodeWall[l]);
      ns.add(m);
    }
    p.put("nodes", ns);
    List<Map<String, Object>> ps = new ArrayList<>();
    c.lock.lock();
    try {
      for (Peer peer : c.enrolled) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("party", peer.party);
        m.put("bytes_coordinator", peer.bytesIn + peer.bytesOut);
        m.put("bytes_nodes", partyBytes[peer.party]);
        m.put("upload_seconds", partySeconds[peer.party]);
        ps.add(m);
      }
    } finally {
      c.lock.unlock();
    }
    p.put("per_party", ps);
    return p;
  }

  @Override
  public void close() {
    for (ManagedChannel ch : channels) {
      ch.shutdownNow();
    }
  }
}
