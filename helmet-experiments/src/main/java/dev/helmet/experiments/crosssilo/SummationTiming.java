package dev.helmet.experiments.crosssilo;

import dev.helmet.core.util.Checks;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntFunction;

/**
 * The timing harness of the cross-silo timing presets ({@code crosssilo-nodes}, Heikkilä et al.'s
 * Fig. 3, and {@code crosssilo-groups}, their Fig. 5): one secure summation at a time, <b>every
 * party, node and server in this one JVM</b>, each run checked against the exact sum.
 *
 * <p>What is measured is computation and bytes, not a network: the parties, the compute nodes and
 * the aggregator share this machine's cores (and whatever else runs on it, design note doubt 19),
 * so the wall time of a run is the sum of their work, not the critical path of a deployment where
 * each machine has its own cores. The per-party and per-node seconds and bytes are reported beside
 * it for that reason.
 *
 * <p>Inputs are uniform ring elements, generated on demand for one party at a time from a recorded
 * seed (as {@code helmet bench secagg} does), so 100 parties of 10^6 values are never held at
 * once; the exact sum is computed once, in a separate untimed pass over the same generator.
 */
public final class SummationTiming {
  private SummationTiming() {}

  /** Where {@link Inputs#reference} leaves what it generated, so the JIT cannot drop the work. */
  @SuppressWarnings("unused")
  private static volatile long consumed;

  /**
   * The parties' inputs: party i's vector of {@code length} uniform elements of Z_{2^ringBits},
   * drawn from a {@link SplittableRandom} seeded by (seed, i). Experiment randomness, recorded and
   * reproducible; the summations' own masks and seeds still come from SecureRandom.
   *
   * @param parties N
   * @param length d
   * @param ringBits b
   * @param seed the recorded seed
   */
  public record Inputs(int parties, int length, int ringBits, long seed) {
    public Inputs {
      Checks.require(parties >= 2, "parties must be >= 2. Provided value: " + parties);
      Checks.positive("vector length", length);
      Checks.inRange("ring bits", ringBits, 2, 64);
    }

    /** The ring. */
    public FixedPointEncoding encoding() {
      return FixedPointEncoding.integers(ringBits);
    }

    /** The summation's public parameters: every party must contribute. */
    public SummationSpec spec() {
      return new SummationSpec(parties, length, encoding(), parties);
    }

    /** Party i's vector, freshly generated (the same every call). */
    public long[] party(int i) {
      // SplitMix-style scramble of (seed, i), so that neighbouring parties' streams are unrelated
      SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + (long) i * 0xBF58476D1CE4E5B9L + i);
      long mask = encoding().mask();
      long[] x = new long[length];
      for (int j = 0; j < length; j++) {
        x[j] = r.nextLong() & mask;
      }
      return x;
    }

    /** The generator handed to a summation. */
    public IntFunction<long[]> generator() {
      return this::party;
    }

    /** The exact ring sum, one party at a time. */
    public Reference reference() {
      long mask = encoding().mask();
      long[] sum = new long[length];
      for (int i = 0; i < parties; i++) {
        long[] x = party(i);
        for (int j = 0; j < length; j++) {
          sum[j] = (sum[j] + x[j]) & mask;
        }
      }
      return new Reference(sum);
    }

    /**
     * The mean seconds to generate one party's vector (every summation's time includes it: a
     * simulated party makes its input first), over up to 10 parties.
     */
    double generateSeconds() {
      int k = Math.min(parties, 10);
      long sink = 0;
      long t0 = System.nanoTime();
      for (int i = 0; i < k; i++) {
        sink += party(i)[length - 1];
      }
      consumed = sink; // keeps the generation from being optimised away
      return (System.nanoTime() - t0) / 1e9 / k;
    }
  }

  /**
   * The exact sum.
   *
   * @param sum the ring sum of every party's input
   */
  public record Reference(long[] sum) {}

  /**
   * One compute node's share of a DCA run, from the outcome's {@code nodes} parameter.
   *
   * @param name node-1 .. node-M
   * @param receives "seeds" (nodes 1 .. M-1) or "last shares" (node M)
   * @param bytesIn bytes it received
   * @param bytesOut bytes it sent
   * @param seconds its time: expanding and adding the seeds, or adding the last shares
   */
  public record Node(String name, String receives, long bytesIn, long bytesOut, double seconds) {}

  /**
   * One timed run.
   *
   * @param repeat 0-based
   * @param wallSeconds the whole summation, all parties, nodes and the aggregator
   * @param partySeconds a party's mean seconds (generating its input, splitting or masking it)
   * @param partyMaxSeconds the slowest party's seconds (NaN where the summation does not report it)
   * @param serverSeconds the aggregator's seconds (DCA: the busiest node's)
   * @param nodes DCA's compute nodes, empty for other summations
   * @param bytesPerParty bytes a party sent and received
   * @param serverBytes bytes at the aggregator (DCA: all nodes together)
   * @param exact whether the released sum is the exact sum
   * @param parameters the summation's public parameters as it reported them
   */
  public record Run(int repeat, double wallSeconds, double partySeconds, double partyMaxSeconds, double serverSeconds,
      List<Node> nodes, long bytesPerParty, long serverBytes, boolean exact, Map<String, Object> parameters) {
    public Run {
      nodes = List.copyOf(nodes);
    }

    /** The mean seconds of the nodes that receive seeds (NaN without nodes). */
    public double seedNodeSeconds() {
      return nodes.stream().filter(n -> n.receives().equals("seeds")).mapToDouble(Node::seconds).average()
          .orElse(Double.NaN);
    }

    /** The last node's seconds (NaN without nodes). */
    public double lastNodeSeconds() {
      return nodes.stream().filter(n -> !n.receives().equals("seeds")).mapToDouble(Node::seconds).findFirst()
          .orElse(Double.NaN);
    }

    /** The most bytes any node received (0 without nodes). */
    public long nodeBytesInMax() {
      return nodes.stream().mapToLong(Node::bytesIn).max().orElse(0);
    }
  }

  /** The party inputs the untimed runs process at least, in {@link #warmUpRuns} runs. */
  public static final int WARM_UP_INPUTS = 64;

  /** Untimed runs before timing: at least one, and at least {@link #WARM_UP_INPUTS} inputs. */
  public static int warmUpRuns(int parties) {
    return Math.max(1, (WARM_UP_INPUTS + parties - 1) / parties);
  }

  /**
   * Untimed runs (the JIT compiles the hot loops; a group-mask session also agrees its pairwise
   * keys in the first, so the timed runs are its steady-state rounds), then {@code repeats} timed runs of
   * the same summation instance on the same inputs. A garbage collection is requested before each
   * timed run, outside the timing.
   *
   * @param ran called after each timed run (progress)
   * @return the timed runs, and what the first untimed one reported
   * @throws IllegalStateException if a run aborts or does not release the exact sum: a timing of a
   *     wrong answer is worthless
   */
  public static Timed time(SecureSummation s, Inputs in, Reference ref, int repeats, Runnable ran) {
    Checks.positive("repeats", repeats);
    // Enough untimed runs that the hot loops have seen WARM_UP_INPUTS inputs: measured, 2 parties of
    // 10^6 values masked at 0.03 s per party for their first dozen rounds and at 0.007 s after.
    SummationOutcome warm = null;
    for (int w = 0; w < warmUpRuns(in.parties()); w++) {
      SummationOutcome o = s.run(in.spec(), in.generator());
      check(s, in, o, ref);
      warm = warm == null ? o : warm;
    }
    // after the warm-up, so that the generator is compiled and the heap's pages are touched
    double generate = in.generateSeconds();
    List<Run> runs = new ArrayList<>();
    for (int r = 0; r < repeats; r++) {
      System.gc();
      SummationOutcome o = s.run(in.spec(), in.generator());
      check(s, in, o, ref);
      runs.add(new Run(r, o.seconds(), o.partySeconds(), partyMax(o), o.serverSeconds(), nodes(o), o.bytesPerParty(),
          o.serverBytes(), true, o.parameters()));
      ran.run();
    }
    return new Timed(runs, warm.parameters(), generate);
  }

  /**
   * The timed runs, the first untimed run's parameters (a group-mask session's key agreement, for
   * instance, is reported there), and the mean seconds to generate one party's input.
   */
  public record Timed(List<Run> runs, Map<String, Object> warmupParameters, double generateSeconds) {}

  private static void check(SecureSummation s, Inputs in, SummationOutcome o, Reference ref) {
    if (o.status() != SummationOutcome.Status.COMPLETED || !Arrays.equals(o.sum(), ref.sum())) {
      throw new IllegalStateException(String.format(Locale.ROOT, "%s with %d parties x %d values did not release "
          + "the exact sum (%s%s)", s.name(), in.parties(), in.length(), o.status(), o.abortReason() == null ? ""
              : ": " + o.abortReason()));
    }
  }

  /** The slowest party, where the outcome lists parties ({@code per_party}); NaN otherwise. */
  private static double partyMax(SummationOutcome o) {
    if (!(o.parameters().get("per_party") instanceof List<?> l)) {
      return Double.NaN;
    }
    double max = Double.NaN;
    for (Object p : l) {
      if (p instanceof Map<?, ?> m && m.get("seconds") instanceof Number n) {
        max = Double.isNaN(max) ? n.doubleValue() : Math.max(max, n.doubleValue());
      }
    }
    return max;
  }

  private static List<Node> nodes(SummationOutcome o) {
    List<Node> out = new ArrayList<>();
    if (o.parameters().get("nodes") instanceof List<?> l) {
      for (Object x : l) {
        Map<?, ?> m = (Map<?, ?>) x;
        out.add(new Node(String.valueOf(m.get("node")), String.valueOf(m.get("receives")),
            ((Number) m.get("bytes_in")).longValue(), ((Number) m.get("bytes_out")).longValue(),
            ((Number) m.get("seconds")).doubleValue()));
      }
    }
    return out;
  }

  /** Median, minimum and maximum of some values. */
  public record Spread(double median, double min, double max) {
    /** Of the values (NaN-free), the median of an even count the mean of the middle two. */
    public static Spread of(double[] values) {
      Checks.require(values.length > 0, "values must not be empty");
      double[] v = values.clone();
      Arrays.sort(v);
      int n = v.length;
      double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
      return new Spread(median, v[0], v[n - 1]);
    }

    /** Of one quantity over runs. */
    public static Spread of(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
      return of(runs.stream().mapToDouble(f).toArray());
    }
  }

  /**
   * The system's load average over the last minute (runnable processes, this run's included), NaN
   * where the platform does not say: the timings are only as quiet as the machine was.
   */
  public static double loadAverage() {
    double l = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    return l < 0 ? Double.NaN : l;
  }

  /** "the load average was 5.3 at the start and 5.1 at the end, on 2 cores", for the reports. */
  static String loadSentence(double start, double end) {
    return String.format(Locale.ROOT, "The system's one-minute load average was %.1f when the preset started and %.1f "
        + "when it ended, on %d cores", start, end, Runtime.getRuntime().availableProcessors());
  }

  /** Nine significant digits; empty for NaN. */
  static String num(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.9g", v);
  }
}
