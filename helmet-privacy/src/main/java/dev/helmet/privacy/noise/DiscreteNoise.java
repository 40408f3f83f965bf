package dev.helmet.privacy.noise;

import dev.helmet.core.util.Checks;
import java.math.BigInteger;

/**
 * Exact samplers on the integers, using only uniform integers from {@link RandomBits} and exact
 * rational arithmetic: no floating point touches a sample, so nothing about the unnoised value
 * leaks through rounding (Mironov 2012).
 *
 * <ul>
 *   <li>the discrete Gaussian {@code N_Z(0, sigma^2)}, P[x] proportional to exp(-x^2 / (2
 *       sigma^2)), with sigma^2 a positive integer (Canonne, Kamath, Steinke, NeurIPS 2020,
 *       Algorithms 1 to 3: Bernoulli(exp(-gamma)), discrete Laplace, then rejection);
 *   <li>Poisson(lambda) for rational lambda = num/den (Duchon and Duvignau 2016, Algorithm 1, for
 *       Poisson(1) from a growing uniform permutation; Poisson(lambda) as a sum of floor(lambda)
 *       Poisson(1) draws plus a Binomial(Poisson(1), frac) thinning, Devroye 1986 p. 487). Its cost
 *       grows linearly with lambda;
 *   <li>the symmetric Skellam Sk(lambda, lambda) = Poisson(lambda) - Poisson(lambda).
 * </ul>
 *
 * <p><b>Timing.</b> These are rejection samplers: how long one draw takes depends on the value
 * drawn (a larger |x| takes more discrete-Laplace trials and a longer Bernoulli(exp) loop), so the
 * time of a single draw leaks a little about it. Callers draw a party's whole noise vector at once,
 * in the background while the round's key exchange goes out, and announce the masked input only
 * when both are done, so an observer sees at most the total time of thousands of draws, and only
 * where it exceeds the key exchange's network round trips; nothing is sent between draws.
 *
 * <p>Not thread-safe (one per thread or party).
 */
public final class DiscreteNoise {
  private final RandomBits bits;

  public DiscreteNoise(RandomBits bits) {
    this.bits = Checks.notNull("random bits", bits);
  }

  /** A sampler on a fresh secure source. */
  public static DiscreteNoise secure() {
    return new DiscreteNoise(RandomBits.secure());
  }

  /** Whether the underlying bits are cryptographically secure. */
  public boolean isSecure() {
    return bits.isSecure();
  }

  /**
   * Bernoulli(num / den), 0 <= num <= den, exactly: a uniform U in [0, 1) is compared with p = num
   * / den bit by bit, the bits of p from exact long division, until the first bit where they differ
   * (U < p iff U has a 0 where p has a 1 there). About two random bits per trial on average, where
   * a uniform integer below den took 64. Equality of all bits has probability 0; once the remaining
   * bits of p are all 0 (the remainder is 0), U >= p unless U's remaining bits are all 0, so the
   * answer is false.
   */
  boolean bernoulli(long num, long den) {
    if (num <= 0) {
      return false;
    }
    if (num >= den) {
      return true;
    }
    if (den > (1L << 62)) {
      return bits.nextLong(den) < num; // 2 r would overflow; a uniform integer below den
    }
    long r = num;
    while (true) {
      r <<= 1;
      int p = 0;
      if (r >= den) {
        p = 1;
        r -= den;
      }
      int u = bits.nextBit();
      if (u != p) {
        return u < p;
      }
      if (r == 0) {
        return false;
      }
    }
  }

  /** Bernoulli(num / den) for big values: a uniform integer below den, by rejection. */
  private boolean bernoulli(BigInteger num, BigInteger den) {
    int bitLen = den.bitLength();
    while (true) {
      BigInteger u = BigInteger.ZERO;
      int have = 0;
      while (have < bitLen) {
        u = u.shiftLeft(64).or(new BigInteger(Long.toUnsignedString(bits.nextLong())));
        have += 64;
      }
      u = u.shiftRight(have - bitLen);
      if (u.compareTo(den) < 0) {
        return u.compareTo(num) < 0;
      }
    }
  }

  /**
   * Bernoulli(exp(-num/den)) for num >= 0, den > 0 (CKS Algorithm 1): for gamma in [0, 1], flip
   * Bernoulli(gamma/k) for k = 1, 2, ... until one fails and return whether the failing k is odd;
   * for gamma > 1, floor(gamma) Bernoulli(exp(-1)) must all succeed, then one for the fraction.
   */
  boolean bernoulliExp(long num, long den) {
    if (num < 0 || den <= 0) {
      throw new IllegalArgumentException("exp(-" + num + "/" + den + ") needs num >= 0, den > 0");
    }
    long whole = num / den;
    for (long i = 0; i < whole; i++) {
      if (!bernoulliExpUnit(1, 1)) {
        return false;
      }
    }
    return bernoulliExpUnit(num - whole * den, den);
  }

  /** Bernoulli(exp(-num/den)) for 0 <= num/den <= 1. */
  private boolean bernoulliExpUnit(long num, long den) {
    long k = 1;
    while (true) {
      long kd;
      try {
        kd = Math.multiplyExact(k, den);
      } catch (ArithmeticException e) {
        return bernoulliExpUnit(BigInteger.valueOf(num), BigInteger.valueOf(den), k);
      }
      if (!bernoulli(num, kd)) {
        break;
      }
      k++;
    }
    return (k & 1) == 1;
  }

  private boolean bernoulliExpUnit(BigInteger num, BigInteger den, long k) {
    while (bernoulli(num, den.multiply(BigInteger.valueOf(k)))) {
      k++;
    }
    return (k & 1) == 1;
  }

  /** Bernoulli(exp(-num/den)) with big operands (the rare far tail of the discrete Gaussian). */
  private boolean bernoulliExp(BigInteger num, BigInteger den) {
    BigInteger[] qr = num.divideAndRemainder(den);
    for (BigInteger i = BigInteger.ZERO; i.compareTo(qr[0]) < 0; i = i.add(BigInteger.ONE)) {
      if (!bernoulliExpUnit(1, 1)) {
        return false;
      }
    }
    return bernoulliExpUnit(qr[1], den, 1);
  }

  /** The discrete Laplace distribution with scale t, P[x] proportional to exp(-|x|/t) (CKS Algorithm 2, s = 1). */
  long discreteLaplace(long t) {
    while (true) {
      long u = bits.nextLong(t);
      if (!bernoulliExp(u, t)) {
        continue;
      }
      long v = 0;
      while (bernoulliExpUnit(1, 1)) {
        v++;
      }
      long x = u + t * v;
      boolean negative = (bits.nextLong() & 1) == 1;
      if (negative && x == 0) {
        continue;
      }
      return negative ? -x : x;
    }
  }

  /**
   * The discrete Gaussian N_Z(0, sigma^2) for integer {@code sigma2 = sigma^2 >= 1} (CKS
   * Algorithm 3): with t = floor(sigma) + 1, draw Y from the discrete Laplace with scale t and
   * accept with probability exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)) = exp(-(|Y| t - sigma^2)^2 /
   * (2 sigma^2 t^2)), exactly.
   */
  public long discreteGaussian(long sigma2) {
    Checks.require(sigma2 >= 1, "sigma^2 must be a positive integer. Provided value: " + sigma2);
    long t = (long) Math.floor(Math.sqrt((double) sigma2)) + 1;
    while ((t - 1) * (t - 1) > sigma2) { // correct a floating-point overshoot of the square root
      t--;
    }
    while (t * t <= sigma2) {
      t++;
    }
    // den = 2 sigma^2 t^2 overflows a long for sigma^2 above about 2e9; then every acceptance test
    // takes the exact BigInteger path (slower, same distribution).
    long den = -1;
    try {
      den = Math.multiplyExact(Math.multiplyExact(2, sigma2), Math.multiplyExact(t, t));
    } catch (ArithmeticException overflow) {
      den = -1;
    }
    BigInteger bigDen = BigInteger.valueOf(2).multiply(BigInteger.valueOf(sigma2))
        .multiply(BigInteger.valueOf(t)).multiply(BigInteger.valueOf(t));
    while (true) {
      long y = discreteLaplace(t);
      long a = Math.abs(y);
      boolean accept;
      try {
        if (den < 0) {
          throw new ArithmeticException("big");
        }
        long diff = Math.subtractExact(Math.multiplyExact(a, t), sigma2);
        accept = bernoulliExp(Math.multiplyExact(diff, diff), den);
      } catch (ArithmeticException overflow) {
        BigInteger diff = BigInteger.valueOf(a).multiply(BigInteger.valueOf(t)).subtract(BigInteger.valueOf(sigma2));
        accept = bernoulliExp(diff.multiply(diff), bigDen);
      }
      if (accept) {
        return y;
      }
    }
  }

  /** Poisson(1), Duchon and Duvignau (2016), Algorithm 1: a growing uniform permutation's records. */
  long poisson1() {
    long k = 1;
    long n = 1;
    long g = 0;
    while (true) {
      long j = bits.nextLong(n + 1);
      if (j < g) {
        return k;
      }
      if (j == n) {
        k++;
      } else {
        k--;
        g = n + 1;
      }
      n++;
    }
  }

  /** Poisson(num / den) for num >= 0, den > 0; cost linear in num / den. */
  public long poisson(long num, long den) {
    Checks.require(num >= 0 && den > 0, "Poisson rate must be >= 0: " + num + "/" + den);
    long whole = num / den;
    long frac = num - whole * den;
    long r = 0;
    for (long i = 0; i < whole; i++) {
      r += poisson1();
    }
    if (frac > 0) {
      long m = poisson1();
      for (long i = 0; i < m; i++) {
        if (bernoulli(frac, den)) {
          r++;
        }
      }
    }
    return r;
  }

  /** The symmetric Skellam Sk(num/den, num/den): the difference of two independent Poissons. */
  public long skellam(long num, long den) {
    return poisson(num, den) - poisson(num, den);
  }
}
