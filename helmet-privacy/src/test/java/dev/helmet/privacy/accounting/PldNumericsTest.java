package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

/** The numerical building blocks of the PLD accountant: the FFT convolution and the root bracket. */
class PldNumericsTest {

  /** A random probability vector whose entries span many orders of magnitude, like a PLD's tails. */
  private static double[] pmf(Random rnd, int n) {
    double[] p = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      double z = (i - n / 2.0) / (n / 8.0 + 1);
      p[i] = Math.exp(-0.5 * z * z) * (0.5 + rnd.nextDouble());
      sum += p[i];
    }
    for (int i = 0; i < n; i++) {
      p[i] /= sum;
    }
    return p;
  }

  private static void assertConvolution(double[] a, double[] b) {
    double[] fft = Fft.convolve(a, b);
    double[] direct = Fft.direct(a, b);
    assertEquals(direct.length, fft.length);
    double max = 0;
    for (double d : direct) {
      max = Math.max(max, d);
    }
    for (int i = 0; i < direct.length; i++) {
      // Round-off of the transform is relative to the largest entry, not to each entry.
      assertEquals(direct[i], fft[i], 1e-13 * max, "entry " + i + " of " + a.length + " x " + b.length);
    }
  }

  @Test
  void fftConvolutionMatchesTheDirectSum() {
    Random rnd = new Random(12);
    int[][] sizes = {{1, 1}, {1, 5000}, {64, 64}, {65, 65}, {65, 100}, {100, 3001}, {4096, 4096}, {4097, 5000},
        {70001, 65}, {30000, 2000}};
    for (int[] s : sizes) {
      assertConvolution(pmf(rnd, s[0]), pmf(rnd, s[1]));
    }
  }

  @Test
  void fftSquareMatchesTheDirectSum() {
    Random rnd = new Random(13);
    for (int n : new int[] {2, 65, 1000, 4097, 20000}) {
      double[] a = pmf(rnd, n);
      assertConvolution(a, a); // the same array: one forward transform
    }
  }

  @Test
  void fftTransformIsTheDiscreteFourierTransform() {
    Random rnd = new Random(14);
    for (int m : new int[] {1, 2, 4, 8, 64, 4096, 8192}) {
      double[] z = new double[2 * m];
      for (int i = 0; i < z.length; i++) {
        z[i] = rnd.nextDouble() - 0.5;
      }
      double[] t = z.clone();
      Fft.transform(t, m, Fft.twiddles(Math.max(8, 2 * m)), false);
      for (int kk : new int[] {0, 1, m / 2, m - 1, m / 3}) {
        int k = kk % m;
        double re = 0;
        double im = 0;
        for (int j = 0; j < m; j++) {
          double ang = -2 * Math.PI * ((long) j * k % m) / m;
          re += z[2 * j] * Math.cos(ang) - z[2 * j + 1] * Math.sin(ang);
          im += z[2 * j] * Math.sin(ang) + z[2 * j + 1] * Math.cos(ang);
        }
        assertEquals(re, t[2 * k], 1e-12 * Math.sqrt(m), "m " + m + " k " + k);
        assertEquals(im, t[2 * k + 1], 1e-12 * Math.sqrt(m), "m " + m + " k " + k);
      }
      Fft.transform(t, m, Fft.twiddles(Math.max(8, 2 * m)), true);
      for (int i = 0; i < z.length; i++) {
        assertEquals(z[i], t[i] / m, 1e-14, "round trip, m " + m);
      }
    }
  }

  @Test
  void twiddlesAreAccurateAtEveryStage() {
    int n = 1 << 14;
    double[] w = Fft.computeTwiddles(n);
    for (int len = 2; len <= n; len <<= 1) {
      for (int k = 0; k < len / 2; k++) {
        double ang = 2 * Math.PI * k / len;
        assertEquals(Math.cos(ang), w[len + 2 * k], 5e-16, "len " + len + " k " + k);
        assertEquals(-Math.sin(ang), w[len + 2 * k + 1], 5e-16, "len " + len + " k " + k);
      }
    }
  }

  /** Runs a bracket search on g for target and checks the bracket's guarantee. */
  private static Bracket solve(DoubleUnaryOperator g, double target, boolean strict, double a, double b, double rel) {
    Bracket br = new Bracket(g, strict);
    br.target = target;
    br.a = a;
    br.fa = br.value(a);
    br.b = b;
    br.fb = br.value(b);
    br.narrow(rel);
    double ga = g.applyAsDouble(br.a);
    double gb = g.applyAsDouble(br.b);
    assertTrue(strict ? ga < target : ga <= target, "low end " + br.a + ": g " + ga);
    assertTrue(strict ? gb >= target : gb > target, "high end " + br.b + ": g " + gb);
    assertTrue(br.a < br.b && br.b - br.a <= rel * Math.max(1, Math.min(Math.abs(br.a), Math.abs(br.b))),
        "bracket [" + br.a + ", " + br.b + "]");
    return br;
  }

  @Test
  void bracketNarrowsToTheToleranceInFewSteps() {
    Bracket br = solve(x -> x * x * x, 2, false, 0, 10, 1e-14);
    assertEquals(Math.cbrt(2), br.a, 1e-14);
    assertTrue(br.evaluations < 30, "evaluations " + br.evaluations);
    br = solve(x -> Math.expm1(x), 1e-3, false, -50, 50, 1e-14);
    assertTrue(br.evaluations < 40, "evaluations " + br.evaluations);
    br = solve(x -> -Math.exp(-x), -0.5, true, -1, 1e6, 1e-12); // a root near the far end
    assertEquals(Math.log(2), br.b, 1e-12);
  }

  @Test
  void bracketKeepsItsGuaranteeOnStepsAndRoundingNoise() {
    // Plateaus: g jumps at 0.501 and is flat elsewhere; the target sits on a plateau or at a jump.
    solve(x -> Math.floor(x * 1000), 500.5, false, 0, 1, 1e-14);
    Bracket br = solve(x -> Math.floor(x * 1000), 500, false, 0, 1, 1e-14);
    assertEquals(0.501, br.b, 1e-13);
    br = solve(x -> Math.floor(x * 1000), 500, true, 0, 1, 1e-14);
    assertEquals(0.5, br.b, 1e-13);
    // Not monotone below 1e-13: only the sides of evaluated points are trusted.
    solve(x -> x + 1e-13 * Math.sin(1e9 * x), 0.3, false, -1, 1, 1e-14);
    solve(x -> x + 1e-13 * Math.sin(1e9 * x), 0.3, true, -1, 1, 1e-14);
  }

  /** NaN is on neither side: a NaN loss would misplace a threshold, a NaN delta would pass as met. */
  @Test
  void bracketRefusesANanValue() {
    Bracket br = new Bracket(x -> x < 0.5 ? x : Double.NaN, false);
    br.target = 0.7;
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> br.value(0.6));
    assertEquals("the PLD accountant could not bound this mechanism: a privacy loss or delta evaluated to NaN"
        + " at 0.6", e.getMessage());
    assertEquals(-0.5, br.value(0.2), 1e-15);
  }
}
