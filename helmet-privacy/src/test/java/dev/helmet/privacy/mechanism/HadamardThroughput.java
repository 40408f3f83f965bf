package dev.helmet.privacy.mechanism;

import dev.helmet.privacy.noise.RandomBits;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A throughput measurement run by hand (not a test; no timing is asserted anywhere): the in-place
 * Walsh-Hadamard transform, the rotation and its inverse for D = 65,536, and a whole SMM encoding of
 * a d = 63,610 gradient (the paper's MLP) on secure bits, in wall-clock time, median of rounds.
 *
 * <p>Run after {@code mvn -o -q -pl helmet-privacy -am test-compile}:
 * {@code java -cp helmet-core/target/classes:helmet-privacy/target/classes:helmet-privacy/target/test-classes
 * dev.helmet.privacy.mechanism.HadamardThroughput [seconds per measurement] [rounds]}.
 */
public final class HadamardThroughput {
  private HadamardThroughput() {}

  private static double sink;

  /** Calls per second of {@code task} over about {@code seconds}. */
  private static double rate(Runnable task, double seconds) {
    long budget = (long) (seconds * 1e9);
    long n = 0;
    long start = System.nanoTime();
    long elapsed;
    do {
      task.run();
      n++;
      elapsed = System.nanoTime() - start;
    } while (elapsed < budget);
    return n / (elapsed / 1e9);
  }

  private static double median(double[] x) {
    double[] s = x.clone();
    java.util.Arrays.sort(s);
    return s[s.length / 2];
  }

  public static void main(String[] args) {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
    int big = 1 << 16;
    SplittableRandom r = new SplittableRandom(1);
    double[] a = new double[big];
    for (int i = 0; i < big; i++) {
      a[i] = r.nextDouble() - 0.5;
    }
    RandomizedHadamard h = new RandomizedHadamard(big, 7);
    RandomizedHadamard mlp = new RandomizedHadamard(63_610, 7);
    double[] g = new double[63_610];
    for (int i = 0; i < g.length; i++) {
      g[i] = (r.nextDouble() - 0.5) * 0.01;
    }
    SmmParameters p = new SmmParameters(64, 64 * 64, 16, 25, 2, 8);
    SmmEncoder enc = new SmmEncoder(mlp, p, RandomBits.secure());
    double[] wht = new double[rounds];
    double[] rot = new double[rounds];
    double[] inv = new double[rounds];
    double[] smm = new double[rounds];
    for (int k = 0; k < rounds; k++) {
      wht[k] = rate(() -> {
        RandomizedHadamard.walshHadamard(a);
        sink += a[0];
        for (int i = 0; i < big; i++) {
          a[i] *= 0x1p-8; // keep the values bounded: H H = D I
        }
      }, seconds);
      rot[k] = rate(() -> sink += h.rotate(a)[1], seconds);
      inv[k] = rate(() -> sink += h.inverse(a)[1], seconds);
      smm[k] = rate(() -> sink += enc.encode(g)[1], seconds);
    }
    double w = median(wht);
    System.out.printf(Locale.ROOT,
        "WHT in place (D = 65536, + one scaling pass): %.0f /s, %.2f ns/element, %.2f GFLOP/s%n",
        w, 1e9 / (w * big), w * big * 16 / 1e9);
    System.out.printf(Locale.ROOT, "rotate (copy, signs, WHT): %.0f /s, %.2f ms%n",
        median(rot), 1e3 / median(rot));
    System.out.printf(Locale.ROOT, "inverse (copy, WHT, signs): %.0f /s, %.2f ms%n",
        median(inv), 1e3 / median(inv));
    System.out.printf(Locale.ROOT, "SMM encode d = 63610 (D = 65536), secure bits: %.1f /s, %.2f ms%n",
        median(smm), 1e3 / median(smm));
    if (sink == 42) {
      System.out.println();
    }
  }
}
