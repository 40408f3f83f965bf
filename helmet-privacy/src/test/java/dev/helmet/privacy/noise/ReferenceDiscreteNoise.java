package dev.helmet.privacy.noise;

import java.math.BigInteger;
import java.security.DrbgParameters;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.function.LongSupplier;

/**
 * Test-only reference: the exact samplers as they were at commit dd76219, kept simple on purpose so
 * that the fast {@link DiscreteNoise} can be compared with them (moments in the tests, throughput
 * in {@link SamplerThroughput}). Every Bernoulli(num/den) is a uniform integer below den compared
 * with num; Bernoulli(exp(-gamma)) is Canonne, Kamath and Steinke's Algorithm 1; the discrete
 * Laplace and Gaussian are their Algorithms 2 and 3; Poisson(lambda) sums floor(lambda) Poisson(1)
 * draws of Duchon and Duvignau (2016) and thins one more for the fraction. Exact, and slow: a
 * Poisson draw costs time linear in lambda.
 */
final class ReferenceDiscreteNoise {
  private final LongSupplier words;

  /** On 64-bit words from {@code words} (e.g. {@code RandomBits::nextLong}). */
  ReferenceDiscreteNoise(LongSupplier words) {
    this.words = words;
  }

  /**
   * The uniform words of dd76219's secure source: a SHA-256 Hash_DRBG (256-bit strength) read in
   * 64 KiB nextBytes calls, eight bytes a word, big-endian.
   */
  static LongSupplier hashDrbgWords() {
    SecureRandom r;
    try {
      r = SecureRandom.getInstance("DRBG",
          DrbgParameters.instantiation(256, DrbgParameters.Capability.RESEED_ONLY, null));
    } catch (NoSuchAlgorithmException e) {
      r = new SecureRandom();
    }
    SecureRandom random = r;
    byte[] buf = new byte[1 << 16];
    int[] pos = {buf.length};
    return () -> {
      if (pos[0] + 8 > buf.length) {
        random.nextBytes(buf);
        pos[0] = 0;
      }
      long v = 0;
      for (int i = 0; i < 8; i++) {
        v = (v << 8) | (buf[pos[0]++] & 0xffL);
      }
      return v;
    };
  }

  /** A uniform integer in [0, bound), by rejection of the incomplete last block. */
  long nextLong(long bound) {
    long m = bound - 1;
    if ((bound & m) == 0) {
      return words.getAsLong() & m;
    }
    long r;
    long u;
    do {
      u = words.getAsLong() >>> 1;
      r = u % bound;
    } while (u - r + m < 0);
    return r;
  }

  boolean bernoulli(long num, long den) {
    return nextLong(den) < num;
  }

  private boolean bernoulli(BigInteger num, BigInteger den) {
    int bitLen = den.bitLength();
    while (true) {
      BigInteger u = BigInteger.ZERO;
      int have = 0;
      while (have < bitLen) {
        u = u.shiftLeft(64).or(new BigInteger(Long.toUnsignedString(words.getAsLong())));
        have += 64;
      }
      u = u.shiftRight(have - bitLen);
      if (u.compareTo(den) < 0) {
        return u.compareTo(num) < 0;
      }
    }
  }

  boolean bernoulliExp(long num, long den) {
    long whole = num / den;
    for (long i = 0; i < whole; i++) {
      if (!bernoulliExpUnit(1, 1)) {
        return false;
      }
    }
    return bernoulliExpUnit(num - whole * den, den);
  }

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

  private boolean bernoulliExp(BigInteger num, BigInteger den) {
    BigInteger[] qr = num.divideAndRemainder(den);
    for (BigInteger i = BigInteger.ZERO; i.compareTo(qr[0]) < 0; i = i.add(BigInteger.ONE)) {
      if (!bernoulliExpUnit(1, 1)) {
        return false;
      }
    }
    return bernoulliExpUnit(qr[1], den, 1);
  }

  long discreteLaplace(long t) {
    while (true) {
      long u = nextLong(t);
      if (!bernoulliExp(u, t)) {
        continue;
      }
      long v = 0;
      while (bernoulliExpUnit(1, 1)) {
        v++;
      }
      long x = u + t * v;
      boolean negative = (words.getAsLong() & 1) == 1;
      if (negative && x == 0) {
        continue;
      }
      return negative ? -x : x;
    }
  }

  long discreteGaussian(long sigma2) {
    long t = (long) Math.floor(Math.sqrt((double) sigma2)) + 1;
    while ((t - 1) * (t - 1) > sigma2) {
      t--;
    }
    while (t * t <= sigma2) {
      t++;
    }
    long den;
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

  long poisson1() {
    long k = 1;
    long n = 1;
    long g = 0;
    while (true) {
      long j = nextLong(n + 1);
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

  long poisson(long num, long den) {
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

  long skellam(long num, long den) {
    return poisson(num, den) - poisson(num, den);
  }
}
