package dev.helmet.privacy.noise;

import static dev.helmet.privacy.noise.ExactDecisions.NO;
import static dev.helmet.privacy.noise.ExactDecisions.TWO53;
import static dev.helmet.privacy.noise.ExactDecisions.YES;
import static dev.helmet.privacy.noise.ExactDecisions.below;

import java.math.BigInteger;

/**
 * Poisson(lambda), lambda < 256, by inversion: the least k with U < F(k), F the distribution
 * function, found from a table of F(k) 2^53 in double with a 256-entry guide table (guide[i] is
 * the first entry above i 2^45, so the search from it finds the first entry above the prefix; the
 * entries never decrease). Pre-check: lambda in double has relative error 3 2^-53; exp(-lambda)
 * then has at most (3 lambda + 2) 2^-53 (one ulp; exp(-lambda) > 10^-112 is a normal double); each
 * term lambda^k / k!, computed as term * lambda / k, adds 5 2^-53 (lambda's error, compounding
 * as lambda^k, and two roundings); each addition of positive terms adds 2^-53 of the partial sum
 * (a term that underflows far in the tail adds at most 2^-1074, nothing against F(k) near 1). So
 * F(k) is within (6k + 3 lambda + 2) 2^-53 < 2^-39 relative for k < 2000, and below() gets REL =
 * 2^-36 (measured errors stay below 2^-46). The table ends where F(k) exceeds 1 - 2^-46 or at 2000
 * entries; U beyond it, or U within the band of an entry, goes to the exact search (from the
 * table's answer), where F(k) = exp(-lambda) A_k / B_k with A_k / B_k = sum_{i <= k} lambda^i /
 * i! as an exact rational.
 */
final class PoissonInversion extends PoissonSampler {
  private static final double REL = 0x1p-36;
  private final long num;
  private final long den;
  /** F(k) 2^53 in double, k = 0 .. n - 1. */
  final double[] x;
  private final int[] guide = new int[256];

  PoissonInversion(RandomBits bits, boolean exactOnly, long num, long den) {
    super(bits, exactOnly);
    this.num = num;
    this.den = den;
    double lambda = (double) num / (double) den;
    double term = Math.exp(-lambda);
    double f = term;
    double[] xs = new double[256];
    int n = 0;
    xs[n++] = f * TWO53;
    for (int k = 1; k < 2000 && 1 - f > 0x1p-46; k++) {
      term = term * lambda / k;
      f += term;
      if (n == xs.length) {
        xs = java.util.Arrays.copyOf(xs, 2 * n);
      }
      xs[n++] = f * TWO53;
    }
    this.x = java.util.Arrays.copyOf(xs, n);
    int k = 0;
    for (int i = 0; i < guide.length; i++) {
      double edge = i * 0x1p45; // bucket i holds v in [i 2^45, (i + 1) 2^45)
      while (k < n && x[k] <= edge) {
        k++;
      }
      guide[i] = k;
    }
  }

  @Override
  long sample() {
    return invert(uniform53());
  }

  /** The least k with U < F(k), for the uniform U whose first 53 bits are v. */
  long invert(long v) {
    int n = x.length;
    int k = guide[(int) (v >>> 45)];
    while (k < n && x[k] <= v) {
      k++;
    }
    if (!exactOnly && k < n && below(v, x[k], REL) == YES && (k == 0 || below(v, x[k - 1], REL) == NO)) {
      return k; // F(k - 1) <= U < F(k)
    }
    LazyUniform u = new LazyUniform(bits, v, 53);
    long j = k;
    while (!u.below(cdf(j))) {
      j++;
    }
    while (j > 0 && u.below(cdf(j - 1))) {
      j--;
    }
    return j;
  }

  LazyUniform.Real cdf(long k) {
    BigInteger bn = BigInteger.valueOf(num);
    BigInteger bd = BigInteger.valueOf(den);
    BigInteger a = BigInteger.ONE; // A_0 / B_0 = 1; A_j = A_{j-1} den j + num^j, B_j = B_{j-1} den j
    BigInteger b = BigInteger.ONE;
    BigInteger numPow = BigInteger.ONE;
    for (long j = 1; j <= k; j++) {
      BigInteger dj = bd.multiply(BigInteger.valueOf(j));
      numPow = numPow.multiply(bn);
      a = a.multiply(dj).add(numPow);
      b = b.multiply(dj);
    }
    return LazyUniform.ratioTimesExpNeg(a, b, bn, bd);
  }
}
