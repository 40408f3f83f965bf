package dev.helmet.privacy.mechanism;

import dev.helmet.core.linalg.Blas;
import dev.helmet.core.util.Checks;

/**
 * The random rotation of the Skellam mixture mechanism (Bao et al., "Skellam Mixture Mechanism: a
 * Novel Approach to Federated Learning with Differential Privacy", PVLDB 15(11), 2022, Algorithm 4
 * line 1 and Algorithm 6 line 2): a vector x of dimension d is padded with zeros to D, the next
 * power of two, and mapped to {@code H D_xi x / sqrt(D)}, where H is the D x D Walsh-Hadamard
 * (Sylvester) matrix, {@code H[i][j] = (-1)^popcount(i & j)}, and D_xi the diagonal matrix of a
 * sign vector xi. As H H = D I, the map is orthonormal: it preserves L2 norms, and its inverse is
 * {@code D_xi H y / sqrt(D)} followed by truncation to d. The rotation spreads a gradient's mass
 * evenly over the coordinates (each about N(0, ||x||^2 / D)), which keeps the rounded values small
 * and the aggregate from wrapping around the modulus.
 *
 * <p><b>Public randomness.</b> xi is public: the server and every client derive it from a public
 * per-round seed. Privacy does not rest on it (the mechanism's guarantee holds for every input that
 * passes {@link MixtureClip}, rotated or not); it only serves utility, so it is drawn from a fast
 * deterministic generator rather than SecureRandom. The generator is SplitMix64 (Steele, Lea and
 * Flood, OOPSLA 2014), written out here so that the signs are a fixed function of the seed on
 * every JVM and in any other language: word w = 0, 1, ... is {@code mix(seed + (w + 1) *
 * 0x9e3779b97f4a7c15)} (arithmetic modulo 2^64), where {@code mix(z)} is {@code z2 ^ (z2 >>> 31)}
 * with {@code z1 = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9} and {@code z2 = (z1 ^ (z1 >>> 27)) *
 * 0x94d049bb133111eb}; sign j is -1 when bit (j mod 64) of word floor(j / 64) is 1, else +1.
 *
 * <p><b>Transform.</b> The unnormalised fast Walsh-Hadamard transform runs in place in D log2 D
 * additions, two butterfly levels per pass over the array (a radix-4 step: half the memory traffic
 * of radix 2, and measured 2.5 times as fast for D = 65,536), with the JDK Vector API when it is
 * enabled ({@link Blas#hadamardRadix4}; every output is the same fixed sum on both paths, so the
 * rotation does not depend on it). Instances are immutable and thread-safe.
 */
public final class RandomizedHadamard {
  /** Largest padded dimension: 2^30, so that every index fits an int. */
  public static final int MAX_PADDED = 1 << 30;

  private final int dimension;
  private final int padded;
  private final long seed;
  /** xi_j / sqrt(D): the sign and the normalisation in one factor. */
  private final double[] scaledSigns;

  /**
   * The rotation of vectors of {@code dimension} coordinates with the signs derived from the public
   * {@code seed}.
   */
  public RandomizedHadamard(int dimension, long seed) {
    Checks.inRange("dimension", dimension, 1, MAX_PADDED);
    this.dimension = dimension;
    this.padded = paddedLength(dimension);
    this.seed = seed;
    this.scaledSigns = new double[padded];
    // 1 / sqrt(D) is a power of two when log2 D is even; otherwise it is rounded once (relative
    // error 2^-53), which changes nothing downstream: the clip is applied to the rotated values as
    // computed, and the decoder's inverse uses the same factor.
    double scale = 1.0 / Math.sqrt(padded);
    long state = seed;
    long word = 0;
    for (int j = 0; j < padded; j++) {
      if ((j & 63) == 0) {
        state += 0x9e3779b97f4a7c15L;
        word = mix(state);
      }
      scaledSigns[j] = ((word >>> (j & 63)) & 1) == 0 ? scale : -scale;
    }
  }

  /** The next power of two at or above d (1 for d = 1). */
  public static int paddedLength(int d) {
    Checks.inRange("dimension", d, 1, MAX_PADDED);
    return d == 1 ? 1 : Integer.highestOneBit(d - 1) << 1;
  }

  /** SplitMix64's output function. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** d, the dimension of the vectors rotated. */
  public int dimension() {
    return dimension;
  }

  /** D, the padded dimension: the next power of two at or above d. */
  public int paddedDimension() {
    return padded;
  }

  /** The public seed of the signs. */
  public long seed() {
    return seed;
  }

  /** xi_j in {-1, +1}, for j < D. */
  public int sign(int j) {
    return scaledSigns[j] > 0 ? 1 : -1;
  }

  /** {@code H D_xi x / sqrt(D)}: x of length d, padded with zeros; a new array of length D. */
  public double[] rotate(double[] x) {
    double[] y = new double[padded];
    rotateInto(x, y);
    return y;
  }

  /**
   * {@link #rotate} into {@code y} (length D, overwritten), for callers that rotate many vectors
   * and keep one buffer: the same values, bit for bit. The signs and the first two butterfly levels
   * are applied in one pass (the same operations in the same order as {@link #walshHadamard}).
   */
  public void rotateInto(double[] x, double[] y) {
    if (x.length != dimension) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("vector length must be " + dimension + ". Provided value: " + x.length);
    }
    if (y.length != padded) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("output length must be " + padded + ". Provided value: " + y.length);
    }
    if (x == y) {
      throw new IllegalArgumentException("the output must not be the input vector");
    }
    if (padded < 4) {
      java.util.Arrays.fill(y, 0);
      for (int j = 0; j < dimension; j++) {
        y[j] = x[j] * scaledSigns[j];
      }
      walshHadamard(y);
      return;
    }
    // Block by block (BLOCK values, which stay in the core's first-level cache): the signs and
    // levels 1-2, then the levels that stay inside the block; the rest over the whole array.
    int block = Math.min(BLOCK, padded);
    for (int start = 0; start < padded; start += block) {
      int end = start + block;
      int full = Math.max(start, Math.min(end, dimension & ~3));
      for (int i = start; i < full; i += 4) {
        firstLevels(y, i, x[i] * scaledSigns[i], x[i + 1] * scaledSigns[i + 1], x[i + 2] * scaledSigns[i + 2],
            x[i + 3] * scaledSigns[i + 3]);
      }
      if (full < end && full < dimension) { // the block of four that the padding starts in
        double[] t = new double[4];
        for (int j = full; j < dimension; j++) {
          t[j - full] = x[j] * scaledSigns[j];
        }
        firstLevels(y, full, t[0], t[1], t[2], t[3]);
        full += 4;
      }
      java.util.Arrays.fill(y, full, end, 0); // H of a block of zeros is zeros
      blockLevels(y, start, end);
    }
    wholeLevels(y, block);
  }

  /**
   * {@code D_xi H y / sqrt(D)} truncated to the first d coordinates: the inverse of {@link #rotate}
   * on its image, and the adjoint of {@link #rotate} in general. {@code y} (length D) is not
   * modified.
   */
  public double[] inverse(double[] y) {
    if (y.length != padded) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("vector length must be " + padded + ". Provided value: " + y.length);
    }
    double[] z = y.clone();
    walshHadamard(z);
    double[] x = new double[dimension];
    for (int j = 0; j < dimension; j++) {
      x[j] = z[j] * scaledSigns[j];
    }
    return x;
  }

  /**
   * The unnormalised Walsh-Hadamard transform {@code a <- H a} in place, for a length that is a
   * power of two. Butterfly levels h = 1, 2, 4, ... are taken two at a time: for each j, the four
   * values a[j], a[j + h], a[j + 2h], a[j + 3h] go through level h and then level 2h in registers.
   * The first two levels (h = 1, 2) work on blocks of four adjacent values; a single level is left
   * over when log2 of the length is odd.
   */
  public static void walshHadamard(double[] a) {
    int n = a.length;
    if (!(n > 0 && (n & (n - 1)) == 0)) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("length must be a power of two. Provided value: " + n);
    }
    if (n < 4) {
      if (n == 2) {
        Blas.hadamardRadix2(a, 1);
      }
      return;
    }
    for (int i = 0; i < n; i += 4) {
      firstLevels(a, i, a[i], a[i + 1], a[i + 2], a[i + 3]);
    }
    higherLevels(a);
  }

  /** Butterfly levels 1 and 2 of the block a0..a3, written to a[i..i+4). */
  private static void firstLevels(double[] a, int i, double a0, double a1, double a2, double a3) {
    double s01 = a0 + a1;
    double d01 = a0 - a1;
    double s23 = a2 + a3;
    double d23 = a2 - a3;
    a[i] = s01 + s23;
    a[i + 1] = d01 + d23;
    a[i + 2] = s01 - s23;
    a[i + 3] = d01 - d23;
  }

  /**
   * Values per block of the transform's low levels: 4096 doubles (32 KiB) fit a core's first-level
   * cache, so levels 3 to 12 take one pass over memory instead of five. The block takes the level
   * pairs h = 4, 16, ... whose groups of 4h values lie inside it, and the rest are done over the
   * whole array in the same order: every value goes through the same operations in the same order
   * as without blocks (for any power-of-two block).
   */
  static final int BLOCK = 4096;

  /** Levels h = 4, 16, ... two at a time, then the last single level if log2 n is odd (n >= 4). */
  private static void higherLevels(double[] a) {
    int block = Math.min(BLOCK, a.length);
    for (int start = 0; start < a.length; start += block) {
      blockLevels(a, start, start + block);
    }
    wholeLevels(a, block);
  }

  /** The radix-4 levels h = 4, 16, ... with 4h at most the block's length, on a[start..end). */
  private static void blockLevels(double[] a, int start, int end) {
    for (int h = 4; 4 * h <= end - start; h *= 4) {
      Blas.hadamardRadix4(a, start, end, h);
    }
  }

  /** The levels above those of blocks of {@code block} values (a power of two, at least 4). */
  private static void wholeLevels(double[] a, int block) {
    int n = a.length;
    int h = 4;
    while (4 * h <= block) {
      h *= 4; // done block by block
    }
    for (; 4 * h <= n; h *= 4) {
      Blas.hadamardRadix4(a, h);
    }
    if (h < n) { // one level left: h = n / 2
      Blas.hadamardRadix2(a, h);
    }
  }
}
