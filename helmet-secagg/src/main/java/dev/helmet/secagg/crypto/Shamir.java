package dev.helmet.secagg.crypto;

import java.security.SecureRandom;

/**
 * Shamir t-out-of-n secret sharing of 32-byte secrets over the prime field GF(p), p = 2^61 - 1
 * (a Mersenne prime, so reduction is a shift and an add). A secret is cut into five 56-bit chunks
 * (35 bytes of room for 32), each shared with its own random polynomial of degree t - 1 whose
 * coefficients come from {@link Secrets}: any t - 1 shares are uniformly distributed whatever the
 * secret (information-theoretic secrecy), any t shares determine it. Holder x receives the five
 * polynomial values at x (x in 1 .. p - 1; Helmet uses party id + 1).
 */
public final class Shamir {
  /** The field prime 2^61 - 1. */
  public static final long P = (1L << 61) - 1;
  /** Chunks per 32-byte secret. */
  public static final int CHUNKS = 5;
  /** Bytes per chunk (56 bits < 61). */
  static final int CHUNK_BYTES = 7;
  /** Secret length in bytes. */
  public static final int SECRET_BYTES = 32;

  private Shamir() {}

  /** (a * b) mod p for a, b in [0, p). */
  static long mul(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    // a*b < 2^122 = hi * 2^64 + lo; split at bit 61: low 61 bits plus the rest (2^61 = 1 mod p).
    long r = (lo & P) + ((hi << 3) | (lo >>> 61));
    r = (r & P) + (r >>> 61);
    return r >= P ? r - P : r;
  }

  static long add(long a, long b) {
    long r = a + b;
    return r >= P ? r - P : r;
  }

  static long sub(long a, long b) {
    long r = a - b;
    return r < 0 ? r + P : r;
  }

  /** a^(p-2) = a^-1 mod p (Fermat), for a != 0. */
  static long inverse(long a) {
    if (a == 0) {
      throw new ArithmeticException("0 has no inverse");
    }
    long result = 1;
    long base = a;
    long e = P - 2;
    while (e > 0) {
      if ((e & 1) == 1) {
        result = mul(result, base);
      }
      base = mul(base, base);
      e >>>= 1;
    }
    return result;
  }

  private static long uniform(SecureRandom r) {
    long v;
    do {
      v = r.nextLong() >>> 3; // 61 random bits
    } while (v >= P);
    return v;
  }

  /** The secret's chunks as field elements. */
  static long[] chunks(byte[] secret) {
    if (secret.length != SECRET_BYTES) {
      throw new IllegalArgumentException("Shamir shares " + SECRET_BYTES + "-byte secrets");
    }
    long[] c = new long[CHUNKS];
    for (int i = 0; i < SECRET_BYTES; i++) {
      c[i / CHUNK_BYTES] |= (secret[i] & 0xffL) << (8 * (i % CHUNK_BYTES));
    }
    return c;
  }

  /**
   * Shares {@code secret} among holders at {@code xs} so that any {@code threshold} of them can
   * reconstruct it. Returns one share (five field elements) per holder, in the order of {@code xs}.
   */
  public static long[][] split(byte[] secret, int threshold, int[] xs, CryptoProfile profile) {
    if (threshold < 1 || threshold > xs.length) {
      throw new IllegalArgumentException("threshold must be in [1, " + xs.length + "]. Provided value: " + threshold);
    }
    long t0 = profile.start();
    SecureRandom r = Secrets.random();
    long[] s = chunks(secret);
    long[][] coeff = new long[CHUNKS][threshold];
    for (int c = 0; c < CHUNKS; c++) {
      coeff[c][0] = s[c];
      for (int k = 1; k < threshold; k++) {
        coeff[c][k] = uniform(r);
      }
    }
    java.util.Set<Integer> distinct = new java.util.HashSet<>();
    for (int x : xs) {
      if (!distinct.add(x)) {
        throw new IllegalArgumentException("share points must be distinct; " + x + " repeats");
      }
    }
    long[][] shares = new long[xs.length][CHUNKS];
    for (int h = 0; h < xs.length; h++) {
      long x = xs[h];
      if (x <= 0 || x >= P) {
        throw new IllegalArgumentException("share points must be in [1, p). Provided value: " + x);
      }
      for (int c = 0; c < CHUNKS; c++) {
        long acc = 0;
        for (int k = threshold - 1; k >= 0; k--) { // Horner
          acc = add(mul(acc, x), coeff[c][k]);
        }
        shares[h][c] = acc;
      }
    }
    for (long[] row : coeff) {
      java.util.Arrays.fill(row, 0);
    }
    profile.stop(CryptoProfile.Op.SHAMIR, t0);
    return shares;
  }

  /**
   * The secret from shares at distinct points {@code xs} (exactly the threshold number of them,
   * or more: only the first {@code threshold} are used), by Lagrange interpolation at 0.
   *
   * @throws IllegalArgumentException if the points are not distinct or fewer than {@code threshold}
   */
  public static byte[] reconstruct(int[] xs, long[][] shares, int threshold, CryptoProfile profile) {
    if (xs.length < threshold || shares.length < threshold) {
      throw new IllegalArgumentException(xs.length + " shares cannot reconstruct a " + threshold + "-out-of-n secret");
    }
    long t0 = profile.start();
    long[] lambda = lagrangeAtZero(xs, threshold);
    long[] s = new long[CHUNKS];
    for (int j = 0; j < threshold; j++) {
      if (shares[j].length != CHUNKS) {
        throw new IllegalArgumentException("a share has " + CHUNKS + " field elements");
      }
      for (int c = 0; c < CHUNKS; c++) {
        long v = shares[j][c];
        if (v < 0 || v >= P) {
          throw new IllegalArgumentException("share element outside the field");
        }
        s[c] = add(s[c], mul(lambda[j], v));
      }
    }
    byte[] secret = new byte[SECRET_BYTES];
    for (int i = 0; i < SECRET_BYTES; i++) {
      secret[i] = (byte) (s[i / CHUNK_BYTES] >>> (8 * (i % CHUNK_BYTES)));
    }
    profile.stop(CryptoProfile.Op.SHAMIR, t0);
    return secret;
  }

  /**
   * The value at point {@code x} of the polynomial (per chunk) through the first {@code t} shares:
   * a share that is not on it was not made by the dealer of the others (robust reconstruction uses
   * this to find and attribute bad shares).
   */
  public static long[] evaluate(int[] xs, long[][] shares, int t, int x) {
    if (x <= 0) {
      throw new IllegalArgumentException("share points must be in [1, p). Provided value: " + x);
    }
    long[] s = new long[CHUNKS];
    for (int j = 0; j < t; j++) {
      long num = 1;
      long den = 1;
      for (int m = 0; m < t; m++) {
        if (m != j) {
          num = mul(num, sub(x, xs[m]));
          den = mul(den, sub(xs[j], xs[m]));
        }
      }
      long lambda = mul(num, inverse(den));
      for (int c = 0; c < CHUNKS; c++) {
        s[c] = add(s[c], mul(lambda, shares[j][c]));
      }
    }
    return s;
  }

  /** Lagrange basis values at 0 for the first {@code t} points: prod_{m != j} x_m / (x_m - x_j). */
  static long[] lagrangeAtZero(int[] xs, int t) {
    long[] num = new long[t];
    long[] den = new long[t];
    for (int j = 0; j < t; j++) {
      if (xs[j] <= 0) {
        throw new IllegalArgumentException("share points must be in [1, p). Provided value: " + xs[j]);
      }
    }
    for (int j = 0; j < t; j++) {
      long n = 1;
      long d = 1;
      for (int m = 0; m < t; m++) {
        if (m != j) {
          if (xs[m] == xs[j]) {
            throw new IllegalArgumentException("share points must be distinct; " + xs[j] + " repeats");
          }
          n = mul(n, xs[m]);
          d = mul(d, sub(xs[m], xs[j]));
        }
      }
      num[j] = n;
      den[j] = d;
    }
    // One inversion for all denominators (Montgomery's trick).
    long[] prefix = new long[t + 1];
    prefix[0] = 1;
    for (int j = 0; j < t; j++) {
      prefix[j + 1] = mul(prefix[j], den[j]);
    }
    long inv = inverse(prefix[t]);
    long[] lambda = new long[t];
    for (int j = t - 1; j >= 0; j--) {
      long invDen = mul(inv, prefix[j]);
      inv = mul(inv, den[j]);
      lambda[j] = mul(num[j], invDen);
    }
    return lambda;
  }
}
