package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.noise.RandomBits;
import java.util.function.LongSupplier;

/**
 * Unbiased stochastic rounding to the integers, {@code floor(x) + Bernoulli(x - floor(x))}, with an
 * exact Bernoulli trial: the Skellam mixture mechanism's privacy analysis (Bao et al., PVLDB
 * 15(11), 2022, Theorem 5 and Algorithm 4 lines 5-10) treats the rounding as part of the
 * mechanism's randomness, a mixture of two shifted Skellams with weights 1 - p and p, so the trial
 * must have exactly the probability p of the value that was clipped.
 *
 * <p><b>Exact trial.</b> A double p in (0, 1) is a dyadic rational M 2^-s (M < 2^53, s <= 1074),
 * so its binary expansion is finite. A uniform real U in [0, 1) is read 64 bits at a time from
 * {@link RandomBits}, and its words are compared, unsigned, with the words of p's expansion; the
 * first word that differs decides U < p, and if every word of p is matched, U >= p. So the answer
 * is exactly [U < p], with probability exactly p, and nothing is compared in floating point (a
 * test like {@code nextDouble() < p} is biased for p that is not a multiple of 2^-53). A trial
 * reads one word, and another with probability 2^-64 per word matched.
 *
 * <p><b>Sign.</b> Rounding x < 0 as {@code -round(|x|)} has the same distribution as rounding x
 * itself (floor(x) = -floor(|x|) - 1 is taken with probability frac(|x|)), and frac(|x|) = |x| -
 * floor(|x|) is exact in double, whereas x - floor(x) for a small negative x is not (-2^-60 - (-1)
 * rounds to 1): rounding the magnitude keeps the trial exact for every double.
 */
public final class StochasticRounding {
  /** Largest magnitude rounded: the result fits a long with room to add noise. */
  public static final double MAX_MAGNITUDE = 0x1p62;

  private StochasticRounding() {}

  /** floor(x) + Bernoulli(x - floor(x)) for finite |x| <= 2^62; integers come back unchanged. */
  public static long round(double x, RandomBits bits) {
    return round(x, bits::nextLong);
  }

  /** Rounds every x_j independently into {@code out} (same length). */
  public static void roundAll(double[] x, long[] out, RandomBits bits) {
    Checks.require(out.length == x.length,
        "output length must be " + x.length + ". Provided value: " + out.length);
    LongSupplier words = bits::nextLong;
    for (int j = 0; j < x.length; j++) {
      out[j] = round(x[j], words);
    }
  }

  /** Bernoulli(p) for 0 <= p <= 1, exactly; reads one 64-bit word (rarely more). */
  public static boolean bernoulli(double p, RandomBits bits) {
    return bernoulli(p, bits::nextLong);
  }

  static long round(double x, LongSupplier words) {
    double a = Math.abs(x);
    if (!(a <= MAX_MAGNITUDE)) { // messages built only on failure: a hot path
      throw new IllegalArgumentException("|x| must be <= 2^62 and finite. Provided value: " + x);
    }
    double k = Math.floor(a);
    long r = (long) k + (bernoulli(a - k, words) ? 1 : 0);
    return x < 0 ? -r : r;
  }

  /**
   * Exactly [U < p] for a uniform U whose 64-bit words come from {@code words}. Word i of p's
   * expansion (bits 64i + 1 to 64i + 64 after the binary point) is floor(M 2^(64(i + 1) - s)) mod
   * 2^64, a shift of the significand M (made odd, so that its last bit is p's last 1 bit); words
   * past that bit are zero, and matching them could not make U < p, so the loop stops there.
   */
  static boolean bernoulli(double p, LongSupplier words) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("p must be in [0, 1]. Provided value: " + p);
    }
    if (p == 0 || p == 1) {
      words.getAsLong(); // the same one word as any other trial
      return p == 1;
    }
    long raw = Double.doubleToRawLongBits(p);
    int exponent = Math.getExponent(p);
    long significand;
    int s;
    if (exponent >= Double.MIN_EXPONENT) {
      significand = (raw & 0xfffffffffffffL) | 0x10000000000000L;
      s = 52 - exponent; // p = M 2^-s with 53 <= s <= 1074
    } else {
      significand = raw & 0xfffffffffffffL; // subnormal
      s = 1074;
    }
    int zeros = Long.numberOfTrailingZeros(significand); // p = M 2^-s with M odd: the last 1 bit
    significand >>>= zeros;
    s -= zeros;
    for (int i = 0; 64 * i < s; i++) {
      int shift = 64 * (i + 1) - s;
      long w;
      if (shift >= 0) { // shift < 64 as 64 i < s
        w = significand << shift;
      } else if (shift > -64) {
        w = significand >>> -shift;
      } else {
        w = 0;
      }
      int cmp = Long.compareUnsigned(words.getAsLong(), w);
      if (cmp != 0) {
        return cmp < 0;
      }
    }
    return false;
  }
}
