package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.transport.store.Store;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@org.junit.jupiter.api.Tag("integration")
class NetworkedSessionTest {
  private static final Dataset DIGITS = TestData.digits();

  /**
   * 20 participants over real loopback sockets: the released model is the size-weighted mean of the
   * local models trained with the same seeds and partition in-process (Loopback.mean),
   * up to noise and encoding; eps = 1e6 makes the noise negligible so the comparison is tight.
   */
  @Test
  void twentyParticipantsReleaseTheInProcessAverage(@TempDir Path dir) throws Exception {
    int w = 20;
    Partition partition = new PartitionStrategy.Iid(w, 60).split(DIGITS, new SplittableRandom(3));
    var config = Loopback.config(DIGITS, w, w, 1e6).build();
    SplittableRandom root = new SplittableRandom(11);
    List<Long> seeds = new ArrayList<>();
    List<Dataset> shards = new ArrayList<>();
    for (int i = 0; i < w; i++) {
      seeds.add(root.nextLong());
      shards.add(DIGITS.subset(partition.indices(i), "shard " + i));
    }
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, shards, seeds, i -> null, ParticipantPolicy.upTo(1e7));
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      Loopback.assertAllCompleted(r, outs, w);
      double worst = Loopback.maxDifference(r.model().weights().parameters(), Loopback.mean(config, shards, seeds));
      assertTrue(worst < 1e-3, "largest difference from the in-process average: " + worst);
      Store s = c.store();
      assertEquals("COMPLETED", s.session(c.sessionId()).get("STATUS"));
      assertEquals("SPENT", s.ledgerEntry(c.sessionId()).get("STATUS"));
      assertEquals(5, s.rounds(c.sessionId()).size());
    }
  }
}
