package dev.helmet.privacy.noise;

/**
 * The floating-point pre-checks of the exact samplers' decisions "U < c" (see {@link DiscreteNoise}
 * for why they keep every draw exact): each answers YES or NO only where the exact comparison gives
 * the same answer, and UNSURE otherwise, for the caller to compare the same U exactly with {@link
 * LazyUniform}.
 */
final class ExactDecisions {
  static final int NO = 0;
  static final int YES = 1;
  static final int UNSURE = -1;
  static final double TWO53 = 0x1p53;

  private ExactDecisions() {}

  /**
   * Decides U < c for a uniform U known to lie in [v, v + 1) 2^-k (its first k bits are v), from x,
   * an approximation of c 2^k with x (1 - rel) <= c 2^k <= max(x (1 + rel), 1/2), for 2^-50 <= rel
   * <= 2^-20. The products below round by at most 2^-53 relative, which the factor 2 on rel
   * absorbs: YES means v + 1 <= x (1 - rel) <= c 2^k, so U < c; NO means v >= x (1 + rel) and v >=
   * 1, so U >= v 2^-k >= c. UNSURE (U's interval meets the band) is left to the exact comparison.
   */
  static int below(long v, double x, double rel) {
    if (v + 1 <= x * (1 - 2 * rel)) {
      return YES;
    }
    if (v != 0 && v >= x * (1 + 2 * rel)) {
      return NO;
    }
    return UNSURE;
  }

  /**
   * Decides U < exp(-e) for a uniform U known to lie in [a, a + 1) / scale (scale = 2^k, its first k
   * <= 53 bits are a), from ed, a double within eErr <= 2^-21 of the true e >= 0.
   *
   * <p>For ed <= 1, a squeeze saves the exponential: 1 - e + e^2/2 - e^3/6 <= exp(-e) <= 1 - e +
   * e^2/2 for every e >= 0 (Taylor's theorem; the remainders e^4/24 exp(-z) and -e^3/6 exp(-z) have
   * fixed signs). On [-2^-21, 1 + 2^-21] both polynomials have slopes below 1 + 2^-20 in absolute
   * value, and Horner's rule evaluates them with rounding error below 10 2^-53, so shifted by 1.01
   * eErr + 2^-46 they bound exp(-e) for the true e. Otherwise, if ed - eErr > 38, exp(-e) < e^-38 <
   * 2^-54, below any nonzero prefix; else Math.exp(-ed) (within one ulp) is within a factor exp(+-
   * eErr) (1 +- 2^-52) of exp(-e), the contract of {@link #below} with rel = 1.01 eErr + 2^-50.
   */
  static int belowExpNeg(long a, double scale, double ed, double eErr) {
    if (ed <= 1) {
      double slack = 1.01 * eErr + 0x1p-46;
      double lower = 1 - ed * (1 - ed * (0.5 - ed * (1.0 / 6)));
      if (a + 1 <= (lower - slack) * scale) {
        return YES;
      }
      double upper = 1 - ed * (1 - 0.5 * ed);
      if (a >= (upper + slack) * scale) {
        return NO;
      }
    }
    if (ed - eErr > 38) {
      return below(a, 0, 0x1p-50);
    }
    return below(a, Math.exp(-ed) * scale, 1.01 * eErr + 0x1p-50);
  }

  /** The first 53 bits of a fresh uniform U (the top bits of one word). */
  static long uniform53(RandomBits bits) {
    return bits.nextLong() >>> 11;
  }
}
