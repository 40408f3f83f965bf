package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.servers.ComputeServerSummation;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.transport.wire.ComputeNodeEntry;
import dev.helmet.transport.wire.ComputeNodeGrpc;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.ReleaseRequest;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Summation by compute nodes over the network (protocol dca, the cross-silo paper's Algorithm 1):
 * a coordinator, two compute nodes (in-process gRPC servers, each with its own certificate) and
 * three or four participants on the in-process network, with the identities of mutual TLS
 * ({@link InProcessNetwork}; the impostor node's refusal over TCP and real TLS). With the same seeds and the same
 * seeded test noise, the released model is bit for bit the in-process run's through
 * {@link ComputeServerSummation}, for any algorithm (helmet and dp-fl here, without a change to
 * either).
 */
@org.junit.jupiter.api.Tag("integration")
class DcaNetworkTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final long SEED = 17;
  private static final long NOISE = 5;
  private static final String DPFL = "{\"learner\": {\"clip_bound\": 10}, \"dpfl\": {\"sampling_rate\": 0.5, "
      + "\"grad_clip\": 1, \"rounds\": 3, \"learning_rate\": 2, \"accountant\": \"rdp\", \"neighbours\": "
      + "\"add-remove\", \"expected_batch\": 45}}";

  private static final String CROSS_SILO = "{\"learner\": {\"kind\": \"softmax\", \"clip_bound\": 10}, "
      + "\"crosssilo\": {\"colluders\": 0, \"sampling_rate\": 0.5, \"rounds\": 3, \"optimizer\": \"sgd\", "
      + "\"learning_rate\": 2}}";

  /** The certificates and two running compute nodes (on the in-process network unless told otherwise). */
  private record Nodes(Path certs, List<ComputeNodeServer> servers) implements AutoCloseable {
    static Nodes start(Path dir, int participants) throws Exception {
      return start(dir, participants, 2);
    }

    static Nodes start(Path dir, int participants, int count) throws Exception {
      return start(dir, participants, count, Loopback.IN_PROCESS);
    }

    static Nodes start(Path dir, int participants, int count, Transport transport) throws Exception {
      Path certs = dir.resolve("certs");
      Certificates.create(certs, List.of("localhost", "127.0.0.1"), participants, count, Duration.ofDays(1));
      List<ComputeNodeServer> servers = new ArrayList<>();
      for (int l = 1; l <= count; l++) {
        servers.add(ComputeNodeServer.start(new ComputeNodeServer.Settings("compute-node-" + l, "127.0.0.1", 0,
            Tls.Files.in(certs, "compute-node-" + l), null, 2).withTransport(transport)));
      }
      return new Nodes(certs, servers);
    }

    List<ComputeNodeEntry> entries() {
      List<ComputeNodeEntry> out = new ArrayList<>();
      for (ComputeNodeServer s : servers) {
        out.add(ComputeNodeEntry.newBuilder().setName(s.name()).setEndpoint("127.0.0.1:" + s.port())
            .setCertificateSha256(ByteString.copyFrom(s.certificateSha256())).build());
      }
      return out;
    }

    @Override
    public void close() {
      servers.forEach(ComputeNodeServer::close);
    }
  }

  private static SessionConfig config(String algorithm, String json, int w, int min, double eps,
      List<ComputeNodeEntry> nodes) {
    SessionConfig.Builder b = Loopback.config(DIGITS, w, min, eps).setColludingFraction(0.5).setProtocol("dca")
        .addAllComputeNodes(nodes);
    b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5));
    return Loopback.algorithm(b, algorithm, json).build();
  }

  private static Partition partition(int w, int per) {
    return new PartitionStrategy.Iid(w, per).split(DIGITS, new SplittableRandom(3));
  }

  private static long[] seeds(int w) {
    long[] seeds = new long[w];
    SplittableRandom root = new SplittableRandom(SEED);
    for (int i = 0; i < w; i++) {
      seeds[i] = root.nextLong();
    }
    return seeds;
  }

  /** The in-process run through two compute servers. */
  private static double[] inProcess(SessionConfig config, Partition partition) {
    Simulation.Prepared p = Loopback.rostered(config, Simulation.prepare(SessionPlan.spec(config), DIGITS, partition,
        SEED, 2, Progress.NONE));
    return Simulation.run(p, (int) config.getMinContributors(), new ComputeServerSummation(2, DropoutPlan.NONE, 2),
        NoiseFactory.seededForTesting(NOISE), 2, Progress.NONE).model().parameters();
  }

  /** A networked session: participant k enrols k-th, with the in-process party k's rows, seed and noise. */
  private static Run networked(SessionConfig config, Partition partition, Path dir, Path certs,
      IntFunction<Participant.Hook> hooks) throws Exception {
    return networked(config, partition, dir, certs, hooks, Loopback.IN_PROCESS);
  }

  /** As above, over {@code transport} (the coordinator's, its participants' and so the nodes'). */
  private static Run networked(SessionConfig config, Partition partition, Path dir, Path certs,
      IntFunction<Participant.Hook> hooks, Transport transport) throws Exception {
    int w = partition.count();
    long[] seeds = seeds(w);
    ExecutorService pool = Executors.newFixedThreadPool(w);
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7)
        .withTransport(transport))) {
      List<Future<Participant.Result>> fs = new ArrayList<>();
      for (int i = 0; i < w; i++) {
        int k = i;
        CountDownLatch enrolled = new CountDownLatch(1);
        Participant.Hook inner = hooks.apply(k);
        Participant.Hook hook = new Participant.Hook() {
          @Override
          public void received(CoordinatorMessage m, ManagedChannel channel) throws Participant.ParticipantException {
            if (m.hasEnrolled()) {
              enrolled.countDown();
            }
            inner.received(m, channel);
          }

          @Override
          public byte[] share(int node, byte[] share) {
            return inner.share(node, share);
          }
        };
        Dataset shard = DIGITS.subset(partition.indices(k), "shard " + k);
        fs.add(pool.submit(() -> Participant.run(Loopback.at(c, new Participant.Settings("127.0.0.1:" + c.port(),
            Tls.Files.in(certs, "participant-" + (k + 1)), ParticipantPolicy.upTo(1e7), shard, seeds[k], 120, null,
            NoiseFactory.seededForTesting(NOISE))), hook)));
        assertTrue(enrolled.await(60, TimeUnit.SECONDS), "participant " + k + " did not enrol");
      }
      Coordinator.Result r = c.await(120, TimeUnit.SECONDS);
      List<Participant.Result> results = new ArrayList<>();
      for (Future<Participant.Result> f : fs) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      return new Run(r, results, c.config());
    } finally {
      pool.shutdownNow();
    }
  }

  private record Run(Coordinator.Result result, List<Participant.Result> participants, SessionConfig published) {}

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Map<String, Object> m, String key) {
    return (List<Map<String, Object>>) m.get(key);
  }

  @Test
  void helmetThroughTwoComputeNodesIsBitForBitTheInProcessDcaAndReportsEveryNodeAndParty(@TempDir Path dir)
      throws Exception {
    try (Nodes nodes = Nodes.start(dir, 3)) {
      SessionConfig config = config("helmet", Loopback.HELMET, 3, 3, 1, nodes.entries());
      Partition p = partition(3, 40);
      Run run = networked(config, p, dir, nodes.certs(), k -> Participant.Hook.NONE);
      assertTrue(run.result().completed(), run.result().reason());
      assertArrayEquals(inProcess(config, p), run.result().model().weights().parameters());
      for (Participant.Result pr : run.participants()) {
        assertTrue(pr.completed(), pr.reason());
        assertArrayEquals(run.result().model().weights().parameters(), pr.model().weights().parameters());
      }
      assertTrue(run.result().model().privacy().guarantees().get(0).describe().contains("compute servers"),
          run.result().model().privacy().guarantees().get(0).describe());
      Map<String, Object> params = run.result().parameters();
      List<Map<String, Object>> ns = list(params, "nodes");
      assertEquals(List.of("compute-node-1", "compute-node-2"), ns.stream().map(m -> m.get("node")).toList());
      int d = SessionPlan.spec(config).length();
      // the seed node receives 3 seeds; the last node 3 packed shares of d 32-bit elements
      assertTrue(((Number) ns.get(0).get("bytes_in")).longValue() > 3 * 32, ns::toString);
      assertTrue(((Number) ns.get(1).get("bytes_in")).longValue() > 3L * 4 * d, ns::toString);
      assertTrue(((Number) ns.get(1).get("bytes_out")).longValue() > 4L * d, ns::toString);
      assertTrue(((Number) ns.get(1).get("cpu_seconds")).doubleValue() > 0, ns::toString);
      List<Map<String, Object>> ps = list(params, "per_party");
      assertEquals(3, ps.size());
      for (Map<String, Object> m : ps) {
        assertTrue(((Number) m.get("bytes_nodes")).longValue() > 4L * d, ps::toString);
        assertTrue(((Number) m.get("bytes_coordinator")).longValue() > 0, ps::toString);
      }
      for (Participant.Result pr : run.participants()) {
        assertTrue(pr.bytesSent() > 4L * d, "a participant's bytes include its uploads: " + pr.bytesSent());
      }
    }
  }

  @Test
  void dpFlThroughTwoComputeNodesIsBitForBitTheInProcessDca(@TempDir Path dir) throws Exception {
    try (Nodes nodes = Nodes.start(dir, 3)) {
      SessionConfig config = config("dp-fl", DPFL, 3, 3, 2, nodes.entries());
      Partition p = partition(3, 30);
      Run run = networked(config, p, dir, nodes.certs(), k -> Participant.Hook.NONE);
      assertTrue(run.result().completed(), run.result().reason());
      assertArrayEquals(inProcess(config, p), run.result().model().weights().parameters());
      assertEquals(3, run.result().model().privacy().details().get("rounds"));
    }
  }

  /**
   * Cross-silo (T = 0: each of 3 parties adds 1/2 of the noise variance) through two compute nodes
   * releases the in-process DCA model bit for bit, and its ledger names the tolerated colluders.
   */
  @Test
  void crossSiloThroughTwoComputeNodesIsBitForBitTheInProcessDca(@TempDir Path dir) throws Exception {
    try (Nodes nodes = Nodes.start(dir, 3)) {
      SessionConfig config = config("cross-silo", CROSS_SILO, 3, 3, 2, nodes.entries());
      Partition p = partition(3, 30);
      Run run = networked(config, p, dir, nodes.certs(), k -> Participant.Hook.NONE);
      assertTrue(run.result().completed(), run.result().reason());
      assertArrayEquals(inProcess(config, p), run.result().model().weights().parameters());
      var ledger = run.result().model().privacy();
      assertEquals(0, ledger.details().get("tolerated_colluders"));
      assertEquals(2, ledger.details().get("noise_shares"));
      assertTrue(ledger.guarantees().get(0).against().contains("T = 0 tolerated colluders"),
          ledger.guarantees().get(0).against());
    }
  }

  /**
   * One compute node sees every party's message: it is the in-the-clear baseline of the cross-silo
   * paper's Fig. 3 ("no encryption"). A session is admitted only when every message is DP by itself
   * (cross-silo's local noise split); it then releases the in-process plain sum's model bit for
   * bit, and the ledger says the summation is in the clear. Helmet's distributed noise through one
   * node is refused, naming the fix.
   */
  @Test
  void oneComputeNodeIsTheInTheClearBaselineOnlyForNoiseThatProtectsEachMessage(@TempDir Path dir) throws Exception {
    try (Nodes nodes = Nodes.start(dir, 3, 1)) {
      var refused = assertThrows(IllegalArgumentException.class, () -> SessionPlan.validate(
          config("helmet", Loopback.HELMET, 3, 3, 1, nodes.entries())));
      assertTrue(refused.getMessage().contains("noise_split: local"), refused.getMessage());
      SessionConfig config = config("cross-silo", CROSS_SILO.replace("\"colluders\": 0", "\"noise_split\": \"local\""),
          3, 3, 2, nodes.entries());
      Partition p = partition(3, 30);
      Run run = networked(config, p, dir, nodes.certs(), k -> Participant.Hook.NONE);
      assertTrue(run.result().completed(), run.result().reason());
      Simulation.Prepared prepared = Simulation.prepare(SessionPlan.spec(config), DIGITS, p, SEED, 2, Progress.NONE);
      double[] plain = Simulation.run(prepared, 3, new PlainSummation(), NoiseFactory.seededForTesting(NOISE), 2,
          Progress.NONE).model().parameters();
      assertArrayEquals(plain, run.result().model().weights().parameters());
      var ledger = run.result().model().privacy();
      assertTrue(ledger.guarantees().get(0).against().contains("the summation is in the clear"),
          ledger.guarantees().get(0).against());
      assertTrue(ledger.guarantees().get(1).against().contains("the server even in the clear"),
          ledger.guarantees().get(1).against());
      for (Participant.Result pr : run.participants()) {
        assertTrue(pr.completed(), pr.reason());
        assertTrue(pr.model().privacy().guarantees().get(0).against().contains("the summation is in the clear"));
      }
    }
  }

  /**
   * Party 3 sends compute node 2 a last share of the wrong size: node 2 refuses it with the reason
   * and the coordinator drops the party from the sum, which the other three release. A node answers
   * Release once per round: a second one for a released round is refused, as is a Release from a
   * participant's certificate, and an upload for a round that is closed.
   */
  @Test
  void aMalformedShareDropsThePartyWithTheReasonAndASecondReleaseIsRefused(@TempDir Path dir) throws Exception {
    try (Nodes nodes = Nodes.start(dir, 4)) {
      SessionConfig config = config("helmet", Loopback.HELMET, 4, 3, 1, nodes.entries());
      Run run = networked(config, partition(4, 30), dir, nodes.certs(), k -> k != 3 ? Participant.Hook.NONE
          : new Participant.Hook() {
            @Override
            public byte[] share(int node, byte[] share) {
              return node == 1 ? java.util.Arrays.copyOf(share, share.length - 1) : share;
            }
          });
      assertTrue(run.result().completed(), run.result().reason());
      assertEquals(List.of(0, 1, 2), run.result().contributors());
      assertEquals(1, run.result().dropped().size(), run.result().dropped()::toString);
      var drop = run.result().dropped().get(0);
      assertEquals(3, drop.party());
      assertEquals("MALFORMED_INPUT", drop.reason());
      assertTrue(drop.detail().startsWith("compute-node-2: a share of "), drop.detail());

      ReleaseRequest again = ReleaseRequest.newBuilder().setSessionId(run.published().getSessionId()).setRound(0)
          .setContributors(ByteString.copyFrom(new byte[] {7})).build();
      ComputeNodeEntry node = nodes.entries().get(0);
      for (String who : new String[] {"coordinator", "participant-1"}) {
        ManagedChannel ch = Loopback.IN_PROCESS.channel(node.getEndpoint(), NodeTls.pinned(
            Tls.Files.in(nodes.certs(), who), node.getCertificateSha256().toByteArray(), node.getName())).build();
        try {
          StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> ComputeNodeGrpc
              .newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS).release(again));
          String why = e.getStatus().getDescription();
          assertTrue(who.equals("coordinator") ? why.contains("already released") : why.contains("not the coordinator"),
              who + ": " + why);
        } finally {
          ch.shutdownNow();
        }
      }
    }
  }

  /**
   * A node must hold a compute node's certificate: the server refuses to start with a
   * participant's, and a coordinator whose session pins a participant's certificate for a node
   * (served by a node that presents it) cannot open the session there, so nothing is released.
   * Over TCP: the impostor is refused in a real TLS handshake.
   */
  @Test
  void aNodePresentingAParticipantCertificateIsRefused(@TempDir Path dir) throws Exception {
    try (Nodes nodes = Nodes.start(dir, 2, 2, Transport.NETTY)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ComputeNodeServer.start(
          new ComputeNodeServer.Settings("impostor", "127.0.0.1", 0, Tls.Files.in(nodes.certs(), "participant-1"), null,
              1)));
      assertTrue(e.getMessage().contains("OU=compute-node"), e.getMessage());
      // A gRPC server with the node service but participant-2's certificate, pinned by its digest.
      io.grpc.Server impostor = io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder.forAddress(
          new java.net.InetSocketAddress("127.0.0.1", 0), Tls.server(Tls.Files.in(nodes.certs(), "participant-2")))
          .addService(new ComputeNodeGrpc.ComputeNodeImplBase() { }).build().start();
      try {
        List<ComputeNodeEntry> entries = new ArrayList<>(nodes.entries());
        entries.set(0, ComputeNodeEntry.newBuilder().setName("impostor").setEndpoint("127.0.0.1:" + impostor.getPort())
            .setCertificateSha256(ByteString.copyFrom(IdentityBinding.fingerprint(IdentityBinding.certificate(
                Tls.Files.in(nodes.certs(), "participant-2"))))).build());
        SessionConfig config = config("helmet", Loopback.HELMET, 2, 2, 1, entries);
        Run run = networked(config, partition(2, 30), dir, nodes.certs(), k -> Participant.Hook.NONE, Transport.NETTY);
        assertFalse(run.result().completed());
        assertTrue(run.result().reason().contains("compute node impostor"), run.result().reason());
      } finally {
        impostor.shutdownNow();
      }
    }
  }
}
