package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.SkellamDpEvent;
import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.RandomBits;

/**
 * A client's encoding in the distributed Skellam mechanism (Agarwal, Kairouz, Liu, NeurIPS 2021,
 * Section 4), one of the baselines of SMM (Bao et al., PVLDB 2022, Section 5): the distributed
 * discrete Gaussian's clip to L2 norm c, rotation ({@link RandomizedHadamard}), scaling by gamma
 * and conditional rounding ({@link ConditionalRounding}), then symmetric Skellam noise Sk(lambda,
 * lambda) per coordinate, exactly ({@link DiscreteNoise#fillSkellam}), reduced modulo 2^b. The
 * server decodes the sum with {@link RoundedSumDecoder}.
 *
 * <p>Skellam noise is closed under summation, so n clients' sum carries Sk(n lambda, n lambda)
 * exactly, and the release is accounted with the Skellam mechanism's RDP ({@link #event}; {@link
 * dev.helmet.privacy.accounting.SkellamRdp}) for L2 sensitivity sqrt(B) and L1 sensitivity min(B,
 * sqrt(D B)).
 *
 * <p><b>Randomness.</b> The roundings and the noise come from one {@link RandomBits} source,
 * secure by default; the rotation's signs are public. The noise vector is drawn first, before the
 * vector is looked at. Not thread-safe: one encoder per client thread.
 */
public final class SkellamEncoder {
  private final RandomizedHadamard rotation;
  private final SkellamParameters params;
  private final ConditionalRounding rounding;
  private final RandomBits bits;
  private final DiscreteNoise noise;

  /** An encoder whose rounding and noise come from a fresh {@link RandomBits#secure()} source. */
  public SkellamEncoder(RandomizedHadamard rotation, SkellamParameters params) {
    this(rotation, params, RandomBits.secure());
  }

  /** An encoder on the given bits: {@link RandomBits#insecureForTesting} only in tests. */
  public SkellamEncoder(RandomizedHadamard rotation, SkellamParameters params, RandomBits bits) {
    this.rotation = Checks.notNull("rotation", rotation);
    this.params = Checks.notNull("parameters", params);
    this.bits = Checks.notNull("random bits", bits);
    this.rounding = params.rounding(rotation.paddedDimension());
    this.noise = new DiscreteNoise(bits);
  }

  /** Whether the rounding and the noise come from a cryptographically secure source. */
  public boolean isSecure() {
    return bits.isSecure();
  }

  /** The rotation (its dimension is the vector's). */
  public RandomizedHadamard rotation() {
    return rotation;
  }

  /** The mechanism's parameters. */
  public SkellamParameters parameters() {
    return params;
  }

  /** The conditional rounding, with the bound B that every rounded vector meets. */
  public ConditionalRounding rounding() {
    return rounding;
  }

  /** The deterministic part: the clipped, rotated and scaled vector, of length D. */
  public double[] clipRotateScale(double[] vector) {
    return ConditionalRounding.clipRotateScale(rotation, Checks.notNull("vector", vector), params.c(),
        params.gamma());
  }

  /**
   * The message for secure aggregation: D values in [0, 2^b) (for b = 64, any long, read as
   * unsigned).
   */
  public long[] encode(double[] vector) {
    Checks.notNull("vector", vector);
    int padded = rotation.paddedDimension();
    long[] out = new long[padded];
    noise.fillSkellam(out, params.lambdaNum(), params.lambdaDen());
    long[] rounded = rounding.round(clipRotateScale(vector), bits);
    long mask = params.mask();
    for (int j = 0; j < padded; j++) {
      // |rounded| < 2^31; a sum that overflowed would still wrap modulo 2^64, which 2^b divides.
      out[j] = (rounded[j] + out[j]) & mask;
    }
    return out;
  }

  /** One round's release by {@code parties} clients, for the accountant ({@link SkellamParameters#event}). */
  public SkellamDpEvent event(int parties) {
    return params.event(parties, rotation.paddedDimension());
  }
}
