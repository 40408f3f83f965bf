package dev.helmet.secagg.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FixedPointEncodingTest {

  @ParameterizedTest
  @ValueSource(ints = {16, 32, 64})
  void roundTripsWithinHalfAGridStep(int bits) {
    FixedPointEncoding e = new FixedPointEncoding(bits, bits / 2);
    SplittableRandom r = new SplittableRandom(bits);
    double step = Math.scalb(1.0, -e.fractionalBits());
    for (int i = 0; i < 10_000; i++) {
      double x = (r.nextDouble() * 2 - 1) * Math.scalb(1.0, bits / 2 - 3);
      long v = e.encode(x);
      assertTrue(e.inRing(v));
      assertEquals(x, e.decode(v), step / 2 + 1e-300);
    }
  }

  /**
   * The property the summation rests on: for inputs anywhere in [-bound, bound] (including both
   * ends), the ring sum decodes to exactly the sum of the rounded inputs, checked against
   * arbitrary-precision integers.
   */
  @ParameterizedTest
  @ValueSource(ints = {32, 64})
  void sumsAtTheBoundNeverWrap(int bits) {
    SplittableRandom r = new SplittableRandom(bits * 7L);
    for (int trial = 0; trial < 50; trial++) {
      int parties = 1 + r.nextInt(2000);
      double bound = Math.exp(r.nextDouble() * 10 - 5);
      FixedPointEncoding e;
      try {
        e = FixedPointEncoding.forBound(bits, bound, parties);
      } catch (RingOverflowException tooBig) {
        continue;
      }
      long[] acc = new long[1];
      BigInteger exact = BigInteger.ZERO;
      for (int i = 0; i < parties; i++) {
        double x = switch (r.nextInt(3)) {
          case 0 -> bound;
          case 1 -> -bound;
          default -> (r.nextDouble() * 2 - 1) * bound;
        };
        long v = e.encode(x);
        e.addInto(acc, new long[] {v});
        exact = exact.add(BigInteger.valueOf(Math.round(Math.scalb(x, e.fractionalBits()))));
      }
      assertEquals(exact.longValueExact(), e.signed(acc[0]), "parties " + parties + " bound " + bound);
    }
  }

  @Test
  void forBoundPicksTheMostFractionalBitsThatFit() {
    FixedPointEncoding e = FixedPointEncoding.forBound(32, 0.3, 1000);
    // 1000 * 0.3 * 2^f + 500 < 2^31 holds for f = 22 (1.26e9) and fails for f = 23 (2.52e9).
    assertEquals(22, e.fractionalBits());
    assertTrue(e.holds(0.3, 1000));
    assertFalse(new FixedPointEncoding(32, 23).holds(0.3, 1000));
  }

  @Test
  void configurationsThatCouldWrapAreRefusedWithAClearMessage() {
    RingOverflowException e = assertThrows(RingOverflowException.class,
        () -> FixedPointEncoding.forBound(32, 1e6, 10_000));
    assertTrue(e.getMessage().contains("cannot hold the sum of 10000 inputs"), e.getMessage());
    assertThrows(RingOverflowException.class, () -> new FixedPointEncoding(32, 20).requireHolds(1e4, 1000));
  }

  @Test
  void thirtyTwoBitRingMasksAndSignExtends() {
    FixedPointEncoding e = new FixedPointEncoding(32, 8);
    long minusOne = e.encode(-1.0 / 256);
    assertEquals(0xFFFFFFFFL, minusOne);
    assertEquals(-1.0 / 256, e.decode(minusOne));
    long[] acc = {e.encode(-2.5)};
    e.addInto(acc, new long[] {e.encode(3.0)});
    assertEquals(0.5, e.decode(acc[0]));
    assertFalse(e.inRing(1L << 32));
  }

  @Test
  void nonFiniteValuesCannotBeEncoded() {
    FixedPointEncoding e = new FixedPointEncoding(64, 20);
    assertThrows(IllegalArgumentException.class, () -> e.encode(Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> e.encode(Double.POSITIVE_INFINITY));
    assertThrows(IllegalArgumentException.class, () -> new FixedPointEncoding(32, 31));
  }

  /** SMM's rings: Z_{2^6} holds integers reduced by the caller, read back as [-32, 32). */
  @Test
  void integerRingsFromTwoBitsUnwrapToTheSignedRange() {
    FixedPointEncoding e = FixedPointEncoding.integers(6);
    assertEquals(0, e.fractionalBits());
    assertEquals(-32, e.signed(32));
    assertEquals(31, e.signed(31));
    assertEquals(-1, e.signed(63));
    assertEquals(-3.0, e.decode(e.encode(-3.0)));
    assertEquals(47_708, e.packedBytes(63_610));
    assertEquals(1, e.bytesPerValue());
    assertEquals(-2, FixedPointEncoding.integers(2).signed(2));
    assertThrows(IllegalArgumentException.class, () -> FixedPointEncoding.integers(1));
  }

  /** Choosing a fixed-point precision for real inputs still needs 8 fractional bits and a sign. */
  @Test
  void fixedPointPrecisionStillNeedsARingOfAtLeastTenBits() {
    assertThrows(RingOverflowException.class, () -> FixedPointEncoding.forBound(9, 0.001, 1));
    assertEquals(8, FixedPointEncoding.forBound(10, 0.001, 1).fractionalBits());
    assertThrows(IllegalArgumentException.class, () -> FixedPointEncoding.forBound(6, 0.001, 1));
  }
}
