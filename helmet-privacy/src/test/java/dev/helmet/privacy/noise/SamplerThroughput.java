package dev.helmet.privacy.noise;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A throughput measurement run by hand (not a test; no timing is asserted anywhere): draws per
 * second (of thread CPU time) of the exact samplers in one JVM, in interleaved rounds so that the machine's load hits
 * every sampler alike, and the median of the rounds. Three samplers per setting:
 *
 * <ul>
 *   <li>{@code dd76219}: the reference sampler on the reference bits, as at commit dd76219
 *       ({@link ReferenceDiscreteNoise} on a Hash_DRBG read in 64 KiB calls);
 *   <li>{@code ref/aes}: the reference sampler on today's AES-256-CTR bits (the algorithm alone);
 *   <li>{@code new}: {@link DiscreteNoise} on {@link RandomBits#secure()}.
 * </ul>
 *
 * <p>Run after {@code mvn -o -q -pl helmet-privacy -am test-compile}:
 * {@code java -cp helmet-core/target/classes:helmet-privacy/target/classes:helmet-privacy/target/test-classes
 * dev.helmet.privacy.noise.SamplerThroughput [seconds per measurement] [rounds] [settings starting with]}.
 */
public final class SamplerThroughput {
  private SamplerThroughput() {}

  private static long sink;

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /** Wall-clock time instead of thread CPU time, with {@code -Dclock=wall}. */
  private static final boolean WALL = "wall".equals(System.getProperty("clock"));

  private static long now() {
    return WALL ? System.nanoTime() : THREADS.getCurrentThreadCpuTime();
  }

  /**
   * Draws per second of {@code draw} over about {@code seconds} of this thread's CPU time (the
   * machine is shared: CPU time is what another process's load disturbs least), or of wall-clock
   * time with {@code -Dclock=wall}.
   */
  static double rate(LongSupplier draw, double seconds) {
    long budget = (long) (seconds * 1e9);
    long n = 0;
    long s = 0;
    int batch = 1;
    long start = now();
    long elapsed;
    do {
      for (int i = 0; i < batch; i++) {
        s += draw.getAsLong();
      }
      n += batch;
      elapsed = now() - start;
      if (elapsed < budget / 100 && batch < (1 << 20)) {
        batch *= 2;
      }
    } while (elapsed < budget);
    sink += s;
    return n / (elapsed / 1e9);
  }

  private record Row(String what, List<LongSupplier> samplers) {}

  public static void main(String[] args) {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    String only = args.length > 2 ? args[2] : "";
    ReferenceDiscreteNoise old = new ReferenceDiscreteNoise(ReferenceDiscreteNoise.hashDrbgWords());
    RandomBits aes = RandomBits.secure();
    ReferenceDiscreteNoise refAes = new ReferenceDiscreteNoise(aes::nextLong);
    DiscreteNoise fast = DiscreteNoise.secure();

    List<Row> rows = new ArrayList<>();
    for (long s2 : new long[] {4, 556_009, 100_000_000}) {
      rows.add(new Row("discrete Gaussian sigma^2 = " + s2, List.of(
          () -> old.discreteGaussian(s2), () -> refAes.discreteGaussian(s2), () -> fast.discreteGaussian(s2))));
    }
    for (long l : new long[] {10, 10_000, 1_000_000}) {
      rows.add(new Row("Skellam lambda = " + l, List.of(
          () -> old.skellam(l, 1), () -> refAes.skellam(l, 1), () -> fast.skellam(l, 1))));
    }
    long words = 0;
    System.out.printf(Locale.ROOT, "%d rounds of %.1f s per sampler and setting, median draws per %s second%n", rounds,
        seconds, WALL ? "wall-clock" : "thread CPU");
    System.out.printf(Locale.ROOT, "%-34s %12s %12s %12s %9s %9s%n", "setting", "dd76219", "ref/aes", "new",
        "new/dd76", "new/ref");
    for (Row row : rows) {
      if (!row.what().startsWith(only)) {
        continue;
      }
      double[][] r = new double[3][rounds];
      for (LongSupplier s : row.samplers()) {
        rate(s, Math.min(0.5, seconds)); // warm-up
      }
      for (int k = 0; k < rounds; k++) {
        for (int i = 0; i < 3; i++) {
          r[i][k] = rate(row.samplers().get(i), seconds);
        }
      }
      double[] med = new double[3];
      for (int i = 0; i < 3; i++) {
        Arrays.sort(r[i]);
        med[i] = r[i][rounds / 2];
      }
      System.out.printf(Locale.ROOT, "%-34s %12.4g %12.4g %12.4g %9.2f %9.2f%n", row.what(), med[0], med[1], med[2],
          med[2] / med[0], med[2] / med[1]);
    }
    for (int i = 0; i < 1_000_000; i++) {
      words += aes.nextLong();
    }
    System.out.println("(sink " + (sink + words == 42 ? "!" : ".") + ")");
  }
}
