package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.RandomBits;

/**
 * The client encoding the distributed discrete Gaussian, distributed Skellam and cpSGD mechanisms share
 * (Kairouz, Liu, Steinke 2021, Algorithm 1; Agarwal, Kairouz, Liu 2021): clip to L2 norm c, rotate
 * with the round's public signs, scale by gamma, round conditionally to the norm bound B ({@link
 * ConditionalRounding}), add the mechanism's integer noise, reduce modulo 2^b. Only the noise
 * differs ({@link #fillNoise}).
 *
 * <p><b>Randomness.</b> The roundings and the noise come from one {@link RandomBits} source,
 * secure by default; the rotation's signs are public. The noise vector is drawn first, before the
 * vector is looked at. Not thread-safe: one encoder per client thread.
 */
public abstract sealed class ConditionalEncoder permits DdgEncoder, SkellamEncoder, BinomialEncoder {
  private final RandomizedHadamard rotation;
  private final ConditionalRounding rounding;
  private final RandomBits bits;
  private final double c;
  private final double gamma;
  private final long mask;
  /** The mechanism's noise sampler, on the encoder's bits. */
  final DiscreteNoise noise;

  ConditionalEncoder(RandomizedHadamard rotation, ConditionalRounding rounding, double c, double gamma, long mask,
      RandomBits bits) {
    this.rotation = Checks.notNull("rotation", rotation);
    this.rounding = rounding;
    this.bits = Checks.notNull("random bits", bits);
    this.c = c;
    this.gamma = gamma;
    this.mask = mask;
    this.noise = new DiscreteNoise(bits);
  }

  /** Writes one message's noise (length D) into {@code out}. */
  abstract void fillNoise(long[] out);

  /** Whether the rounding and the noise come from a cryptographically secure source. */
  public boolean isSecure() {
    return bits.isSecure();
  }

  /** The rotation (its dimension is the vector's). */
  public RandomizedHadamard rotation() {
    return rotation;
  }

  /** The conditional rounding, with the bound B that every rounded vector meets. */
  public ConditionalRounding rounding() {
    return rounding;
  }

  /** The deterministic part: the clipped, rotated and scaled vector, of length D. */
  public double[] clipRotateScale(double[] vector) {
    return ConditionalRounding.clipRotateScale(rotation, Checks.notNull("vector", vector), c, gamma);
  }

  /**
   * The message for secure aggregation: D values in [0, 2^b) (for b = 64, any long, read as
   * unsigned).
   */
  public long[] encode(double[] vector) {
    Checks.notNull("vector", vector);
    int padded = rotation.paddedDimension();
    long[] out = new long[padded];
    fillNoise(out);
    long[] rounded = rounding.round(clipRotateScale(vector), bits);
    for (int j = 0; j < padded; j++) {
      // |rounded| < 2^31; a sum that overflowed would still wrap modulo 2^64, which 2^b divides.
      out[j] = (rounded[j] + out[j]) & mask;
    }
    return out;
  }
}
