package dev.helmet.privacy.mechanism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The clip's postconditions are checked exactly: sum_j phi(|g_j|) of the returned doubles is
 * computed in BigDecimal, with no rounding, and compared with c; no tolerance is allowed.
 */
class MixtureClipTest {
  /** phi(t) = k^2 + (2k + 1)(t - k) for the exact value of the double t, in BigDecimal. */
  static BigDecimal exactPhi(double t) {
    BigDecimal x = new BigDecimal(Math.abs(t));
    BigDecimal k = new BigDecimal(Math.floor(Math.abs(t)));
    BigDecimal twoKPlusOne = k.multiply(BigDecimal.valueOf(2)).add(BigDecimal.ONE);
    return k.multiply(k).add(twoKPlusOne.multiply(x.subtract(k)));
  }

  static BigDecimal exactPhiSum(double[] g) {
    BigDecimal s = BigDecimal.ZERO;
    for (double v : g) {
      s = s.add(exactPhi(v));
    }
    return s;
  }

  /** Both conditions of Theorem 5 / Corollary 1, exactly, and signs kept, magnitudes not grown. */
  static void assertClipped(double[] in, double[] out, double c, long deltaInf) {
    assertEquals(in.length, out.length);
    assertTrue(exactPhiSum(out).compareTo(new BigDecimal(c)) <= 0,
        "sum phi = " + exactPhiSum(out) + " > c = " + c);
    for (int j = 0; j < out.length; j++) {
      assertTrue(Math.ceil(Math.abs(out[j])) <= deltaInf, "coordinate " + j + ": " + out[j]);
      assertTrue(Math.abs(out[j]) <= Math.abs(in[j]), "coordinate " + j + " grew");
      assertTrue(out[j] == 0 || Math.signum(out[j]) == Math.signum(in[j]), "sign of " + j);
    }
    assertTrue(MixtureClip.phiSumUpperBound(out) <= c);
  }

  private static double[] gaussian(int n, double scale, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      double radius = Math.sqrt(-2 * Math.log(1 - r.nextDouble()));
      x[i] = scale * radius * Math.cos(2 * Math.PI * r.nextDouble());
    }
    return x;
  }

  @Test
  void phiIsTheSquareAtIntegersAndInterpolatesLinearlyBetween() {
    for (int k = 0; k < 50; k++) {
      assertEquals((double) k * k, MixtureClip.phi(k));
      assertEquals(k * k + (2 * k + 1) * 0.25, MixtureClip.phi(k + 0.25));
    }
    assertEquals(0.0, MixtureClip.phi(0));
    assertEquals(0.5, MixtureClip.phi(0.5)); // 0.25 + 0.5 - 0.25
    assertEquals(6.5, MixtureClip.phi(2.5)); // 6.25 + 0.5 - 0.25
  }

  @Test
  void phiEqualsTheFormOfTheoremFive() {
    SplittableRandom r = new SplittableRandom(1);
    for (int i = 0; i < 10_000; i++) {
      double t = r.nextDouble() * 100;
      double p = t - Math.floor(t);
      assertEquals(t * t + p - p * p, MixtureClip.phi(t), 1e-12 * (t * t + 1));
      assertTrue(MixtureClip.phi(t) >= t * t);
    }
  }

  @Test
  void phiInvInvertsPhiExactlyOnShortDyadicValues() {
    // t = k + j 2^-20: phi(t) = k^2 + (2k + 1) j 2^-20 and every step of phiInv is exact.
    for (int k = 0; k < 300; k++) {
      for (int j = 0; j < (1 << 20); j += 4099) {
        double t = k + j * 0x1p-20;
        assertEquals(t, MixtureClip.phiInv(MixtureClip.phi(t)), "t = " + t);
      }
    }
  }

  @Test
  void phiInvInvertsPhiOnRandomValuesToRounding() {
    SplittableRandom r = new SplittableRandom(2);
    for (int i = 0; i < 100_000; i++) {
      double t = r.nextDouble() * Math.scalb(1.0, r.nextInt(-30, 30));
      assertEquals(t, MixtureClip.phiInv(MixtureClip.phi(t)), 4 * Math.ulp(t) + 0x1p-1060, "t = " + t);
      double v = MixtureClip.phi(t);
      assertEquals(v, MixtureClip.phi(MixtureClip.phiInv(v)), 8 * Math.ulp(v), "v = " + v);
    }
  }

  @Test
  void phiInvIsCorrectJustBelowAndAtPerfectSquares() {
    for (long k = 1; k < (1L << 26); k = k * 3 + 1) {
      double sq = (double) k * k;
      assertEquals((double) k, MixtureClip.phiInv(sq));
      double below = Math.nextDown(sq);
      double t = MixtureClip.phiInv(below);
      assertTrue(t <= k && t > k - 1e-6, "k = " + k + ": " + t);
    }
  }

  @Test
  void vectorWithinTheBoundsIsLeftUnchanged() {
    double[] g = {0.5, -1.25, 0, 2, -0.0};
    double[] out = MixtureClip.clip(g, 100, 10);
    assertArrayEquals(g, out);
    assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(out[4]));
  }

  @Test
  void deltaInfClipsLargeCoordinatesKeepingTheirSigns() {
    double[] g = {-1.9, 0.3, 3.5};
    double[] out = MixtureClip.clip(g, 1e6, 1);
    assertArrayEquals(new double[] {-1, 0.3, 1}, out);
    assertClipped(g, out, 1e6, 1);
  }

  @Test
  void clipOfRandomGradientsMeetsBothConditionsExactly() {
    for (int trial = 0; trial < 40; trial++) {
      int n = 1 + (trial * 997) % 5000;
      double gamma = Math.scalb(1.0, trial % 12);
      double c = gamma * gamma;
      long deltaInf = 1 + (long) (gamma / (1 + trial % 5));
      double[] g = gaussian(n, gamma * (0.2 + trial % 7) / Math.sqrt(n), trial);
      double[] out = MixtureClip.clip(g, c, deltaInf);
      assertClipped(g, out, c, deltaInf);
    }
  }

  @Test
  void clipOfAdversarialGradientsMeetsBothConditionsExactly() {
    long deltaInf = 1L << 20;
    double c = 1 << 16;
    double[][] cases = {
      {1e300, -1e300, 1}, // sum of phi overflows: halved first
      {Double.MAX_VALUE, Double.MIN_VALUE, -Double.MIN_NORMAL},
      {256.0000001}, // one coordinate just over sqrt(c)
      filled(65_536, 1.0), // sum exactly c: the rigorous bound says "maybe over", so it shrinks
      filled(65_536, Math.nextUp(1.0)),
      filled(65_536, 0.9999999999999999),
      filled(4096, 4.000000000000001),
      filled(100_000, 1e-300),
      filled(3, 1e15),
      alternating(70_000, 0.5),
      {Double.MIN_VALUE, -Double.MIN_VALUE, 0},
    };
    for (double[] g : cases) {
      double[] out = MixtureClip.clip(g, c, deltaInf);
      assertClipped(g, out, c, deltaInf);
    }
  }

  @Test
  void sumAtTheBoundShrinksOnlyByTheRoundingMargin() {
    double[] g = filled(65_536, 1.0);
    double[] out = MixtureClip.clip(g, 65_536, 100);
    assertClipped(g, out, 65_536, 100);
    for (double v : out) {
      assertTrue(v > 1 - 1e-9, "shrunk too far: " + v);
    }
  }

  @Test
  void clipScalesTheHelperVectorToTheBound() {
    // v = (phi(3), phi(4)) = (9, 16), ||v||_1 = 25; c = 12.5 halves v to (4.5, 8).
    double[] out = MixtureClip.clip(new double[] {3, -4}, 12.5, 100);
    assertEquals(MixtureClip.phiInv(4.5), out[0], 1e-9);
    assertEquals(-MixtureClip.phiInv(8), out[1], 1e-9);
    assertEquals(2.1, out[0], 1e-9); // 2 + 0.5 / 5
    assertEquals(-(2 + 4.0 / 5), out[1], 1e-9);
  }

  @Test
  void phiSumUpperBoundIsAnUpperBoundAndTight() {
    for (int trial = 0; trial < 20; trial++) {
      double[] g = gaussian(10_000, Math.scalb(1.0, trial - 5), 100 + trial);
      double bound = MixtureClip.phiSumUpperBound(g);
      BigDecimal exact = exactPhiSum(g);
      assertTrue(new BigDecimal(bound).compareTo(exact) >= 0);
      assertTrue(bound <= exact.doubleValue() * (1 + 1e-10) + 1e-290);
    }
    assertEquals(Double.POSITIVE_INFINITY, MixtureClip.phiSumUpperBound(new double[] {0x1p51}));
    assertEquals(Double.POSITIVE_INFINITY, MixtureClip.phiSumUpperBound(new double[] {Double.NaN}));
  }

  @Test
  void invalidArgumentsAreRefusedWithTheirRange() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MixtureClip.clip(new double[] {1, Double.NaN}, 1, 1));
    assertTrue(e.getMessage().contains("coordinate 1"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> MixtureClip.clip(new double[] {1}, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> MixtureClip.clip(new double[] {1}, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> MixtureClip.clip(new double[] {1}, 1, 1L << 51));
    assertThrows(IllegalArgumentException.class, () -> MixtureClip.phi(-1));
    assertThrows(IllegalArgumentException.class, () -> MixtureClip.phiInv(Double.NaN));
  }

  static double[] filled(int n, double v) {
    double[] x = new double[n];
    Arrays.fill(x, v);
    return x;
  }

  /**
   * The clip written out the plain way (every coordinate through phi and phiInv, the sums in the
   * four running sums the class documents, the bound by phiSumUpperBound), for inputs whose sum of
   * phi does not overflow.
   */
  private static double[] plainClip(double[] g, double c, long deltaInf) {
    int n = g.length;
    double[] v = new double[n];
    double[] sums = new double[4];
    boolean inRange = true;
    for (int j = 0; j < n; j++) {
      double t = Math.abs(g[j]);
      inRange &= t <= MixtureClip.MAX_DELTA_INF;
      v[j] = MixtureClip.phi(t);
      sums[j < n - n % 4 ? j % 4 : 0] += v[j];
    }
    double norm = (sums[0] + sums[1]) + (sums[2] + sums[3]);
    double cap = deltaInf;
    double[] out = new double[n];
    if (inRange && Math.nextUp(norm * (1 + (n + 2) * 0x1p-51) + 0x1p-1000) <= c) {
      for (int j = 0; j < n; j++) {
        out[j] = Math.copySign(Math.min(Math.abs(g[j]), cap), g[j]);
      }
      return out;
    }
    for (double eta = 8 * (n + 16.0) * 0x1p-53; eta < 1; eta *= 2) {
      double s = Math.min(1 - eta, c / norm * (1 - eta));
      for (int j = 0; j < n; j++) {
        out[j] = Math.copySign(Math.min(MixtureClip.phiInv(s * v[j]), cap), g[j]);
      }
      if (MixtureClip.phiSumUpperBound(out) <= c) {
        return out;
      }
    }
    return new double[n];
  }

  @Test
  void theFastPathsGiveThePlainClipBitForBit() {
    // Blocks of four coordinates below 1 skip phi and phiInv (both are the identity there): the
    // result must not change by a bit, whatever mixes of small and large values the blocks hold.
    SplittableRandom r = new SplittableRandom(21);
    for (int i = 0; i < 3000; i++) {
      int n = r.nextInt(1, 300);
      double[] g = new double[n];
      double big = r.nextInt(4) == 0 ? 0.01 : Math.scalb(1.0, r.nextInt(0, 12));
      for (int j = 0; j < n; j++) {
        g[j] = r.nextGaussian() * (r.nextInt(5) == 0 ? big : 0.3);
        if (r.nextInt(50) == 0) {
          g[j] = r.nextBoolean() ? 0.0 : -0.0;
        }
        if (r.nextInt(200) == 0) {
          g[j] = Math.scalb(1.0, 51) * (r.nextBoolean() ? 1 : -1);
        }
      }
      double c = Math.scalb(1.0, r.nextInt(-4, 20)) * r.nextDouble(0.5, 1);
      long deltaInf = r.nextInt(3) == 0 ? r.nextLong(1, 4) : r.nextLong(1, 1L << 20);
      double[] fast = MixtureClip.clip(g, c, deltaInf);
      double[] plain = plainClip(g, c, deltaInf);
      for (int j = 0; j < n; j++) {
        assertEquals(Double.doubleToRawLongBits(plain[j]), Double.doubleToRawLongBits(fast[j]),
            "case " + i + ", coordinate " + j + " of " + n + ": " + g[j]);
      }
    }
  }

  @Test
  void clipIntoGivesTheClipBitForBitWhateverTheBufferHeld() {
    SplittableRandom r = new SplittableRandom(22);
    int n = 4099;
    double[] out = new double[n];
    java.util.Arrays.fill(out, -7);
    for (int i = 0; i < 20; i++) {
      double[] g = new double[n];
      for (int j = 0; j < n; j++) {
        g[j] = r.nextGaussian() * (i % 2 == 0 ? 0.3 : 3);
      }
      double c = i % 3 == 0 ? 1e9 : 500; // left as it is, or clipped
      MixtureClip.clipInto(g, c, 16, out);
      double[] plain = plainClip(g, c, 16);
      for (int j = 0; j < n; j++) {
        assertEquals(Double.doubleToRawLongBits(plain[j]), Double.doubleToRawLongBits(out[j]), "case " + i);
      }
    }
    double[] g = new double[8];
    assertThrows(IllegalArgumentException.class, () -> MixtureClip.clipInto(g, 1, 1, g));
    assertThrows(IllegalArgumentException.class, () -> MixtureClip.clipInto(g, 1, 1, new double[7]));
  }

  private static double[] alternating(int n, double v) {
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = (i % 2 == 0 ? v : -v) * (1 + i * 1e-6);
    }
    return x;
  }
}
