package dev.helmet.privacy.noise;

import java.math.BigInteger;

/**
 * The exact slow path of {@link DiscreteNoise}: a uniform real U in [0, 1) of which only the first
 * bits are known, compared exactly with a real constant c by revealing more bits of U (64 at a
 * time, from the same generator) until U's known prefix lies entirely on one side of an interval
 * that is proved to contain c. This is the lazy comparison of a uniform with a real number that
 * exact samplers rest on (the "u-rand" deviates of Karney, ACM TOMS 2016): the answer is exactly
 * [U < c], with no rounding.
 *
 * <p>Constants are given as {@link Real}s: integer bounds {@code lo <= c 2^p <= hi} at any precision
 * p, computed with BigInteger arithmetic only (exact rationals, exp(-x) for rational x from
 * bracketing partial sums of its alternating Taylor series, and long products of rationals by
 * interval arithmetic, rounding lower bounds down and upper bounds up). Because hi - lo stays below a small
 * constant while p grows, a comparison needs another 64 bits with probability at most about
 * (hi - lo + 2) 2^-p, so it ends with probability 1 (U equals c with probability 0).
 *
 * <p>Only reached when a floating-point pre-check cannot decide (about 2^-22 per discrete Gaussian
 * proposal, whose acceptance uniform has 23 known bits; far less elsewhere), so nothing here is
 * tuned for speed: a call takes tens of microseconds.
 */
final class LazyUniform {
  /**
   * A real number c >= 0 known through bounds: {@code at(p)} returns {lo, hi} with lo <= c 2^p <= hi
   * and hi - lo at most a constant that does not grow with p.
   */
  @FunctionalInterface
  interface Real {
    BigInteger[] at(int p);
  }

  private static final BigInteger TWO64 = BigInteger.ONE.shiftLeft(64);

  private final RandomBits bits;
  /** floor(U 2^p): the bits of U revealed so far. */
  private BigInteger known;
  private int p;

  /**
   * U whose first {@code prefixBits} bits are {@code prefix} (0 <= prefix < 2^prefixBits); the rest
   * comes from {@code bits}, 64 at a time, only when needed.
   */
  LazyUniform(RandomBits bits, long prefix, int prefixBits) {
    this.bits = bits;
    this.known = BigInteger.valueOf(prefix);
    this.p = prefixBits;
  }

  /**
   * Exactly whether U < c. U's known interval [known, known + 1) 2^-p is compared with bounds of c
   * at 64 more bits than U has, so more of U is revealed only when c lies within about 2^-(p + 63)
   * of that interval's ends: a comparison that a floating-point pre-check could decide is decided
   * here without new bits too, and so consumes the same bits.
   */
  boolean below(Real c) {
    while (true) {
      BigInteger[] b = c.at(p + 64);
      BigInteger scaled = known.shiftLeft(64);
      if (scaled.add(TWO64).compareTo(b[0]) <= 0) {
        return true; // U < (known + 1) 2^-p <= lo 2^-(p+64) <= c
      }
      if (scaled.compareTo(b[1]) >= 0) {
        return false; // U >= known 2^-p >= hi 2^-(p+64) >= c
      }
      reveal();
    }
  }

  /** An estimate of ln U (for a starting guess only; never used to decide anything). */
  double lnEstimate() {
    while (known.signum() == 0) {
      reveal();
    }
    int excess = Math.max(0, known.bitLength() - 60);
    double top = known.shiftRight(excess).doubleValue() + 0.5;
    return Math.log(top) + (excess - p) * Math.log(2);
  }

  private void reveal() {
    long w = bits.nextLong();
    BigInteger next = BigInteger.valueOf(w);
    if (w < 0) {
      next = next.add(TWO64);
    }
    known = known.shiftLeft(64).or(next);
    p += 64;
  }

  /** The rational a / b (a >= 0, b > 0). */
  static Real ratio(BigInteger a, BigInteger b) {
    return p -> {
      BigInteger[] qr = a.shiftLeft(p).divideAndRemainder(b);
      return new BigInteger[] {qr[0], qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE)};
    };
  }

  /** exp(-num / den) for num >= 0, den > 0. */
  static Real expNeg(BigInteger num, BigInteger den) {
    return p -> expNegBounds(num, den, p);
  }

  /** (a / b) exp(-num / den) for a >= 0, b > 0, num >= 0, den > 0. */
  static Real ratioTimesExpNeg(BigInteger a, BigInteger b, BigInteger num, BigInteger den) {
    int extra = Math.max(0, a.bitLength() - b.bitLength() + 1); // a / b < 2^extra
    return p -> {
      int q = p + extra + 3;
      BigInteger[] e = expNegBounds(num, den, q);
      BigInteger scale = b.shiftLeft(q - p);
      BigInteger lo = e[0].multiply(a).divide(scale);
      BigInteger[] hiQr = e[1].multiply(a).divideAndRemainder(scale);
      BigInteger hi = hiQr[1].signum() == 0 ? hiQr[0] : hiQr[0].add(BigInteger.ONE);
      return new BigInteger[] {lo, hi};
    };
  }

  /**
   * Bounds lo <= exp(-x) 2^p <= hi for x = num / den >= 0, with hi - lo <= 2. With y = x / 2^s <=
   * 1/2, exp(-y) = sum_j (-y)^j / j! is an alternating series of decreasing terms, so it differs
   * from any partial sum by at most the next term; each term is bounded below and above with floor
   * and ceiling at q = p + s + 32 bits. Squaring the bounds s times (rounding the lower bound down
   * and the upper bound up) bounds exp(-x) = exp(-y)^(2^s); each squaring at most doubles the
   * width, which the s + 32 guard bits absorb.
   */
  static BigInteger[] expNegBounds(BigInteger num, BigInteger den, int p) {
    if (num.signum() == 0) {
      BigInteger one = BigInteger.ONE.shiftLeft(p);
      return new BigInteger[] {one, one};
    }
    int s = Math.max(0, num.bitLength() - den.bitLength() + 2); // x < 2^(s - 1), so y < 1/2
    int q = p + s + 32;
    BigInteger one = BigInteger.ONE.shiftLeft(q);
    BigInteger scaledDen = den.shiftLeft(s);
    BigInteger termLo = one;
    BigInteger termHi = one;
    BigInteger sumLo = one;
    BigInteger sumHi = one;
    for (int j = 1; ; j++) {
      BigInteger dj = scaledDen.multiply(BigInteger.valueOf(j));
      termLo = termLo.multiply(num).divide(dj);
      termHi = ceilDiv(termHi.multiply(num), dj);
      if ((j & 1) == 1) {
        sumLo = sumLo.subtract(termHi);
        sumHi = sumHi.subtract(termLo);
      } else {
        sumLo = sumLo.add(termLo);
        sumHi = sumHi.add(termHi);
      }
      if (termHi.compareTo(BigInteger.ONE) <= 0) {
        // the remainder after term j is at most term j + 1 <= term j <= termHi <= 1
        sumLo = sumLo.subtract(BigInteger.ONE);
        sumHi = sumHi.add(BigInteger.ONE);
        break;
      }
    }
    BigInteger lo = sumLo.max(BigInteger.ZERO);
    BigInteger hi = sumHi.min(one);
    for (int i = 0; i < s; i++) {
      lo = lo.multiply(lo).shiftRight(q);
      hi = ceilShift(hi.multiply(hi), q);
    }
    return new BigInteger[] {lo.shiftRight(q - p), ceilShift(hi, q - p)};
  }

  static BigInteger ceilDiv(BigInteger a, BigInteger b) {
    BigInteger[] qr = a.divideAndRemainder(b);
    return qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
  }

  /** ceil(a / 2^k) for a >= 0. */
  static BigInteger ceilShift(BigInteger a, int k) {
    return a.negate().shiftRight(k).negate(); // shiftRight rounds toward negative infinity
  }

  /**
   * prod_{j=from}^{to} (a1 j + a0) / (b1 j + b0) (1 for from > to), each factor positive and at
   * most 1, by interval arithmetic: lower and upper bounds at q = p + log2(n) + 2 bits, n the
   * number of factors, multiplied in one factor at a time and rounded down and up. Each step adds
   * at most one unit to each bound's error and scales the rest by the factor (<= 1), so the final
   * width is below 2n units at q, under 3 at p. Numbers stay at about q bits however long the
   * product: n steps, no operand growth.
   */
  static Real factorProduct(long from, long to, long a1, long a0, long b1, long b0) {
    return p -> {
      long n = Math.max(0, to - from + 1);
      int q = p + (64 - Long.numberOfLeadingZeros(n)) + 2;
      BigInteger[] b = factorProductBounds(from, to, a1, a0, b1, b0, q);
      return new BigInteger[] {b[0].shiftRight(q - p), ceilShift(b[1], q - p)};
    };
  }

  /** Bounds lo <= 2^q prod_{j=from}^{to} (a1 j + a0) / (b1 j + b0) <= hi, as in factorProduct. */
  static BigInteger[] factorProductBounds(long from, long to, long a1, long a0, long b1, long b0, int q) {
    BigInteger lo = BigInteger.ONE.shiftLeft(q);
    BigInteger hi = lo;
    BigInteger ba1 = BigInteger.valueOf(a1);
    BigInteger ba0 = BigInteger.valueOf(a0);
    BigInteger bb1 = BigInteger.valueOf(b1);
    BigInteger bb0 = BigInteger.valueOf(b0);
    for (long j = from; j <= to; j++) {
      BigInteger bj = BigInteger.valueOf(j);
      BigInteger f = ba1.multiply(bj).add(ba0);
      BigInteger g = bb1.multiply(bj).add(bb0);
      lo = lo.multiply(f).divide(g);
      hi = ceilDiv(hi.multiply(f), g);
    }
    return new BigInteger[] {lo, hi};
  }

  /**
   * (a / b)^k for 0 < a <= b and k >= 0, by square-and-multiply on lower and upper bounds at q = p
   * + 2 log2(k) + 4 bits (rounded down and up). Every operand is at most 1, so each product's error
   * is at most the sum of its operands' errors plus one unit; with about 2 log2(k) products and
   * the base's error multiplied by at most k, the width stays below about 2k + 4 log2(k) units at
   * q, a few at p.
   */
  static Real ratioPower(BigInteger a, BigInteger b, long k) {
    return p -> {
      int logK = 64 - Long.numberOfLeadingZeros(k);
      int q = p + 2 * logK + 4;
      BigInteger baseLo = a.shiftLeft(q).divide(b);
      BigInteger baseHi = ceilDiv(a.shiftLeft(q), b);
      BigInteger lo = BigInteger.ONE.shiftLeft(q);
      BigInteger hi = lo;
      for (long e = k; e > 0; e >>>= 1) {
        if ((e & 1) == 1) {
          lo = lo.multiply(baseLo).shiftRight(q);
          hi = ceilShift(hi.multiply(baseHi), q);
        }
        if (e > 1) {
          baseLo = baseLo.multiply(baseLo).shiftRight(q);
          baseHi = ceilShift(baseHi.multiply(baseHi), q);
        }
      }
      return new BigInteger[] {lo.shiftRight(q - p), ceilShift(hi, q - p)};
    };
  }
}
