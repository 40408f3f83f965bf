package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.summation.DropoutPlan;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 4's acceptance run: a coordinator and 50 participants with real sockets and mutual TLS
 * train on MNIST (60 images each); with the same seeds and partition, the released model matches
 * the in-process simulation (same local models, InProcessSecAgg) up to noise and encoding. At
 * eps = 1e6 the noise is negligible, so both must equal the size-weighted mean of the local models
 * to within the fixed-point grid.
 */
@org.junit.jupiter.api.Tag("integration")
class MnistNetworkAcceptanceTest {
  @Test
  void fiftyTlsParticipantsMatchTheInProcessSimulation(@TempDir Path dir) throws Exception {
    BuiltinDataset.TrainTest mnist = BuiltinDataset.MNIST.load(BuiltinDataset.defaultCache());
    int w = 50;
    Partition partition = new PartitionStrategy.Iid(w, 60).split(mnist.train(), new SplittableRandom(1));
    var config = Loopback.algorithm(Loopback.config(mnist.train(), w, w, 1e6), "helmet",
        Loopback.HELMET.replace("\"epochs\": 10, \"batch_size\": 10", "\"epochs\": 50, \"batch_size\": 5")).build();
    var spec = SessionPlan.spec(config);
    Simulation.Result simulated = Simulation.run(Simulation.prepare(spec, mnist.train(), partition, 21, 2,
        Progress.NONE), w, new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0,
            InProcessSecAgg.DROPOUTS_FROM_THRESHOLD, DropoutPlan.NONE, 2), NoiseFactory.secure(), 2, Progress.NONE);
    SplittableRandom root = new SplittableRandom(21);
    List<Long> seeds = new ArrayList<>();
    List<Dataset> shards = new ArrayList<>();
    for (int i = 0; i < w; i++) {
      seeds.add(root.nextLong());
      shards.add(mnist.train().subset(partition.indices(i), "shard " + i));
    }
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), w, Duration.ofDays(1));
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, shards, seeds, i -> Tls.Files.in(certs,
          "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7));
      Coordinator.Result r = c.await(120, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      assertEquals(w, r.contributors().size());
      outs.forEach(o -> assertNull(o.error(), () -> String.valueOf(o.error())));
      double diff = Loopback.maxDifference(r.model().weights().parameters(), simulated.model().parameters());
      assertTrue(diff < 1e-3, "largest weight difference, network vs in-process: " + diff);
      DesignMatrix test = spec.preprocessing().design(mnist.test());
      double net = Evaluation.of(test.labels(), r.model().weights().predict(test), 10).accuracy();
      double sim = Evaluation.of(test.labels(), simulated.model().predict(test), 10).accuracy();
      System.out.printf("MNIST 50 x 60 over mutual TLS: test accuracy %.4f (in-process %.4f), largest weight "
          + "difference %.2e, %d B per participant, %.1f s%n", net, sim, diff, r.bytesPerParticipant(), r.seconds());
      assertEquals(sim, net, 0.005);
      assertEquals(r.epsilon(), simulated.ledger().epsilon(), 1e-9 * r.epsilon());
    }
  }
}
