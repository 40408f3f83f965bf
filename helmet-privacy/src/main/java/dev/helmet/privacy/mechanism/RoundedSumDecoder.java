package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;

/**
 * The server's side of the distributed discrete Gaussian ({@link DdgEncoder}) and distributed
 * Skellam ({@link SkellamEncoder}) encodings: from the sum modulo 2^b of the clients' messages, the
 * estimated sum of their clipped vectors. Each coordinate is mapped to its representative in
 * [-2^(b-1), 2^(b-1)) ({@link SmmDecoder#toSigned}), divided by gamma and rotated back, and the
 * result truncated to the dimension d. Post-processing of the aggregate: it costs no privacy. The
 * estimate is biased slightly towards smaller norms by the conditional rounding, and wrong in any
 * coordinate whose sum wrapped around the modulus.
 *
 * <p>Immutable and thread-safe.
 */
public final class RoundedSumDecoder {
  private final RandomizedHadamard rotation;
  private final double gamma;
  private final int bits;

  /** A decoder for messages encoded with this rotation (public seed), scale gamma and b bits. */
  public RoundedSumDecoder(RandomizedHadamard rotation, double gamma, int bits) {
    this.rotation = Checks.notNull("rotation", rotation);
    Checks.require(gamma > 0 && Double.isFinite(gamma), "gamma must be positive. Provided value: " + gamma);
    this.gamma = gamma;
    this.bits = Checks.inRange("bits", bits, 2, 64);
  }

  /** The decoder for {@link DdgEncoder} messages with these parameters. */
  public static RoundedSumDecoder of(RandomizedHadamard rotation, DdgParameters params) {
    return new RoundedSumDecoder(rotation, params.gamma(), params.bits());
  }

  /** The decoder for {@link SkellamEncoder} messages with these parameters. */
  public static RoundedSumDecoder of(RandomizedHadamard rotation, SkellamParameters params) {
    return new RoundedSumDecoder(rotation, params.gamma(), params.bits());
  }

  /** The decoder for {@link BinomialEncoder} messages with these parameters. */
  public static RoundedSumDecoder of(RandomizedHadamard rotation, BinomialParameters params) {
    return new RoundedSumDecoder(rotation, params.gamma(), params.bits());
  }

  /**
   * The estimated sum (length d) from {@code sum}, the coordinate-wise sum modulo 2^b of the
   * messages (length D, values in [0, 2^b); {@link SmmDecoder#sumMod} computes it in tests).
   */
  public double[] decode(long[] sum) {
    Checks.notNull("sum", sum);
    int padded = rotation.paddedDimension();
    Checks.require(sum.length == padded, "sum length must be " + padded + ". Provided value: " + sum.length);
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    double[] y = new double[padded];
    for (int j = 0; j < padded; j++) {
      if (Long.compareUnsigned(sum[j], mask) > 0) {
        throw new IllegalArgumentException("sum coordinate " + j + " must be in [0, 2^" + bits
            + "). Provided value: " + sum[j]);
      }
      y[j] = SmmDecoder.toSigned(sum[j], bits) / gamma;
    }
    return rotation.inverse(y);
  }
}
