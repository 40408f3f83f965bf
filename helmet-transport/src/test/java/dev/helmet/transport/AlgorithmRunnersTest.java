package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every algorithm through both runners with the same code: the in-process simulator and the
 * networked coordinator and participants. With the same seeds, the same (seeded, test-only) noise
 * and the same roster order, a networked run releases bit for bit the model of the in-process run:
 * the parties' inputs are the same, SecAgg+ sums them exactly in the ring, and the server steps
 * alike. This holds for Helmet, DP-FL and a toy algorithm that lives only in the tests
 * ({@link dev.helmet.transport.toy.PrivateMean}), registered through the same registry and run
 * without any change to a runner.
 */
class AlgorithmRunnersTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final long SEED = 17;
  private static final long NOISE = 5;

  private static SessionConfig config(String algorithm, String json, int w, double eps) {
    SessionConfig.Builder b = Loopback.config(DIGITS, w, w, eps).setColludingFraction(0.5);
    b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5));
    return Loopback.algorithm(b, algorithm, json).build();
  }

  /** The in-process run of {@code config}'s algorithm on {@code partition}. */
  private static Simulation.Result inProcess(SessionConfig config, Partition partition, boolean secure) {
    AlgorithmSpec spec = SessionPlan.spec(config);
    Simulation.Prepared p = Loopback.rostered(config, Simulation.prepare(spec, DIGITS, partition, SEED, 2,
        Progress.NONE));
    return Simulation.run(p, (int) config.getMinContributors(), secure
        ? new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0.5, InProcessSecAgg.DROPOUTS_FROM_THRESHOLD,
            DropoutPlan.NONE, 2)
        : new PlainSummation(), NoiseFactory.seededForTesting(NOISE), 2, Progress.NONE);
  }

  /**
   * The networked run: participant k holds the in-process party k's rows and seed and enrols k-th
   * (each waits until the previous one is enrolled), so the roster order is the partition's.
   */
  private static double[] networked(SessionConfig config, Partition partition, Path dir) throws Exception {
    return networked(config, partition, dir, m -> { });
  }

  /** As above, showing {@code sent} every message a participant sends. */
  private static double[] networked(SessionConfig config, Partition partition, Path dir,
      java.util.function.Consumer<ParticipantMessage> sent) throws Exception {
    int w = partition.count();
    long[] seeds = new long[w];
    SplittableRandom root = new SplittableRandom(SEED);
    for (int i = 0; i < w; i++) {
      seeds[i] = root.nextLong();
    }
    ExecutorService pool = Executors.newFixedThreadPool(w);
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 1e7))) {
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
        Dataset shard = DIGITS.subset(partition.indices(k), "shard " + k);
        fs.add(pool.submit(() -> Participant.run(Loopback.at(c, new Participant.Settings("127.0.0.1:" + c.port(), null,
            ParticipantPolicy.upTo(1e7), shard, seeds[k], 120, null, NoiseFactory.seededForTesting(NOISE))), hook)));
        assertTrue(enrolled.await(60, TimeUnit.SECONDS), "participant " + k + " did not enrol");
      }
      Coordinator.Result r = c.await(120, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      for (Future<Participant.Result> f : fs) {
        Participant.Result pr = f.get(60, TimeUnit.SECONDS);
        assertTrue(pr.completed(), pr.reason());
        // Each participant states the model's guarantee from its own plan, never the coordinator's.
        assertEquals(r.model().privacy().epsilon(), pr.model().privacy().epsilon(), 0);
        assertArrayEquals(r.model().weights().parameters(), pr.model().weights().parameters());
      }
      return r.model().weights().parameters();
    } finally {
      pool.shutdownNow();
    }
  }

  private static Partition partition(int w, int per) {
    return new PartitionStrategy.Iid(w, per).split(DIGITS, new SplittableRandom(3));
  }

  @Test
  void helmetNetworkedIsBitForBitInProcess(@TempDir Path dir) throws Exception {
    SessionConfig config = config("helmet", Loopback.HELMET, 6, 1);
    Partition p = partition(6, 40);
    Simulation.Result plain = inProcess(config, p, false);
    assertArrayEquals(plain.model().parameters(), inProcess(config, p, true).model().parameters(), "secagg+ = plain");
    assertArrayEquals(plain.model().parameters(), networked(config, p, dir));
  }

  @Test
  void dpFlNetworkedIsBitForBitInProcess(@TempDir Path dir) throws Exception {
    SessionConfig config = config("dp-fl", "{\"learner\": {\"clip_bound\": 10}, \"dpfl\": {\"sampling_rate\": 0.5, "
        + "\"grad_clip\": 1, \"rounds\": 3, \"learning_rate\": 2, \"accountant\": \"rdp\", \"neighbours\": "
        + "\"add-remove\", \"expected_batch\": 90}}", 6, 2);
    Partition p = partition(6, 30);
    assertArrayEquals(inProcess(config, p, false).model().parameters(), networked(config, p, dir));
  }

  /**
   * The toy algorithm, registered only on the test class path, runs in both runners: in-process
   * through plain summation and SecAgg+ alike, over loopback bit for bit the same; with little noise
   * its class means are close to the true ones, and its accounted eps meets the target.
   */
  @Test
  void aToyAlgorithmRunsInBothRunnersWithoutAChangeToEither(@TempDir Path dir) throws Exception {
    assertTrue(Algorithms.ids().contains("private-mean"), Algorithms.ids());
    SessionConfig config = config("private-mean", "{\"mean\": {\"clip\": 1}}", 6, 1e4);
    Partition p = partition(6, 50);
    Simulation.Result plain = inProcess(config, p, false);
    assertArrayEquals(plain.model().parameters(), inProcess(config, p, true).model().parameters());
    assertTrue(plain.ledger().epsilon() <= 1e4 && plain.ledger().epsilon() > 0.99e4, "eps " + plain.ledger().epsilon());
    // The true class means of the clipped rows, divided by the total of records.
    AlgorithmSpec spec = SessionPlan.spec(config);
    var rows = spec.preprocessing().design(DIGITS, p.pooled());
    double[] truth = new double[spec.length()];
    for (int i = 0; i < rows.rows(); i++) {
      rows.axpy(i, 1.0 / rows.rows(), truth, rows.label(i) * rows.cols());
    }
    assertTrue(Loopback.maxDifference(truth, plain.model().parameters()) < 1e-2,
        "toy means off by " + Loopback.maxDifference(truth, plain.model().parameters()));
    assertArrayEquals(plain.model().parameters(), networked(config, p, dir));
  }

  /**
   * SMM-sized rings over gRPC: the toy summed in a 6- or 10-bit ring releases over loopback bit for
   * bit what both in-process runners release, and every masked input on the wire is the d = 650
   * elements bit-packed in ceil(b d / 8) bytes (488 and 813, the top 4 bits padding). With 6 bits
   * the ring keeps one fractional bit and the means all round to 0, so what is checked is that the
   * uniform masks cancel exactly; with 10 bits (5 fractional) some means survive.
   */
  @ParameterizedTest
  @CsvSource({"6, 488", "10, 813"})
  void smallRingsTravelBitPackedOverGrpcAndReleaseTheInProcessResult(int bits, int packedBytes, @TempDir Path dir)
      throws Exception {
    SessionConfig config = config("private-mean", "{\"mean\": {\"clip\": 1, \"ring_bits\": " + bits + "}}", 6, 1e4);
    AlgorithmSpec spec = SessionPlan.spec(config);
    assertEquals(650, spec.length());
    Partition p = partition(6, 50);
    Simulation.Result plain = inProcess(config, p, false);
    assertArrayEquals(plain.model().parameters(), inProcess(config, p, true).model().parameters());
    List<Integer> maskedSizes = java.util.Collections.synchronizedList(new ArrayList<>());
    double[] net = networked(config, p, dir, m -> {
      if (m.hasMaskedInput()) {
        maskedSizes.add(m.getMaskedInput().getValues().size());
      }
    });
    assertArrayEquals(plain.model().parameters(), net);
    assertEquals(java.util.Collections.nCopies(6, packedBytes), maskedSizes);
    assertEquals(bits == 10, java.util.Arrays.stream(net).anyMatch(v -> v != 0));
  }
}
