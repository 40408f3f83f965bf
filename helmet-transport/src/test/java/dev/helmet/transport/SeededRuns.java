package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.transport.wire.ComputeNodeEntry;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One session configuration run by both runners with the same seeds and the same seeded (test-only)
 * noise: the in-process simulator, and a coordinator with participants over loopback in which
 * participant k holds the in-process party k's rows, seed and noise and enrols k-th (each waits until
 * the previous one is enrolled), so the roster order is the partition's. The parties' inputs are then
 * the same, a secure summation sums them exactly in the ring, and the server steps alike: both
 * runners release the same model bit for bit.
 */
final class SeededRuns {
  /** The root of the parties' training seeds. */
  static final long SEED = 17;
  /** The seed of the parties' (insecure, test-only) noise. */
  static final long NOISE = 5;

  private SeededRuns() {}

  /** Party k's training seed: the k-th draw of a generator seeded with {@link #SEED}, as {@link Simulation} draws them. */
  static long[] seeds(int parties) {
    long[] seeds = new long[parties];
    SplittableRandom root = new SplittableRandom(SEED);
    for (int i = 0; i < parties; i++) {
      seeds[i] = root.nextLong();
    }
    return seeds;
  }

  /**
   * The in-process run of {@code config}'s algorithm on {@code partition} of {@code data} through
   * {@code summation}, its plan derived from the sizes the networked roster would list.
   */
  static Simulation.Result inProcess(SessionConfig config, Dataset data, Partition partition,
      SecureSummation summation) {
    AlgorithmSpec spec = SessionPlan.spec(config);
    Simulation.Prepared p = Loopback.rostered(config, Simulation.prepare(spec, data, partition, SEED, 2,
        Progress.NONE));
    return Simulation.run(p, (int) config.getMinContributors(), summation, NoiseFactory.seededForTesting(NOISE), 2,
        Progress.NONE);
  }

  /** What a networked session released: the coordinator's result and every participant's. */
  record Networked(Coordinator.Result coordinator, List<Participant.Result> participants) {}

  /**
   * The networked run of {@code config} (the in-process gRPC transport, or over {@code nodes}' mutual TLS
   * when it sums through compute nodes), showing {@code sent} every message a participant sends.
   *
   * @param nodes the running compute nodes of a dca session, or null
   */
  static Networked networked(SessionConfig config, Dataset data, Partition partition, Path dir, ComputeNodes nodes,
      Consumer<ParticipantMessage> sent) throws Exception {
    return networked(config, data, partition, dir, nodes, sent, false, c -> {}, c -> {});
  }

  /**
   * As above; {@code tcp} runs the session over loopback TCP instead of the in-process transport
   * (for modules whose tests lack grpc-inprocess), {@code started} sees the coordinator before any
   * participant joins (to attach a status page), {@code finished} after the session ended and
   * before the coordinator closes (to read it).
   */
  static Networked networked(SessionConfig config, Dataset data, Partition partition, Path dir, ComputeNodes nodes,
      Consumer<ParticipantMessage> sent, boolean tcp, ThrowingConsumer<Coordinator> started,
      ThrowingConsumer<Coordinator> finished) throws Exception {
    int w = partition.count();
    long[] seeds = seeds(w);
    Tls.Files coordinatorTls = nodes == null ? null : Tls.Files.in(nodes.certs(), "coordinator");
    ExecutorService pool = Executors.newFixedThreadPool(w);
    // In process without compute nodes (the coordinator's and participants' code and messages, no
    // socket); the nodes' mutual TLS over loopback sockets with them.
    try (Coordinator c = Coordinator.start(nodes == null && !tcp ? Loopback.inProcess(config, dir, null, 1e7)
        : Loopback.settings(config, dir, coordinatorTls, 1e7))) {
      started.accept(c);
      List<Future<Participant.Result>> fs = new ArrayList<>();
      for (int i = 0; i < w; i++) {
        int k = i;
        CountDownLatch enrolled = new CountDownLatch(1);
        Participant.Hook hook = new Participant.Hook() {
          @Override
          public void received(CoordinatorMessage m, io.grpc.ManagedChannel channel) {
            if (m.hasEnrolled()) {
              enrolled.countDown();
            }
          }

          @Override
          public List<ParticipantMessage> sending(ParticipantMessage m) {
            sent.accept(m);
            return List.of(m);
          }
        };
        Dataset shard = data.subset(partition.indices(k), "shard " + k);
        Tls.Files tls = nodes == null ? null : Tls.Files.in(nodes.certs(), "participant-" + (k + 1));
        fs.add(pool.submit(() -> Participant.run(Loopback.at(c, new Participant.Settings("127.0.0.1:" + c.port(), tls,
            ParticipantPolicy.upTo(1e7), shard, seeds[k], 120, null, NoiseFactory.seededForTesting(NOISE))), hook)));
        assertTrue(enrolled.await(60, TimeUnit.SECONDS), "participant " + k + " did not enrol");
      }
      Coordinator.Result r = c.await(120, TimeUnit.SECONDS);
      List<Participant.Result> results = new ArrayList<>();
      for (Future<Participant.Result> f : fs) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      finished.accept(c);
      return new Networked(r, results);
    } finally {
      pool.shutdownNow();
    }
  }

  /** A step that sees the coordinator and may fail (a status page that cannot start, a read that fails). */
  interface ThrowingConsumer<T> {
    void accept(T t) throws Exception;
  }

  /** Certificates for a coordinator, {@code participants} participants and two running compute nodes. */
  record ComputeNodes(Path certs, List<ComputeNodeServer> servers) implements AutoCloseable {
    static ComputeNodes start(Path dir, int participants) throws Exception {
      Path certs = dir.resolve("certs");
      Certificates.create(certs, List.of("localhost", "127.0.0.1"), participants, 2, Duration.ofDays(1));
      List<ComputeNodeServer> servers = new ArrayList<>();
      try {
        for (int l = 1; l <= 2; l++) {
          servers.add(ComputeNodeServer.start(new ComputeNodeServer.Settings("compute-node-" + l, "127.0.0.1", 0,
              Tls.Files.in(certs, "compute-node-" + l), null, 2)));
        }
      } catch (Exception | Error e) {
        servers.forEach(ComputeNodeServer::close);
        throw e;
      }
      return new ComputeNodes(certs, servers);
    }

    /** The session's compute_nodes: each node's name, endpoint and certificate digest. */
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
}
