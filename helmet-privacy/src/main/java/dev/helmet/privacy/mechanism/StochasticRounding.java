package dev.helmet.privacy.mechanism;

import dev.helmet.privacy.noise.RandomBits;

/**
 * Unbiased stochastic rounding to the integers, {@code floor(x) + Bernoulli(x - floor(x))}, with an
 * exact Bernoulli trial: the Skellam mixture mechanism's privacy analysis (Bao et al., PVLDB
 * 15(11), 2022, Theorem 5 and Algorithm 4 lines 5-10) treats the rounding as part of the
 * mechanism's randomness, a mixture of two shifted Skellams with weights 1 - p and p, so the trial
 * must have exactly the probability p of the value that was clipped.
 *
 * <p><b>Exact trial.</b> A double p in (0, 1) is a dyadic rational M 2^-s (M < 2^53, s <= 1074),
 * so its binary expansion is finite. A uniform real U in [0, 1) is read in pieces, its first 8
 * bits, its next 56, then 64 at a time ({@link Uniform}), and each piece is compared, unsigned,
 * with the same bits of p's expansion; the first piece that differs decides U < p, and if every
 * bit of p is matched, U >= p. So the answer is exactly [U < p], with probability exactly p, and
 * nothing is compared in floating point (a test like {@code nextDouble() < p} is biased for p that
 * is not a multiple of 2^-53). A trial reads 8 bits, and 56 more with probability exactly 2^-8
 * for every p (0 and 1 included, so that the bits read say nothing of p), then 64 more with
 * probability 2^-56 and 2^-64 per further word matched (only for p whose expansion is longer than
 * 64 bits): about 8.2 bits where a trial used to read 64, which made the random bits, not the
 * comparison, the cost of rounding.
 *
 * <p><b>Sign.</b> Rounding x < 0 as {@code -round(|x|)} has the same distribution as rounding x
 * itself (floor(x) = -floor(|x|) - 1 is taken with probability frac(|x|)), and frac(|x|) = |x| -
 * floor(|x|) is exact in double, whereas x - floor(x) for a small negative x is not (-2^-60 - (-1)
 * rounds to 1): rounding the magnitude keeps the trial exact for every double.
 */
public final class StochasticRounding {
  /** Largest magnitude rounded: the result fits a long with room to add noise. */
  public static final double MAX_MAGNITUDE = 0x1p62;

  private static final long LOW56 = 0x00ffffffffffffffL;

  private StochasticRounding() {}

  /** A uniform U in [0, 1), read in order: bits 1-8, bits 9-64, then 64 bits at a time. */
  interface Uniform {
    /** The next 8 bits (0 to 255). */
    int next8();

    /** The next 56 bits, in the low bits of the result. */
    long next56();

    /** The next 64 bits. */
    long next64();
  }

  /** U's bits from a {@link RandomBits}: independent uniform pieces are all a trial needs. */
  private static final class Source implements Uniform {
    private final RandomBits bits;

    Source(RandomBits bits) {
      this.bits = bits;
    }

    @Override
    public int next8() {
      return bits.nextByte();
    }

    @Override
    public long next56() {
      return bits.nextLong() >>> 8;
    }

    @Override
    public long next64() {
      return bits.nextLong();
    }
  }

  /** U read from {@code bits}, as the public methods read it. */
  static Uniform uniform(RandomBits bits) {
    return new Source(bits);
  }

  /** floor(x) + Bernoulli(x - floor(x)) for finite |x| <= 2^62; integers come back unchanged. */
  public static long round(double x, RandomBits bits) {
    return round(x, new Source(bits));
  }

  /** Rounds every x_j independently into {@code out} (same length). */
  public static void roundAll(double[] x, long[] out, RandomBits bits) {
    if (out.length != x.length) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("output length must be " + x.length + ". Provided value: " + out.length);
    }
    Source source = new Source(bits);
    for (int j = 0; j < x.length; j++) {
      out[j] = roundFast(x[j], bits, source);
    }
  }

  /** Adds the rounding of every x_j, drawn independently, to {@code acc[j]} (same length). */
  public static void addRounded(double[] x, long[] acc, RandomBits bits) {
    if (acc.length != x.length) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("accumulator length must be " + x.length + ". Provided value: " + acc.length);
    }
    Source source = new Source(bits);
    for (int j = 0; j < x.length; j++) {
      acc[j] += roundFast(x[j], bits, source);
    }
  }

  /** Bernoulli(p) for 0 <= p <= 1, exactly; reads 8 bits (rarely more). */
  public static boolean bernoulli(double p, RandomBits bits) {
    return bernoulli(p, new Source(bits));
  }

  /**
   * {@link #round(double, Uniform)} with the trial's first byte compared inline, without a branch
   * on its outcome (a rounding goes either way about half the time): the same bits are read and the
   * same value returned.
   */
  private static long roundFast(double x, RandomBits bits, Source source) {
    double a = Math.abs(x);
    if (!(a <= MAX_MAGNITUDE)) {
      throw new IllegalArgumentException("|x| must be <= 2^62 and finite. Provided value: " + x);
    }
    long k;
    int top;
    if (a < 0x1p52) {
      // a 2^8 is exact and below 2^60: its integer part is 2^8 floor(a) + (bits 1-8 of a's fraction)
      long m = (long) (a * 256);
      k = m >> 8;
      top = (int) m & 0xff;
    } else { // an integer: no fraction
      k = (long) a;
      top = 0;
    }
    int b = bits.nextByte();
    long up = b != top ? (b - top) >>> 31 : (afterFirstByte(a - k, source) ? 1 : 0); // a - k: exact
    long r = k + up;
    long sign = Double.doubleToRawLongBits(x) >> 63; // -1 for x < 0 (and -0.0, whose r is 0)
    return (r ^ sign) - sign;
  }

  static long round(double x, Uniform u) {
    double a = Math.abs(x);
    if (!(a <= MAX_MAGNITUDE)) { // messages built only on failure: a hot path
      throw new IllegalArgumentException("|x| must be <= 2^62 and finite. Provided value: " + x);
    }
    double k = Math.floor(a);
    long r = (long) k + (bernoulli(a - k, u) ? 1 : 0);
    return x < 0 ? -r : r;
  }

  /** Exactly [U < p] for the uniform U read from {@code u}. */
  static boolean bernoulli(double p, Uniform u) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("p must be in [0, 1]. Provided value: " + p);
    }
    int top = (int) (p * 256); // bits 1-8 of p's expansion; 256 for p = 1, above every byte
    int b = u.next8();
    if (b != top && !(top == 256 && b == 255)) {
      return b < top;
    }
    // A tie: reads on. For p = 1 a first byte of 255 counts as one, so that every trial reads on
    // with probability exactly 2^-8, whatever p is.
    return afterFirstByte(p, u);
  }

  /**
   * [U < p] given that U's first 8 bits equal p's (or p = 1 and they are all ones). Word i of p's
   * expansion (bits 64i + 1 to 64i + 64 after the binary point) is floor(M 2^(64(i + 1) - s)) mod
   * 2^64, a shift of the significand M (made odd, so that its last bit is p's last 1 bit); bits
   * past that bit are zero, and matching them could not make U < p, so the comparison stops there.
   */
  private static boolean afterFirstByte(double p, Uniform u) {
    long rest = u.next56(); // read whatever p is: how many bits a trial reads does not depend on p
    if (p == 0 || p == 1) {
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
    long w0 = word(significand, s, 0) & LOW56;
    if (rest != w0) {
      return rest < w0; // both below 2^56
    }
    for (int i = 1; 64 * i < s; i++) {
      int cmp = Long.compareUnsigned(u.next64(), word(significand, s, i));
      if (cmp != 0) {
        return cmp < 0;
      }
    }
    return false;
  }

  /** Word i of M 2^-s's expansion, for 64 i < s. */
  private static long word(long significand, int s, int i) {
    int shift = 64 * (i + 1) - s; // below 64 as 64 i < s
    if (shift >= 0) {
      return significand << shift;
    } else if (shift > -64) {
      return significand >>> -shift;
    }
    return 0;
  }
}
