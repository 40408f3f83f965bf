package dev.helmet.privacy.noise;

import static dev.helmet.privacy.noise.ExactDecisions.UNSURE;
import static dev.helmet.privacy.noise.ExactDecisions.YES;
import static dev.helmet.privacy.noise.ExactDecisions.below;
import static dev.helmet.privacy.noise.ExactDecisions.belowExpNeg;

import dev.helmet.core.util.Checks;
import java.math.BigInteger;

/**
 * The discrete Gaussian N_Z(0, sigma^2) for one rational sigma^2 = num / den, and the discrete
 * Laplace distribution it proposes from (Canonne, Kamath, Steinke, NeurIPS 2020, Algorithm 3: a
 * discrete Laplace proposal with scale t = floor(sigma) + 1, accepted with probability exp(-(|Y| -
 * sigma^2/t)^2 / (2 sigma^2))). Every decision is exact as {@link DiscreteNoise} explains.
 */
final class DiscreteGaussian {
  final long num;
  final long den;
  private final RandomBits bits;
  private final boolean exactOnly;
  final long t;
  private final long dt;
  final long maxFast;
  private final double invScale;
  private final BigInteger bigDen;

  DiscreteGaussian(RandomBits bits, boolean exactOnly, long num, long den) {
    Checks.require(num >= 1 && den >= 1, "sigma^2 = num/den must have num >= 1 and den >= 1. Provided value: "
        + num + "/" + den);
    this.bits = bits;
    this.exactOnly = exactOnly;
    long t = BigInteger.valueOf(num / den).sqrt().longValueExact() + 1; // floor(sqrt(num/den)) + 1
    long dt;
    try {
      dt = Math.multiplyExact(den, t);
    } catch (ArithmeticException overflow) {
      dt = -1;
    }
    this.t = t;
    this.dt = dt;
    this.maxFast = dt > 0 ? Long.MAX_VALUE / dt : -1; // g * dt - num fits a long for g <= maxFast
    this.invScale = 1 / (2.0 * (double) num * (double) den * (double) t * (double) t);
    this.bigDen = BigInteger.valueOf(num).multiply(BigInteger.valueOf(den)).shiftLeft(1)
        .multiply(BigInteger.valueOf(t)).multiply(BigInteger.valueOf(t));
    this.num = num;
    this.den = den;
  }

  /**
   * G = floor(-t ln U) for a uniform U whose first 40 bits are v: P[G >= k] = P[U <= exp(-k/t)] =
   * exp(-k/t), the geometric distribution of the discrete Laplace with scale t. Pre-check, for v
   * >= 2^17 (U >= 2^-23) and integer t < 2^32 (exact in double): ln U lies in [ln(v 2^-40), ln(v
   * 2^-40) + 1/v); Math.log is within one ulp (below 2^-48, as |ln| < 16) and the product with t
   * rounds by less than 2^-48 t, so -t ln U lies within t (1/v + 2^-47) of gh. The band t (1/v +
   * 2^-44), with 1/v rounded up to a power of two, covers that and the rounding of gh +- band (half
   * an ulp of gh <= 16 t, below 2^-48 t). When it holds no integer, floor is certain, with U about
   * 2^-44 (relative) or more from both crossings; otherwise the exact search compares U with
   * exp(-k/t) for the candidates.
   */
  static long geometricExp(RandomBits bits, boolean exactOnly, long v, long t) {
    double gh = v == 0 ? 28.0 * t : -(double) t * Math.log(v * 0x1p-40);
    if (!exactOnly && v >= (1L << 17)) {
      // 1/v <= 2^-(63 - nlz(v)) (v has 64 - nlz(v) bits), a power of two built without a division
      double band = t * (Double.longBitsToDouble((1023L - 63 + Long.numberOfLeadingZeros(v)) << 52) + 0x1p-44);
      double k = Math.floor(gh);
      if (gh - band > k && gh + band < k + 1) {
        return (long) k;
      }
    }
    return geometricExpExact(bits, v, t, gh);
  }

  /** The exact path of {@link #geometricExp}, kept apart so that the hot path stays small. */
  private static long geometricExpExact(RandomBits bits, long v, long t, double gh) {
    LazyUniform u = new LazyUniform(bits, v, 40);
    long k = v >= (1L << 17) ? (long) Math.floor(gh) : (long) Math.floor(-t * u.lnEstimate());
    BigInteger bt = BigInteger.valueOf(t);
    // k must satisfy exp(-(k+1)/t) <= U < exp(-k/t) (U equals either with probability 0)
    while (k > 0 && !u.below(LazyUniform.expNeg(BigInteger.valueOf(k), bt))) {
      k--;
    }
    while (u.below(LazyUniform.expNeg(BigInteger.valueOf(k + 1), bt))) {
      k++;
    }
    return k;
  }

  /**
   * The discrete Laplace distribution with scale t, P[x] proportional to exp(-|x|/t): G from
   * {@link #geometricExp} on the top 40 bits of a word and the sign from its lowest bit; (negative,
   * 0) is rejected so that 0 is not counted twice.
   */
  static long discreteLaplace(RandomBits bits, boolean exactOnly, long t) {
    while (true) {
      long w = bits.nextLong();
      long g = geometricExp(bits, exactOnly, w >>> 24, t);
      boolean negative = (w & 1) != 0;
      if (!(negative && g == 0)) {
        return negative ? -g : g;
      }
    }
  }

  /**
   * One 64-bit word a proposal: its top 40 bits are the uniform of the discrete Laplace's geometric
   * part, the next 23 the first bits of the acceptance test's uniform (the exact path reads more
   * from the generator when 23 do not decide, probability about 2^-22), the lowest bit the sign.
   */
  long sample() {
    final long t = this.t;
    while (true) {
      long w = bits.nextLong();
      long g = geometricExp(bits, exactOnly, w >>> 24, t);
      boolean negative = (w & 1) != 0;
      if (negative && g == 0) {
        continue;
      }
      if (accept(g, (w >>> 1) & ((1L << 23) - 1))) {
        return negative ? -g : g;
      }
    }
  }

  /**
   * Bernoulli(exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2))) = Bernoulli(exp(-D^2 / (2 n d t^2))) with
   * sigma^2 = n/d and the integer D = |Y| d t - n, for the uniform whose first 23 bits are a.
   * Pre-check: D is exact in a long for |Y| <= maxFast; e = D^2 (1 / (2 n d t^2)) in double has
   * relative error at most 10 2^-53 to first order (D's conversion, counted twice in D^2, those of
   * n and d, three roundings of the products 2 n d t t and one of its reciprocal, two of the
   * products D D and (D D) (1 / ...); t is exact; 2 n d t^2 < 2^192 and e are far from overflow
   * and underflow), so eErr = e 2^-48 is safe; beyond e = 2^20 the value is below 2^-54. When d t
   * overflows a long (d near 2^63 / t, e.g. sigma^2 = n/d with d near 2^63), or a proposal has |Y|
   * > maxFast (sigma^2 near 2^62, far tails), the exact path decides: slower (tens of
   * microseconds), still exact.
   */
  boolean accept(long g, long a) {
    if (!exactOnly && g <= maxFast) {
      double e = exponent(g);
      int r = e > 0x1p20 ? below(a, 0, 0x1p-50) : belowExpNeg(a, 0x1p23, e, e * 0x1p-48);
      if (r != UNSURE) {
        return r == YES;
      }
    }
    return acceptExact(g, a);
  }

  /** e = D^2 / (2 n d t^2) in double, for g <= maxFast (error analysis at {@link #accept}). */
  double exponent(long g) {
    double d = (double) (g * dt - num);
    return d * d * invScale;
  }

  private boolean acceptExact(long g, long a) {
    BigInteger d = BigInteger.valueOf(g).multiply(BigInteger.valueOf(den)).multiply(BigInteger.valueOf(t))
        .subtract(BigInteger.valueOf(num));
    return new LazyUniform(bits, a, 23).below(LazyUniform.expNeg(d.multiply(d), bigDen));
  }
}
