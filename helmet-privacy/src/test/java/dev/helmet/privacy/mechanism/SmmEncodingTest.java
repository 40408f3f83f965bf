package dev.helmet.privacy.mechanism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.noise.RandomBits;
import java.math.BigDecimal;
import java.util.SplittableRandom;
import org.apache.commons.statistics.distribution.PoissonDistribution;
import org.junit.jupiter.api.Test;

/** The encoder's and decoder's deterministic behaviour; statistics are in SmmStatisticalTest. */
class SmmEncodingTest {
  static double[] unitBall(int d, double norm, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] x = new double[d];
    double s = 0;
    for (int j = 0; j < d; j++) {
      x[j] = Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
      s += x[j] * x[j];
    }
    double f = norm / Math.sqrt(s);
    for (int j = 0; j < d; j++) {
      x[j] *= f;
    }
    return x;
  }

  private static SmmEncoder seeded(RandomizedHadamard h, SmmParameters p, long seed) {
    return new SmmEncoder(h, p, RandomBits.insecureForTesting(seed));
  }

  @Test
  void messagesLieInTheRing() {
    for (int b : new int[] {2, 6, 8, 10, 63}) {
      SmmParameters p = new SmmParameters(16, 256, 8, 50, 1, b);
      RandomizedHadamard h = new RandomizedHadamard(1000, 1);
      long[] z = seeded(h, p, b).encode(unitBall(1000, 1, 2));
      assertEquals(1024, z.length);
      for (long v : z) {
        assertEquals(0, v & ~p.mask(), "b = " + b + ": " + v);
      }
    }
  }

  @Test
  void anExactlyRepresentableVectorEncodesAndDecodesExactlyWithoutNoise() {
    // x = D_xi (1, 1, 1, 1) rotates to H (1, 1, 1, 1) / 2 = (2, 0, 0, 0): every step is exact.
    RandomizedHadamard h = new RandomizedHadamard(4, 99);
    double[] x = new double[4];
    for (int j = 0; j < 4; j++) {
      x[j] = h.sign(j);
    }
    SmmParameters p = new SmmParameters(3, 100, 10, 0, 1, 8);
    assertArrayEquals(new double[] {6, 0, 0, 0}, seeded(h, p, 1).scaleAndClip(x));
    long[] z = seeded(h, p, 1).encode(x);
    assertArrayEquals(new long[] {6, 0, 0, 0}, z);
    long[] negated = seeded(h, p, 2).encode(new double[] {-x[0], -x[1], -x[2], -x[3]});
    assertArrayEquals(new long[] {250, 0, 0, 0}, negated);
    long[] sum = SmmDecoder.sumMod(8, z, z, negated);
    assertArrayEquals(new long[] {6, 0, 0, 0}, sum);
    assertArrayEquals(x, new SmmDecoder(h, p).decode(sum));
    assertArrayEquals(new double[] {-x[0], -x[1], -x[2], -x[3]}, new SmmDecoder(h, p).decode(negated));
  }

  @Test
  void scaledAndClippedGradientMeetsTheClipConditionsExactly() {
    SmmParameters p = new SmmParameters(64, 64 * 64, 12, 10, 1, 16);
    RandomizedHadamard h = new RandomizedHadamard(5000, 3);
    SmmEncoder enc = seeded(h, p, 4);
    for (double norm : new double[] {0.1, 1, 10, 1e6}) {
      double[] g = enc.scaleAndClip(unitBall(5000, norm, (long) norm));
      assertTrue(MixtureClipTest.exactPhiSum(g).compareTo(new BigDecimal(p.c())) <= 0);
      for (double v : g) {
        assertTrue(Math.ceil(Math.abs(v)) <= 12);
      }
    }
  }

  @Test
  void signedRepresentativesCoverMinusHalfToHalf() {
    assertEquals(0, SmmDecoder.toSigned(0, 8));
    assertEquals(127, SmmDecoder.toSigned(127, 8));
    assertEquals(-128, SmmDecoder.toSigned(128, 8));
    assertEquals(-1, SmmDecoder.toSigned(255, 8));
    assertEquals(-2, SmmDecoder.toSigned(2, 2));
    assertEquals(1, SmmDecoder.toSigned(1, 2));
    assertEquals(-1, SmmDecoder.toSigned(-1L, 64));
    assertEquals(Long.MAX_VALUE, SmmDecoder.toSigned(Long.MAX_VALUE, 64));
    assertEquals(-(1L << 62), SmmDecoder.toSigned(1L << 62, 63));
  }

  @Test
  void sumsWrapModuloTheRing() {
    assertArrayEquals(new long[] {1, 0},
        SmmDecoder.sumMod(8, new long[] {200, 255}, new long[] {57, 1}));
    assertArrayEquals(new long[] {0}, SmmDecoder.sumMod(64, new long[] {-1L}, new long[] {1}));
    assertThrows(IllegalArgumentException.class, () -> SmmDecoder.sumMod(8, new long[2], new long[3]));
  }

  @Test
  void sixtyFourBitRingDecodesNegativeSums() {
    SmmParameters p = new SmmParameters(1024, 1024.0 * 1024, 1024, 0, 1, 64);
    RandomizedHadamard h = new RandomizedHadamard(300, 8);
    double[] x = unitBall(300, 0.5, 9);
    long[] z = seeded(h, p, 10).encode(x);
    double[] y = new SmmDecoder(h, p).decode(z);
    double err = 0;
    for (int j = 0; j < 300; j++) {
      err = Math.max(err, Math.abs(y[j] - x[j]));
    }
    assertTrue(err < Math.sqrt(512) / 1024, "error " + err); // |error_j| <= sqrt(D) max|r| / gamma
    assertTrue(err > 0);
  }

  @Test
  void decoderRefusesValuesOutsideTheRing() {
    SmmParameters p = new SmmParameters(4, 16, 4, 1, 1, 8);
    SmmDecoder dec = new SmmDecoder(new RandomizedHadamard(2, 1), p);
    assertThrows(IllegalArgumentException.class, () -> dec.decode(new long[] {256, 0}));
    assertThrows(IllegalArgumentException.class, () -> dec.decode(new long[] {-1, 0}));
    assertThrows(IllegalArgumentException.class, () -> dec.decode(new long[] {1}));
  }

  @Test
  void sameTestingSeedGivesTheSameMessageAndTheDefaultIsSecure() {
    SmmParameters p = new SmmParameters(32, 1024, 8, 7, 2, 10);
    RandomizedHadamard h = new RandomizedHadamard(777, 5);
    double[] x = unitBall(777, 1, 6);
    assertArrayEquals(seeded(h, p, 11).encode(x), seeded(h, p, 11).encode(x));
    assertFalse(seeded(h, p, 11).isSecure());
    SmmEncoder secure = new SmmEncoder(h, p);
    assertTrue(secure.isSecure());
    assertEquals(1024, secure.encode(x).length);
  }

  @Test
  void wrapBoundIsOneWithoutHeadroomAndZeroWithoutNoise() {
    RandomizedHadamard h = new RandomizedHadamard(1000, 1);
    SmmDecoder noiseless = new SmmDecoder(h, new SmmParameters(16, 256, 8, 0, 1, 8));
    assertEquals(0, noiseless.wrapProbabilityBound(15)); // 15 * 8 = 120 < 128
    assertEquals(1, noiseless.wrapProbabilityBound(16)); // 128: no headroom
    SmmDecoder noisy = new SmmDecoder(h, new SmmParameters(16, 256, 8, 50, 1, 16));
    double previous = 0;
    for (int n = 1; n <= 4096; n *= 2) {
      double bound = noisy.wrapProbabilityBound(n);
      assertTrue(bound >= previous, "n = " + n);
      previous = bound;
    }
    assertTrue(noisy.wrapProbabilityBound(1) < 1e-100);
    assertEquals(1, noisy.wrapProbabilityBound(4096)); // 4096 * 8 = 2^15
  }

  @Test
  void wrapBoundIsAboveTheExactSkellamTail() {
    // P[Sk(mu, mu) >= t] = sum_y P[Y = y] P[X >= y + t] against the Chernoff bound per side.
    double lambda = 3.5;
    int d = 64;
    SmmParameters p = new SmmParameters(4, 16, 2, 7, 2, 8);
    SmmDecoder dec = new SmmDecoder(new RandomizedHadamard(d, 1), p);
    for (int n = 1; n <= 16; n++) {
      double mu = n * lambda;
      PoissonDistribution pois = PoissonDistribution.of(mu);
      double signal = 100 - n; // any signal bound below 128
      double t = 128 - signal;
      double tail = 0;
      for (int y = 0; y < 2000; y++) {
        tail += pois.probability(y) * pois.survivalProbability((int) Math.ceil(y + t) - 1);
      }
      double bound = dec.wrapProbabilityBound(n, signal);
      assertTrue(bound >= Math.min(1, 2 * d * tail), "n = " + n + ": " + bound + " < " + 2 * d * tail);
      assertTrue(bound <= 1);
    }
  }

  @Test
  void parametersAreValidatedWithTheirRange() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SmmParameters(16, 256, 8, 1, 1, 65));
    assertTrue(e.getMessage().contains("bits"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new SmmParameters(0, 256, 8, 1, 1, 8));
    assertThrows(IllegalArgumentException.class, () -> new SmmParameters(16, 0, 8, 1, 1, 8));
    assertThrows(IllegalArgumentException.class, () -> new SmmParameters(16, 256, 0, 1, 1, 8));
    assertThrows(IllegalArgumentException.class, () -> new SmmParameters(16, 256, 8, -1, 1, 8));
    assertThrows(IllegalArgumentException.class, () -> new SmmParameters(16, 256, 8, 1, 0, 8));
    assertThrows(IllegalArgumentException.class, () -> new SmmParameters(16, 256, 8, 1L << 40, 1, 8));
    assertEquals(0xffL, new SmmParameters(16, 256, 8, 1, 1, 8).mask());
    assertEquals(-1L, new SmmParameters(16, 256, 8, 1, 1, 64).mask());
    assertEquals(2.5, new SmmParameters(16, 256, 8, 5, 2, 8).lambda());
  }
}
