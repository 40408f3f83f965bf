package dev.helmet.transport;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.CoordinatorMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Participants for the status page's tests: three digit shards run against a coordinator, the
 * first holding its first round open until {@link #release()}, so a test can look at a running
 * stage.
 */
final class HeldSession {
  private static final Dataset DIGITS = TestData.digits();
  private final CountDownLatch inRound = new CountDownLatch(1);
  private final CountDownLatch seen = new CountDownLatch(1);
  private final CompletableFuture<List<Loopback.Outcome>> outcomes;

  private HeldSession(Coordinator c, int parties) {
    Participant.Hook hold = new Participant.Hook() {
      @Override
      public void received(CoordinatorMessage m, io.grpc.ManagedChannel ch) {
        if (m.hasRoundStart()) {
          inRound.countDown();
          try {
            seen.await(60, TimeUnit.SECONDS); // holds the round open until the test has looked
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    };
    outcomes = CompletableFuture.supplyAsync(() -> {
      try {
        return Loopback.participants(c.port(), shards(parties), null, i -> null, ParticipantPolicy.upTo(1e7),
            i -> i == 0 ? hold : Participant.Hook.NONE);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  /** Starts {@code parties} participants against {@code c}. */
  static HeldSession start(Coordinator c, int parties) {
    return new HeldSession(c, parties);
  }

  /** Waits until the first round has opened (and is held). */
  boolean awaitRound() throws InterruptedException {
    return inRound.await(60, TimeUnit.SECONDS);
  }

  /** Lets the held round go on. */
  void release() {
    seen.countDown();
  }

  /** The participants' outcomes, once they have finished. */
  List<Loopback.Outcome> outcomes() throws Exception {
    return outcomes.get(60, TimeUnit.SECONDS);
  }

  static List<Dataset> shards(int w) {
    Partition p = new PartitionStrategy.Iid(w, 30).split(DIGITS, new SplittableRandom(5));
    List<Dataset> out = new ArrayList<>();
    for (int i = 0; i < w; i++) {
      out.add(DIGITS.subset(p.indices(i), "shard " + i));
    }
    return out;
  }
}
