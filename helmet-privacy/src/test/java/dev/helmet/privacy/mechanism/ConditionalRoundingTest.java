package dev.helmet.privacy.mechanism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.noise.RandomBits;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ConditionalRoundingTest {
  private static final MathContext MC = new MathContext(40);

  /**
   * Bao et al.'s distributed sum setting (PVLDB 2022, Section 6.1): gamma = 64, r = 1, d = 65536,
   * beta = e^-0.5, so sqrt(2 ln(1/beta)) = 1 and B = 64^2 + 65536/4 + 64 + 256/2 = 20672, below
   * (64 + 256)^2 = 102400. Their L2 bound is sqrt(20672) = 143.78.
   */
  @Test
  void theBoundInBaoEtAlsSettingIs20672() {
    ConditionalRounding r = new ConditionalRounding(64, 65536, ConditionalRounding.DEFAULT_BETA);
    assertEquals(20672, r.squaredBound());
    assertEquals(143.7776, r.l2Sensitivity(), 1e-4);
    assertEquals(20672, r.l1Sensitivity(), 1e-9, "min(B, sqrt(D B)) = min(20672, 36807)");
  }

  /** The bound against the formula of Kairouz et al. (Theorem 1) in 40-digit decimal arithmetic. */
  @Test
  void theBoundMatchesTheFormulaInDecimalArithmetic() {
    double[] radii = {0.5, 3, 64, 1000.25, 2e6};
    int[] dims = {1, 2, 1024, 65536, 1 << 20};
    double[] betas = {0.01, ConditionalRounding.DEFAULT_BETA, 0.9};
    for (double r : radii) {
      for (int d : dims) {
        for (double beta : betas) {
          BigDecimal rr = new BigDecimal(r);
          BigDecimal sqrtD = new BigDecimal(d).sqrt(MC);
          BigDecimal t = new BigDecimal(2 * Math.log(1 / beta)).sqrt(MC);
          BigDecimal likely = rr.multiply(rr).add(new BigDecimal(d).divide(BigDecimal.valueOf(4)))
              .add(t.multiply(rr.add(sqrtD.divide(BigDecimal.valueOf(2))), MC));
          BigDecimal always = rr.add(sqrtD).pow(2, MC);
          BigDecimal exact = likely.min(always);
          long floor = exact.setScale(0, RoundingMode.FLOOR).longValueExact();
          if (floor == 0) { // r 0.5, d 1, beta 0.9: 0.25 + 0.25 + 0.459 = 0.959; no rounding can pass
            assertThrows(IllegalArgumentException.class, () -> new ConditionalRounding(r, d, beta));
            continue;
          }
          long b = new ConditionalRounding(r, d, beta).squaredBound();
          // The double computation may land on the neighbouring integer only if the bound is
          // within rounding error of an integer; the enforced bound is what is accounted, either way.
          double frac = exact.subtract(new BigDecimal(floor)).doubleValue();
          long allowed = frac < 1e-6 || frac > 1 - 1e-6 ? 1 : 0;
          assertTrue(Math.abs(b - floor) <= allowed,
              "r " + r + " d " + d + " beta " + beta + ": " + b + " vs " + exact);
        }
      }
    }
  }

  @Test
  void betaZeroKeepsTheDeterministicBoundOnly() {
    ConditionalRounding r = new ConditionalRounding(10, 100, 0);
    assertEquals(400, r.squaredBound(), "(10 + 10)^2");
  }

  /**
   * The property privacy rests on: every output has squared norm at most B, whatever the input,
   * checked here in BigInteger on roundings of adversarial inputs (every coordinate at 1/2, where
   * rounding adds the most variance; every coordinate tiny, where it inflates the norm the most;
   * one spike; random directions) at the radius, each rounded many times.
   */
  @Test
  void everyOutputMeetsTheNormBound() {
    int d = 256;
    double radius = 8;
    for (double beta : new double[] {ConditionalRounding.DEFAULT_BETA, 0.01, 0.99, 0}) {
      ConditionalRounding cr = new ConditionalRounding(radius, d, beta);
      RandomBits bits = RandomBits.insecureForTesting(7);
      for (double[] x : adversarialInputs(d, radius)) {
        for (int k = 0; k < 300; k++) {
          long[] y = cr.round(x, bits);
          BigInteger sq = BigInteger.ZERO;
          long l1 = 0;
          for (int j = 0; j < d; j++) {
            assertTrue(y[j] == Math.floor(x[j]) || y[j] == Math.ceil(x[j]), "not a rounding of " + x[j] + ": " + y[j]);
            sq = sq.add(BigInteger.valueOf(y[j]).pow(2));
            l1 += Math.abs(y[j]);
          }
          assertTrue(sq.compareTo(BigInteger.valueOf(cr.squaredBound())) <= 0, "beta " + beta + ": " + sq);
          assertTrue(l1 <= cr.l1Sensitivity(), "L1 " + l1);
          assertTrue(Math.sqrt(sq.doubleValue()) <= cr.l2Sensitivity());
        }
      }
    }
  }

  /** The exact check at the boundary: squared norm B passes, B + 1 does not. */
  @Test
  void theCheckIsExactAtTheBoundary() {
    ConditionalRounding cr = new ConditionalRounding(3, 4, 0); // B = (3 + 2)^2 = 25
    assertEquals(25, cr.squaredBound());
    assertTrue(cr.withinBound(new long[] {3, 4, 0, 0}));
    assertTrue(cr.withinBound(new long[] {-5, 0, 0, 0}));
    assertFalse(cr.withinBound(new long[] {3, 4, 1, 0}));
    assertFalse(cr.withinBound(new long[] {6, 0, 0, 0}));
    assertFalse(cr.withinBound(new long[] {Long.MIN_VALUE, 0, 0, 0}), "no overflow");
  }

  /** Sensitivities are rounded up: sqrt(B) and min(B, sqrt(D B)) never exceed them. */
  @Test
  void sensitivitiesAreRoundedUp() {
    for (double r : new double[] {1, 7.3, 64, 2048, 1e8}) {
      for (int d : new int[] {1, 3, 1024, 1 << 30}) {
        ConditionalRounding cr = new ConditionalRounding(r, d, ConditionalRounding.DEFAULT_BETA);
        BigDecimal b = BigDecimal.valueOf(cr.squaredBound());
        BigDecimal l2 = new BigDecimal(cr.l2Sensitivity());
        assertTrue(l2.multiply(l2).compareTo(b) >= 0, "L2 " + l2 + " for B " + b);
        BigDecimal l1 = new BigDecimal(cr.l1Sensitivity());
        BigDecimal sqrtDb = b.multiply(BigDecimal.valueOf(d)).sqrt(MC);
        assertTrue(l1.compareTo(b.min(sqrtDb)) >= 0, "L1 " + l1);
        assertTrue(l1.compareTo(b.min(sqrtDb).multiply(new BigDecimal("1.000000000001"))) <= 0, "and tight");
      }
    }
  }

  @Test
  void inputsOutsideTheRadiusOrTheLimitsAreRefused() {
    ConditionalRounding cr = new ConditionalRounding(1, 4, ConditionalRounding.DEFAULT_BETA);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> cr.round(new double[] {1, 1, 0, 0}, RandomBits.insecureForTesting(1)));
    assertTrue(e.getMessage().contains("radius"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> cr.round(new double[] {1}, RandomBits.insecureForTesting(1)));
    assertThrows(IllegalArgumentException.class, () -> new ConditionalRounding(0x1p31, 4, 0.5));
    assertThrows(IllegalArgumentException.class, () -> new ConditionalRounding(1, 4, 1));
    assertThrows(IllegalArgumentException.class, () -> new ConditionalRounding(1, 4, -0.1));
    // D = 1, r = 1e-3, beta = 1/2: r^2 + 1/4 + sqrt(2 ln 2) (r + 1/2) = 0.839, so B = floor(0.839) = 0.
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> new ConditionalRounding(1e-3, 1, 0.5));
    assertTrue(zero.getMessage().contains("B = 0"), zero.getMessage());
    assertEquals(1, new ConditionalRounding(1e-3, 1, 0.3).squaredBound(), "0.25 + 1.552 (0.501) = 1.028");
  }

  @Test
  void clippingScalesOnlyLongVectors() {
    double[] x = {3, 4};
    double[] c = ConditionalRounding.clipL2(x, 1);
    assertEquals(0.6, c[0], 1e-15);
    assertEquals(0.8, c[1], 1e-15);
    assertEquals(3, ConditionalRounding.clipL2(x, 5)[0]);
    assertEquals(3, x[0], "input untouched");
    assertEquals(5e300 * Math.sqrt(2), ConditionalRounding.l2Norm(new double[] {5e300, 5e300}), 1e288);
  }

  @Test
  void theBufferedFormsGiveTheSameValuesAndDraws() {
    int d = 1000;
    RandomizedHadamard rotation = new RandomizedHadamard(d, 3);
    ConditionalRounding rounding = new ConditionalRounding(16, rotation.paddedDimension(),
        ConditionalRounding.DEFAULT_BETA);
    double[] clipped = new double[d];
    double[] rotated = new double[rotation.paddedDimension()];
    long[] rounded = new long[rotation.paddedDimension()];
    Arrays.fill(clipped, Double.NaN);
    Arrays.fill(rotated, Double.NaN);
    SplittableRandom r = new SplittableRandom(8);
    for (int i = 0; i < 4; i++) {
      double[] x = r.doubles(d, -1, 1).toArray(); // norm about 18: clipped to 1 when i is even
      double c = i % 2 == 0 ? 1 : 100;
      double[] plain = ConditionalRounding.clipRotateScale(rotation, x, c, 16);
      ConditionalRounding.clipRotateScaleInto(rotation, x, c, 16, clipped, rotated);
      for (int j = 0; j < plain.length; j++) {
        assertEquals(Double.doubleToRawLongBits(plain[j]), Double.doubleToRawLongBits(rotated[j]));
      }
      if (c == 1) {
        long[] expected = rounding.round(plain, RandomBits.insecureForTesting(i));
        rounding.roundInto(rotated, rounded, RandomBits.insecureForTesting(i));
        assertArrayEquals(expected, rounded);
      }
    }
    double[] x = new double[d];
    assertThrows(IllegalArgumentException.class,
        () -> ConditionalRounding.clipRotateScaleInto(rotation, x, 1, 16, x, rotated), "the input as the clip buffer");
  }

  private static double[][] adversarialInputs(int d, double radius) {
    double[] half = new double[d];
    double[] tiny = new double[d];
    double[] spike = new double[d];
    Arrays.fill(half, radius / Math.sqrt(d)); // 0.5 for d = 256, radius 8
    Arrays.fill(tiny, 0.01);
    spike[3] = -radius;
    double[] random = SmmEncodingTest.unitBall(d, radius, 11);
    double[] mixed = new double[d];
    SplittableRandom r = new SplittableRandom(12);
    double s = 0;
    for (int j = 0; j < d; j++) {
      mixed[j] = r.nextInt(3) - 1 + 0.5;
      s += mixed[j] * mixed[j];
    }
    for (int j = 0; j < d; j++) {
      mixed[j] *= radius / Math.sqrt(s);
    }
    return new double[][] {half, tiny, spike, random, mixed};
  }
}
