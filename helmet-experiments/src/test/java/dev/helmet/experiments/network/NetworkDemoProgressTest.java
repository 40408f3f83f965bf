package dev.helmet.experiments.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.helmet.core.util.Progress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** demo --network's progress moves with each participant's own events, not only when it ends. */
class NetworkDemoProgressTest {
  /** Records every advance. */
  private static final class Recorded implements Progress {
    final List<Long> steps = new ArrayList<>();

    @Override
    public void start(String task, long total) {}

    @Override
    public synchronized void advance(long n) {
      steps.add(n);
    }

    @Override
    public void finish() {}
  }

  @Test
  void aParticipantsTrainingPreparationAndEachRoundAdvanceItsShare() {
    Recorded p = new Recorded();
    NetworkDemo.Share share = new NetworkDemo.Share(p, 2);
    share.event("connecting", Map.of("coordinator", "127.0.0.1:1"));
    share.event("training", Map.of("task", "epochs", "done", 25L, "total", 100L, "seconds_left", 3.0));
    share.event("training", Map.of("task", "epochs", "done", 60L, "total", 100L, "seconds_left", 1.0));
    share.event("training", Map.of("task", "epochs", "done", 10L, "total", 100L, "seconds_left", 1.0)); // a new phase
    share.event("prepared", Map.of("seconds", 1.0));
    share.event("sent", Map.of("round", 1));
    assertEquals(List.of(25L, 35L, 40L, 100L), p.steps, "a quarter, then 60 % of the local work, its end, round 1");
    share.finish(); // ended before round 2's input: its share is done all the same
    assertEquals(100L * 3, p.steps.stream().mapToLong(Long::longValue).sum());
    share.finish();
    share.event("sent", Map.of("round", 2));
    assertEquals(100L * 3, p.steps.stream().mapToLong(Long::longValue).sum(), "never more than its share");
  }
}
