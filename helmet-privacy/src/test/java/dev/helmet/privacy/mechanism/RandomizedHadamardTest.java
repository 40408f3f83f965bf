package dev.helmet.privacy.mechanism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RandomizedHadamardTest {
  private static double[] gaussian(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      // Box-Muller; test data only
      x[i] = Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
    }
    return x;
  }

  private static double norm(double[] x) {
    double s = 0;
    for (double v : x) {
      s += v * v;
    }
    return Math.sqrt(s);
  }

  /** H x with H[i][j] = (-1)^popcount(i & j), by the definition. */
  private static double[] naiveHadamard(double[] x) {
    int n = x.length;
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < n; j++) {
        s += (Integer.bitCount(i & j) % 2 == 0 ? 1 : -1) * x[j];
      }
      y[i] = s;
    }
    return y;
  }

  @Test
  void paddedLengthIsTheNextPowerOfTwo() {
    assertEquals(1, RandomizedHadamard.paddedLength(1));
    assertEquals(2, RandomizedHadamard.paddedLength(2));
    assertEquals(4, RandomizedHadamard.paddedLength(3));
    assertEquals(1024, RandomizedHadamard.paddedLength(1024));
    assertEquals(65_536, RandomizedHadamard.paddedLength(63_610));
    assertEquals(1 << 30, RandomizedHadamard.paddedLength((1 << 29) + 1));
    assertThrows(IllegalArgumentException.class, () -> RandomizedHadamard.paddedLength(0));
  }

  @Test
  void fastTransformMatchesTheWalshHadamardMatrixOnSmallLengths() {
    for (int n = 1; n <= 256; n *= 2) {
      double[] x = gaussian(n, n);
      double[] fast = x.clone();
      RandomizedHadamard.walshHadamard(fast);
      assertArrayEquals(naiveHadamard(x), fast, 1e-12 * n, "n = " + n);
    }
  }

  @Test
  void transformRefusesLengthsThatAreNotPowersOfTwo() {
    assertThrows(IllegalArgumentException.class, () -> RandomizedHadamard.walshHadamard(new double[12]));
    assertThrows(IllegalArgumentException.class, () -> RandomizedHadamard.walshHadamard(new double[0]));
  }

  @Test
  void rotationIsTheNormalisedMatrixTimesTheSigns() {
    RandomizedHadamard h = new RandomizedHadamard(13, 7);
    double[] x = gaussian(13, 3);
    double[] signed = new double[16];
    for (int j = 0; j < 13; j++) {
      signed[j] = h.sign(j) * x[j];
    }
    double[] expected = naiveHadamard(signed);
    for (int i = 0; i < 16; i++) {
      expected[i] /= 4;
    }
    assertArrayEquals(expected, h.rotate(x), 1e-14);
  }

  @Test
  void rotationPreservesTheNormAndTheInverseRecoversTheInput() {
    for (int d : new int[] {1, 2, 3, 1000, 1024, 4097, 63_610, 65_536}) {
      RandomizedHadamard h = new RandomizedHadamard(d, 42 + d);
      double[] x = gaussian(d, d);
      double[] y = h.rotate(x);
      assertEquals(h.paddedDimension(), y.length);
      assertEquals(norm(x), norm(y), 1e-12 * norm(x), "d = " + d);
      assertArrayEquals(x, h.inverse(y), 1e-12, "d = " + d);
    }
  }

  @Test
  void inverseIsTheAdjointOfTheRotation() {
    RandomizedHadamard h = new RandomizedHadamard(100, 5);
    double[] x = gaussian(100, 1);
    double[] y = gaussian(128, 2);
    double[] rx = h.rotate(x);
    double[] iy = h.inverse(y);
    double left = 0;
    double right = 0;
    for (int i = 0; i < 128; i++) {
      left += rx[i] * y[i];
    }
    for (int j = 0; j < 100; j++) {
      right += x[j] * iy[j];
    }
    assertEquals(left, right, 1e-12);
  }

  @Test
  void signsAreSplitMix64BitsOfThePublicSeed() {
    // SplitMix64's first output for seed 0 is 0xe220a8397b1dcdaf (Steele, Lea, Flood 2014;
    // the reference splitmix64.c): bit j set means sign -1.
    assertEquals(0xe220a8397b1dcdafL, RandomizedHadamard.mix(0x9e3779b97f4a7c15L));
    RandomizedHadamard h = new RandomizedHadamard(64, 0);
    for (int j = 0; j < 64; j++) {
      assertEquals(((0xe220a8397b1dcdafL >>> j) & 1) == 1 ? -1 : 1, h.sign(j), "j = " + j);
    }
    int[] first = {-1, -1, -1, -1, 1, -1, 1, -1, -1, 1, -1, -1, 1, 1, -1, -1};
    for (int j = 0; j < first.length; j++) {
      assertEquals(first[j], h.sign(j));
    }
  }

  @Test
  void sameSeedGivesTheSameRotationAndOtherSeedsDiffer() {
    double[] x = gaussian(300, 9);
    double[] once = new RandomizedHadamard(300, 11).rotate(x);
    assertArrayEquals(once, new RandomizedHadamard(300, 11).rotate(x));
    assertNotEquals(once[0], new RandomizedHadamard(300, 12).rotate(x)[0]);
    int minus = 0;
    RandomizedHadamard h = new RandomizedHadamard(1 << 16, 123);
    for (int j = 0; j < h.paddedDimension(); j++) {
      minus += h.sign(j) < 0 ? 1 : 0;
    }
    // Binomial(65536, 1/2): within 6 standard deviations (128) fails a fair coin with p < 1e-8.
    assertTrue(Math.abs(minus - 32_768) < 6 * 128, "minus signs: " + minus);
  }

  @Test
  void rotateIntoIsTheSignedPaddedTransformBitForBitWhateverTheBufferHeld() {
    // rotateInto applies the signs and the first two butterfly levels in one pass; the result must
    // be the transform of the signed, zero-padded vector exactly, for every d mod 4.
    SplittableRandom r = new SplittableRandom(5);
    int[] dims = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 17, 63, 64, 65, 127, 1000, 4095, 4096, 4097, 8191, 63_610, 65_536,
        100_001};
    for (int d : dims) {
      RandomizedHadamard h = new RandomizedHadamard(d, d);
      int padded = h.paddedDimension();
      double[] buffer = new double[padded];
      Arrays.fill(buffer, Double.NaN); // a previous record's values must not leak into the next
      for (int rep = 0; rep < 2; rep++) {
        double[] x = r.doubles(d, -3, 3).toArray();
        double[] expected = new double[padded];
        double scale = 1.0 / Math.sqrt(padded);
        for (int j = 0; j < d; j++) {
          expected[j] = x[j] * (h.sign(j) * scale);
        }
        textbookTransform(expected);
        h.rotateInto(x, buffer);
        double[] fresh = h.rotate(x);
        for (int j = 0; j < padded; j++) {
          assertEquals(Double.doubleToRawLongBits(expected[j]), Double.doubleToRawLongBits(buffer[j]),
              "d = " + d + ", coordinate " + j);
          assertEquals(Double.doubleToRawLongBits(expected[j]), Double.doubleToRawLongBits(fresh[j]));
        }
      }
    }
    RandomizedHadamard h = new RandomizedHadamard(10, 1);
    assertThrows(IllegalArgumentException.class, () -> h.rotateInto(new double[10], new double[10]));
    double[] same = new double[16];
    assertThrows(IllegalArgumentException.class, () -> new RandomizedHadamard(16, 1).rotateInto(same, same));
  }

  /**
   * The fast Walsh-Hadamard transform as textbooks write it, one radix-2 level at a time over the
   * whole array. The project's transform pairs the levels (a radix-4 step computes (a0 + a1) + (a2 +
   * a3) and so on, the same sums) and takes the low levels a cache-sized block at a time: neither
   * changes an operation, so the two agree bit for bit.
   */
  static void textbookTransform(double[] a) {
    for (int h = 1; h < a.length; h *= 2) {
      for (int i = 0; i < a.length; i += 2 * h) {
        for (int j = i; j < i + h; j++) {
          double u = a[j];
          double v = a[j + h];
          a[j] = u + v;
          a[j + h] = u - v;
        }
      }
    }
  }

  @Test
  void theTransformIsTheTextbookOneBitForBitAtEveryLength() {
    SplittableRandom r = new SplittableRandom(6);
    for (int log = 0; log <= 18; log++) {
      double[] a = r.doubles(1 << log, -1, 1).toArray();
      double[] expected = a.clone();
      textbookTransform(expected);
      RandomizedHadamard.walshHadamard(a);
      for (int j = 0; j < a.length; j++) {
        assertEquals(Double.doubleToRawLongBits(expected[j]), Double.doubleToRawLongBits(a[j]),
            "n = 2^" + log + ", coordinate " + j);
      }
    }
  }

  @Test
  void wrongLengthsAreRefused() {
    RandomizedHadamard h = new RandomizedHadamard(10, 1);
    assertThrows(IllegalArgumentException.class, () -> h.rotate(new double[16]));
    assertThrows(IllegalArgumentException.class, () -> h.inverse(new double[10]));
  }
}
