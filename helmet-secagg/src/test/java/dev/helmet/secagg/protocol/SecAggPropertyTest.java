package dev.helmet.secagg.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.secagg.graph.CommunicationGraph;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The decoded sum is exactly the sum of the contributors' inputs, for random inputs, party counts
 * from 2 to 500 and dropouts before every round; and the protocol completes exactly when an
 * independent oracle says every needed secret can still be recovered, aborting otherwise.
 */
@org.junit.jupiter.api.Tag("statistical")
class SecAggPropertyTest {
  static final java.util.concurrent.atomic.AtomicInteger ABORTS = new java.util.concurrent.atomic.AtomicInteger();
  static final java.util.concurrent.atomic.AtomicInteger COMPLETIONS = new java.util.concurrent.atomic.AtomicInteger();

  @org.junit.jupiter.api.AfterAll
  static void bothOutcomesWereExercised() {
    System.out.printf("SecAgg property test: %d completed runs checked for exact sums, %d predicted aborts%n",
        COMPLETIONS.get(), ABORTS.get());
  }

  /** The oracle's prediction: the contributors, or why the protocol must abort. */
  record Prediction(BitSet contributors, String abortReason) {
    static Prediction abort(String reason) {
      return new Prediction(null, reason);
    }
  }

  /** What the rules of the protocol predict for a dropout pattern. */
  static Prediction oracle(CommunicationGraph g, int t, int minSurvivors, int[] dropBefore) {
    int n = g.parties();
    BitSet u1 = alive(n, dropBefore, 0, null);
    if (u1.cardinality() < Math.max(minSurvivors, t + 1)) {
      return Prediction.abort("TOO_FEW_SURVIVORS");
    }
    BitSet u2 = new BitSet();
    for (int u = u1.nextSetBit(0); u >= 0; u = u1.nextSetBit(u + 1)) {
      if (dropBefore[u] != 1 && count(g, u, u1) >= t) { // fewer than t neighbours: the party aborts
        u2.set(u);
      }
    }
    if (u2.cardinality() < Math.max(minSurvivors, t + 1)) {
      return Prediction.abort("TOO_FEW_SURVIVORS");
    }
    BitSet u3 = new BitSet();
    for (int u = u2.nextSetBit(0); u >= 0; u = u2.nextSetBit(u + 1)) {
      if (dropBefore[u] != 2 && count(g, u, u2) >= t) {
        u3.set(u);
      }
    }
    if (u3.cardinality() < minSurvivors) {
      return Prediction.abort("TOO_FEW_SURVIVORS");
    }
    BitSet u4 = alive(n, dropBefore, 3, u3);
    if (u4.cardinality() < t) {
      return Prediction.abort("TOO_FEW_SURVIVORS");
    }
    BitSet u5 = new BitSet();
    for (int w = u4.nextSetBit(0); w >= 0; w = u4.nextSetBit(w + 1)) {
      if (dropBefore[w] != 4 && count(g, w, u4) >= t) {
        u5.set(w);
      }
    }
    for (int u = u2.nextSetBit(0); u >= 0; u = u2.nextSetBit(u + 1)) {
      if (count(g, u, u5) < t) {
        return Prediction.abort("RECONSTRUCTION_FAILED"); // a secret has fewer than t live holders
      }
    }
    return new Prediction(u3, null);
  }

  private static BitSet alive(int n, int[] dropBefore, int step, BitSet within) {
    BitSet s = new BitSet();
    for (int u = 0; u < n; u++) {
      if ((within == null || within.get(u)) && dropBefore[u] != step) {
        s.set(u);
      }
    }
    return s;
  }

  private static int count(CommunicationGraph g, int u, BitSet set) {
    int c = 0;
    for (int v : g.neighbours(u)) {
      if (set.get(v)) {
        c++;
      }
    }
    return c;
  }

  private static void check(InProcessSecAgg.Variant variant, int n, int length, int ringBits, double maxDropout,
      double dropFraction, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int[] dropBefore = new int[n];
    java.util.Arrays.fill(dropBefore, -1);
    int drops = (int) Math.floor(dropFraction * n);
    int[] order = dev.helmet.core.util.Shuffle.permutation(n, r);
    for (int i = 0; i < drops; i++) {
      dropBefore[order[i]] = r.nextInt(5);
    }
    check(variant, n, length, ringBits, maxDropout, dropBefore, r);
  }

  private static void check(InProcessSecAgg.Variant variant, int n, int length, int ringBits, double maxDropout,
      int[] dropBefore, SplittableRandom r) {
    FixedPointEncoding enc = new FixedPointEncoding(ringBits, 0);
    long mask = enc.mask();
    long[][] inputs = new long[n][length];
    for (long[] x : inputs) {
      for (int j = 0; j < length; j++) {
        x[j] = r.nextLong() & mask;
      }
    }
    DropoutPlan plan = (party, parties, steps) -> dropBefore[party];
    // Replace the driver's random graph by one we can see: run the real protocol through the driver
    // and compare with the oracle on the parameters it chose.
    RecordingSecAgg driver = new RecordingSecAgg(variant, maxDropout, plan);
    SummationOutcome o = driver.run(new SummationSpec(n, length, enc, 1), i -> inputs[i]);
    SecAggParameters p = driver.lastParameters;
    Prediction pred = oracle(p.graph(), p.threshold(), p.minSurvivors(), dropBefore);
    long drops = java.util.Arrays.stream(dropBefore).filter(d -> d >= 0).count();
    String where = variant + " n=" + n + " k=" + p.graph().degree() + " t=" + p.threshold() + " drops=" + drops;
    if (pred.contributors() == null) {
      assertEquals(SummationOutcome.Status.ABORTED, o.status(), where + ": the oracle predicts an abort");
      assertTrue(o.abortReason().startsWith(pred.abortReason()), where + ": " + o.abortReason());
      assertNull(o.sum(), where + ": an aborted summation releases nothing");
      ABORTS.incrementAndGet();
      return;
    }
    COMPLETIONS.incrementAndGet();
    BitSet expected = pred.contributors();
    assertEquals(SummationOutcome.Status.COMPLETED, o.status(), where + ": " + o.abortReason());
    assertEquals(expected.stream().boxed().toList(), o.contributors(), where);
    long[] want = new long[length];
    for (int u = expected.nextSetBit(0); u >= 0; u = expected.nextSetBit(u + 1)) {
      for (int j = 0; j < length; j++) {
        want[j] = (want[j] + inputs[u][j]) & mask;
      }
    }
    assertArrayEquals(want, o.sum(), where);
  }

  /** The driver with the parameters it chose exposed to the test. */
  static final class RecordingSecAgg {
    final InProcessSecAgg inner;
    SecAggParameters lastParameters;

    RecordingSecAgg(InProcessSecAgg.Variant v, double maxDropout, DropoutPlan plan) {
      this.inner = new InProcessSecAgg(v, maxDropout, plan, 2);
    }

    SummationOutcome run(SummationSpec spec, java.util.function.IntFunction<long[]> inputs) {
      SummationOutcome o = inner.run(spec, inputs, params -> lastParameters = params);
      return o;
    }
  }

  @Test
  void secAggSumsExactlyWithoutDropoutsFromTwoParties() {
    for (int n : new int[] {2, 3, 4, 7, 16}) {
      check(InProcessSecAgg.Variant.SECAGG, n, 50, 32, 0.3, 0, n);
    }
  }

  @Test
  void secAggSurvivesDropoutsBeforeEveryRoundOrAbortsWhenTheOraclePredictsIt() {
    int trial = 0;
    for (int n : new int[] {5, 9, 20, 41}) {
      for (double f : new double[] {0.1, 0.25, 0.4, 0.6}) {
        check(InProcessSecAgg.Variant.SECAGG, n, 20, 32, 0.3, f, 1000L * n + trial++);
      }
    }
  }

  @Test
  void secAggPlusSumsExactlyWithDropoutsUpTo500Parties() {
    int trial = 0;
    for (int n : new int[] {30, 100, 500}) {
      for (double f : new double[] {0, 0.05, 0.15, 0.3}) {
        check(InProcessSecAgg.Variant.SECAGG_PLUS, n, 16, 64, 0.15, f, 7000L * n + trial++);
      }
    }
  }

  @Test
  void moreThanHalfGoneBeforeSharingKeysAbortsEarly() {
    // SecAgg with 9 parties (t = 5): 4 leave before sharing keys; the 5 left cannot give each
    // other t shares, so the server aborts after round 1 instead of collecting useless inputs.
    int[] drop = new int[9];
    java.util.Arrays.fill(drop, -1);
    for (int u = 0; u < 4; u++) {
      drop[u] = 1;
    }
    check(InProcessSecAgg.Variant.SECAGG, 9, 10, 32, 0.3, drop, new SplittableRandom(3));
  }

  @Test
  void smallRingsWrapExactly() {
    check(InProcessSecAgg.Variant.SECAGG_PLUS, 40, 33, 12, 0.1, 0.1, 5);
  }

  @Test
  void tooManyDropoutsBeforeUnmaskingAbortAndReleaseNothing() {
    int n = 12;
    FixedPointEncoding enc = new FixedPointEncoding(32, 0);
    // Everyone but two parties leaves before revealing shares: no secret can be recovered.
    int[] leaving = java.util.stream.IntStream.range(2, n).toArray();
    InProcessSecAgg driver = new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG, 0.3, DropoutPlan.of(leaving, 4), 2);
    SummationOutcome o = driver.run(new SummationSpec(n, 8, enc, 1), i -> new long[8]);
    assertEquals(SummationOutcome.Status.ABORTED, o.status());
    assertNull(o.sum());
    assertTrue(o.abortReason().startsWith("RECONSTRUCTION_FAILED"), o.abortReason());
    List<SummationOutcome.Drop> d = o.dropped();
    assertEquals(n - 2, d.size());
    assertTrue(d.stream().allMatch(x -> x.round().equals("UNMASKING") && x.reason().equals("NO_RESPONSE")));
  }

  /** Long in-process runs report every party's every round, and end the task they started. */
  @Test
  void progressCountsEveryPartyRoundAndFinishes() {
    int n = 30;
    java.util.concurrent.atomic.AtomicLong total = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicInteger finished = new java.util.concurrent.atomic.AtomicInteger();
    dev.helmet.core.util.Progress progress = new dev.helmet.core.util.Progress() {
      @Override
      public void start(String task, long steps) {
        assertTrue(task.startsWith("secagg+: 30 parties, "), task);
        total.set(steps);
      }

      @Override
      public void advance(long steps) {
        done.addAndGet(steps);
      }

      @Override
      public void finish() {
        finished.incrementAndGet();
      }
    };
    InProcessSecAgg driver = new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, 0.1, DropoutPlan.NONE, 2);
    SummationOutcome o = driver.run(new SummationSpec(n, 4, new FixedPointEncoding(32, 0), 1), i -> new long[4],
        progress);
    assertEquals(SummationOutcome.Status.COMPLETED, o.status());
    assertEquals((long) n * Round.values().length, total.get());
    assertEquals(total.get(), done.get());
    assertEquals(1, finished.get());
  }
}
