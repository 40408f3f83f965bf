package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;
import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.RandomBits;

/**
 * A client's encoding in the distributed discrete Gaussian mechanism (DDG; Kairouz, Liu, Steinke,
 * ICML 2021, Algorithm 1), one of the baselines of SMM (Bao et al., PVLDB 2022, Section 5): a
 * vector of dimension d becomes D = 2^ceil(log2 d) values in [0, 2^b), ready for secure
 * aggregation modulo 2^b:
 *
 * <ol>
 *   <li>clip to L2 norm c;
 *   <li>rotate: H D_xi x / sqrt(D) with the round's public signs ({@link RandomizedHadamard});
 *   <li>scale by gamma;
 *   <li>round conditionally: stochastic roundings until the squared L2 norm is at most B ({@link
 *       ConditionalRounding});
 *   <li>noise: + N_Z(0, sigma^2) per coordinate, exactly ({@link DiscreteNoise#discreteGaussian});
 *   <li>reduce modulo 2^b.
 * </ol>
 *
 * The server decodes the sum with {@link RoundedSumDecoder}. The sum of n clients' messages is a
 * release of the distributed discrete Gaussian with L2 sensitivity sqrt(B) and L1 sensitivity
 * min(B, sqrt(D B)) ({@link #event}), accounted by Kairouz et al.'s Prop. 14 in {@link
 * dev.helmet.privacy.accounting.RdpAccountant}. The modular clipping of their step 5 (a wrap-around
 * of the sum) is what reducing modulo 2^b does; it costs accuracy, not privacy.
 *
 * <p><b>Randomness.</b> The roundings and the noise come from one {@link RandomBits} source,
 * secure by default; the rotation's signs are public. The noise vector is drawn first, before the
 * vector is looked at. Not thread-safe: one encoder per client thread.
 */
public final class DdgEncoder {
  private final RandomizedHadamard rotation;
  private final DdgParameters params;
  private final ConditionalRounding rounding;
  private final RandomBits bits;
  private final DiscreteNoise noise;

  /** An encoder whose rounding and noise come from a fresh {@link RandomBits#secure()} source. */
  public DdgEncoder(RandomizedHadamard rotation, DdgParameters params) {
    this(rotation, params, RandomBits.secure());
  }

  /** An encoder on the given bits: {@link RandomBits#insecureForTesting} only in tests. */
  public DdgEncoder(RandomizedHadamard rotation, DdgParameters params, RandomBits bits) {
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
  public DdgParameters parameters() {
    return params;
  }

  /** The conditional rounding, with the bound B that every rounded vector meets. */
  public ConditionalRounding rounding() {
    return rounding;
  }

  /** Steps 1-3, the deterministic part: the clipped, rotated and scaled vector, of length D. */
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
    if (params.sigma2Num() > 0) {
      for (int j = 0; j < padded; j++) {
        out[j] = noise.discreteGaussian(params.sigma2Num(), params.sigma2Den());
      }
    }
    long[] rounded = rounding.round(clipRotateScale(vector), bits);
    long mask = params.mask();
    for (int j = 0; j < padded; j++) {
      // |rounded| < 2^31; a sum that overflowed would still wrap modulo 2^64, which 2^b divides.
      out[j] = (rounded[j] + out[j]) & mask;
    }
    return out;
  }

  /** One round's release by {@code parties} clients, for the accountant ({@link DdgParameters#event}). */
  public DistributedDiscreteGaussianDpEvent event(int parties) {
    return params.event(parties, rotation.paddedDimension());
  }
}
