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
   * Decides U < c for a uniform U known to lie in [v, v + 1) 2^-k (its first k <= 53 bits are v),
   * from x, an approximation of c 2^k with x (1 - rel) <= c 2^k <= max(x (1 + rel), 1/2), for
   * 2^-50 <= rel <= 2^-20 (rel NaN: always UNSURE). v + 1 <= 2^53 converts to double exactly; 1 -+
   * 2 rel rounds by at most 2^-53 and the product by at most 2^-53 relative, which the factor 2 on
   * rel absorbs (rel >= 2^-50 > 3 2^-53): YES means v + 1 <= x (1 - rel) <= c 2^k, so U < c; NO
   * means v >= x (1 + rel) and v >= 1, so U >= v 2^-k >= c (if x (1 + rel) < 1/2, a subnormal x
   * included, then c 2^k <= 1/2 < v whatever the rounding). UNSURE (U's interval meets the band)
   * is left to the exact comparison. A YES or NO leaves U's interval at least min(1/2, x rel / 2)
   * 2^-k >= 2^-(k + 52) from c.
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
   * <= 53 bits are a), from ed, a double within eErr <= 2^-21 of the true e >= 0 (so ed >= -2^-21).
   *
   * <p>For ed <= 1, a squeeze saves the exponential: 1 - e + e^2/2 - e^3/6 <= exp(-e) <= 1 - e +
   * e^2/2 for every e >= 0 (Taylor's theorem; the remainders e^4/24 exp(-z) and -e^3/6 exp(-z) have
   * fixed signs). On [-2^-21, 1 + 2^-21], which holds ed and e, both polynomials have slopes below 1
   * + 2^-20 in absolute value, so at ed they are within 1.000001 eErr of their values at e; Horner's
   * rule evaluates them with rounding error below 10 2^-53 (six operations on values below 2, and
   * 1.0 / 6 rounded), and adding or subtracting the slack rounds by 2^-54 more (scaling by 2^k is
   * exact). So shifted by slack = 1.01 eErr + 2^-46 they bound exp(-e) for the true e. Otherwise,
   * if ed - eErr > 38 (which rounding cannot make true when it is false: 38 is a double), exp(-e) <
   * e^-38 < 2^-54, below any nonzero prefix; else Math.exp(-ed) >= e^-39, a normal double within
   * one ulp (2^-52 relative) of exp(-ed), is within a factor exp(+- eErr) (1 +- 2^-52) of exp(-e),
   * the contract of {@link #below} with rel = 1.01 eErr + 2^-50.
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
