package dev.helmet.privacy.mechanism;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.noise.RandomBits;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The exact Bernoulli trial against chosen uniform words: U < p must be decided exactly at every
 * boundary of p's binary expansion. Statistical checks of the rounding are in {@link
 * SmmStatisticalTest}.
 */
class StochasticRoundingTest {
  /**
   * A uniform U = 0.w0 w1 ... given by its 64-bit words, served in the pieces the trial asks for;
   * reading past the last word fails the test.
   */
  private static final class Words implements StochasticRounding.Uniform {
    final long[] words;
    int read; // bits

    Words(long... w) {
      this.words = w.clone();
    }

    private long take(int k) {
      long v = 0;
      for (int i = 0; i < k; i++, read++) {
        if (read / 64 >= words.length) {
          throw new AssertionError("more bits read than the comparison needs");
        }
        v = (v << 1) | ((words[read / 64] >>> (63 - read % 64)) & 1);
      }
      return v;
    }

    @Override
    public int next8() {
      return (int) take(8);
    }

    @Override
    public long next56() {
      return take(56);
    }

    @Override
    public long next64() {
      return take(64);
    }
  }

  /** [U < p] by exact arithmetic, U = 0.w0 w1 ... (64-bit words) followed by zeros. */
  private static boolean exactBelow(double p, long... w) {
    BigInteger u = BigInteger.ZERO;
    for (long x : w) {
      u = u.shiftLeft(64).add(new BigInteger(Long.toUnsignedString(x)));
    }
    // p 2^(64 len) is an integer for len >= 17 (p is a multiple of 2^-1074)
    BigInteger scaled = new BigDecimal(p)
        .multiply(new BigDecimal(BigInteger.ONE.shiftLeft(64 * w.length))).toBigIntegerExact();
    return u.compareTo(scaled) < 0;
  }

  @Test
  void halfIsDecidedByTheFirstBit() {
    assertTrue(StochasticRounding.bernoulli(0.5, new Words(0x7fffffffffffffffL)));
    Words w = new Words(0x8000000000000000L, 0);
    assertFalse(StochasticRounding.bernoulli(0.5, w)); // U >= 1/2 whatever follows
    assertEquals(64, w.read); // the first word holds all of p
    assertFalse(StochasticRounding.bernoulli(0.5, new Words(-1L)));
  }

  @Test
  void wordsMatchingPrefixOfPReadOnUntilTheyDiffer() {
    double p = 0.1; // binary expansion 55 bits long after the leading zeros: one word holds it
    long w0 = new BigDecimal(p).multiply(new BigDecimal(BigInteger.ONE.shiftLeft(64)))
        .toBigInteger().longValue();
    assertTrue(StochasticRounding.bernoulli(p, new Words(w0 - 1)));
    assertFalse(StochasticRounding.bernoulli(p, new Words(w0 + 1)));
    // p * 2^64 is an integer here, so U = p exactly when the word equals it: U >= p
    Words w = new Words(w0, 0);
    assertFalse(StochasticRounding.bernoulli(p, w));
    assertEquals(64, w.read);
  }

  @Test
  void tinyProbabilitiesLookPastManyZeroWords() {
    // 2^-1074: the only 1 bit is bit 1074, in word 16 at value 2^(64 * 17 - 1074) = 2^14.
    long[] zeros = new long[16];
    long[] below = java.util.Arrays.copyOf(zeros, 17);
    below[16] = (1L << 14) - 1;
    assertTrue(StochasticRounding.bernoulli(Double.MIN_VALUE, new Words(below)));
    long[] at = java.util.Arrays.copyOf(zeros, 17);
    at[16] = 1L << 14;
    assertFalse(StochasticRounding.bernoulli(Double.MIN_VALUE, new Words(at)));
    assertFalse(StochasticRounding.bernoulli(Double.MIN_VALUE, new Words(1)));
    // 2^-100 = bit 100: word 1 at 2^(128 - 100) = 2^28
    assertTrue(StochasticRounding.bernoulli(0x1p-100, new Words(0, (1L << 28) - 1)));
    assertFalse(StochasticRounding.bernoulli(0x1p-100, new Words(0, 1L << 28)));
  }

  @Test
  void decisionsAgreeWithExactArithmeticOnRandomAndBoundaryWords() {
    SplittableRandom r = new SplittableRandom(7);
    for (int i = 0; i < 20_000; i++) {
      double p = switch (i % 4) {
        case 0 -> r.nextDouble();
        case 1 -> Math.scalb(r.nextDouble(), -r.nextInt(1, 1000));
        case 2 -> Double.longBitsToDouble(r.nextLong(1, 0x0010000000000000L)); // subnormal
        default -> 1 - Math.scalb(r.nextDouble(), -r.nextInt(1, 50));
      };
      if (!(p > 0 && p < 1)) {
        continue;
      }
      // U's words: p's own expansion, with one word nudged by -1, 0 or +1
      BigInteger scaled = new BigDecimal(p)
          .multiply(new BigDecimal(BigInteger.ONE.shiftLeft(64 * 17))).toBigInteger();
      long[] w = new long[17];
      for (int k = 0; k < 17; k++) {
        w[k] = scaled.shiftRight(64 * (16 - k)).longValue();
      }
      int nudged = r.nextInt(17);
      w[nudged] += r.nextInt(-1, 2);
      boolean exact = exactBelow(p, w);
      assertEquals(exact, StochasticRounding.bernoulli(p, new Words(w)),
          "p = " + p + ", word " + nudged);
    }
  }

  @Test
  void zeroAndOneAreCertainAndReadAsManyBitsAsAnyTrial() {
    // A first byte that is not a tie decides in 8 bits; a tie (1 case in 256 for every p, a byte of
    // 255 for p = 1) reads 56 more, so the bits read do not depend on p.
    Words w0 = new Words(0x0100000000000000L);
    assertFalse(StochasticRounding.bernoulli(0, w0));
    assertEquals(8, w0.read);
    Words tie0 = new Words(5);
    assertFalse(StochasticRounding.bernoulli(0, tie0));
    assertEquals(64, tie0.read);
    Words w1 = new Words(0xfe00000000000000L);
    assertTrue(StochasticRounding.bernoulli(1, w1));
    assertEquals(8, w1.read);
    Words tie1 = new Words(-1L);
    assertTrue(StochasticRounding.bernoulli(1, tie1));
    assertEquals(64, tie1.read);
    Words half = new Words(0x80ffffffffffffffL);
    assertFalse(StochasticRounding.bernoulli(0.5, half));
    assertEquals(64, half.read);
    assertThrows(IllegalArgumentException.class, () -> StochasticRounding.bernoulli(1.5, new Words(0)));
    assertThrows(IllegalArgumentException.class,
        () -> StochasticRounding.bernoulli(Double.NaN, new Words(0)));
  }

  @Test
  void theVectorLoopsReadAndDecideAsTheTrialDoes() {
    // roundAll and addRounded compare the first byte inline: they must read the same bits and
    // return the same values as round(x, U) does, including the 1 in 256 trials that read on.
    SplittableRandom r = new SplittableRandom(11);
    int n = 200_000;
    double[] x = new double[n];
    for (int j = 0; j < n; j++) {
      x[j] = switch (j % 5) {
        case 0 -> (r.nextDouble() - 0.5) * 64;
        case 1 -> r.nextInt(-8, 8) + r.nextInt(256) / 256.0; // p is a whole byte: ties read on
        case 2 -> Math.scalb(r.nextDouble(), -r.nextInt(1, 80)) * (r.nextBoolean() ? 1 : -1);
        case 3 -> r.nextBoolean() ? r.nextInt(-1000, 1000) // and around 2^52, where the fast loop switches
            : Math.scalb(1.0, r.nextInt(50, 62)) * (1 + r.nextInt(-4, 5) * 0x1p-52) * (r.nextBoolean() ? 1 : -1);
        default -> r.nextInt(-3, 3) + 1 - Math.scalb(r.nextDouble(), -r.nextInt(1, 50));
      };
    }
    // 0 to 7 bytes already taken from the generator's last value: the loops read the rest first.
    for (int used = 0; used < 8; used++) {
      RandomBits a = RandomBits.insecureForTesting(12);
      RandomBits b = RandomBits.insecureForTesting(12);
      RandomBits c = RandomBits.insecureForTesting(12);
      for (int k = 0; k < used; k++) {
        a.nextByte();
        b.nextByte();
        c.nextByte();
      }
      int len = n - used; // every length mod 8
      double[] xs = java.util.Arrays.copyOf(x, len);
      long[] fast = new long[len];
      StochasticRounding.roundAll(xs, fast, a);
      long[] acc = new long[len];
      java.util.Arrays.fill(acc, 7);
      StochasticRounding.addRounded(xs, acc, b);
      StochasticRounding.Uniform u = StochasticRounding.uniform(c);
      for (int j = 0; j < len; j++) {
        long expected = StochasticRounding.round(xs[j], u);
        assertEquals(expected, fast[j], "x = " + xs[j]);
        assertEquals(expected + 7, acc[j], "x = " + xs[j]);
      }
      // all three read the same bits: their next values agree
      long next = c.nextLong();
      assertEquals(next, a.nextLong());
      assertEquals(next, b.nextLong());
    }
  }

  @Test
  void integersRoundToThemselves() {
    RandomBits bits = RandomBits.insecureForTesting(3);
    for (long k = -1000; k <= 1000; k++) {
      for (int rep = 0; rep < 20; rep++) {
        assertEquals(k, StochasticRounding.round((double) k, bits));
      }
    }
    assertEquals(1L << 62, StochasticRounding.round(0x1p62, bits));
    assertEquals(-(1L << 62), StochasticRounding.round(-0x1p62, bits));
    assertEquals(0, StochasticRounding.round(-0.0, bits));
  }

  @Test
  void valuesRoundToAnAdjacentInteger() {
    RandomBits bits = RandomBits.insecureForTesting(4);
    SplittableRandom r = new SplittableRandom(4);
    for (int i = 0; i < 100_000; i++) {
      double x = (r.nextDouble() - 0.5) * 2000;
      long y = StochasticRounding.round(x, bits);
      assertTrue(y == Math.floor(x) || y == Math.ceil(x), x + " -> " + y);
    }
    // a tiny negative value rounds to 0 or -1, never to +1 (x - floor(x) would round to 1.0)
    for (int i = 0; i < 1000; i++) {
      long y = StochasticRounding.round(-0x1p-60, bits);
      assertTrue(y == 0 || y == -1);
    }
  }

  @Test
  void roundingByMagnitudeDecidesNegativeValuesWithTheSameWords() {
    // -2.25 = -(2 + 0.25): U < 1/4 rounds the magnitude up, to -3
    assertEquals(-3, StochasticRounding.round(-2.25, new Words(0x3fffffffffffffffL)));
    assertEquals(-2, StochasticRounding.round(-2.25, new Words(0x4000000000000000L)));
    assertEquals(3, StochasticRounding.round(2.25, new Words(0x3fffffffffffffffL)));
  }

  @Test
  void outOfRangeValuesAreRefused() {
    RandomBits bits = RandomBits.insecureForTesting(5);
    assertThrows(IllegalArgumentException.class, () -> StochasticRounding.round(0x1p63, bits));
    assertThrows(IllegalArgumentException.class, () -> StochasticRounding.round(Double.NaN, bits));
    assertThrows(IllegalArgumentException.class,
        () -> StochasticRounding.roundAll(new double[3], new long[2], bits));
  }
}
