package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;
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
 *   <li>noise: + N_Z(0, sigma^2) per coordinate, exactly ({@link dev.helmet.privacy.noise.DiscreteNoise#discreteGaussian});
 *   <li>reduce modulo 2^b.
 * </ol>
 *
 * The server decodes the sum with {@link RoundedSumDecoder}. The sum of n clients' messages is a
 * release of the distributed discrete Gaussian with L2 sensitivity sqrt(B) and L1 sensitivity
 * min(B, sqrt(D B)) ({@link #event}), accounted by Kairouz et al.'s Prop. 14 in {@link
 * dev.helmet.privacy.accounting.RdpAccountant}. The modular clipping of their step 5 (a wrap-around
 * of the sum) is what reducing modulo 2^b does; it costs accuracy, not privacy.
 */
public final class DdgEncoder extends ConditionalEncoder {
  private final DdgParameters params;

  /** An encoder whose rounding and noise come from a fresh {@link RandomBits#secure()} source. */
  public DdgEncoder(RandomizedHadamard rotation, DdgParameters params) {
    this(rotation, params, RandomBits.secure());
  }

  /** An encoder on the given bits: {@link RandomBits#insecureForTesting} only in tests. */
  public DdgEncoder(RandomizedHadamard rotation, DdgParameters params, RandomBits bits) {
    super(rotation, Checks.notNull("parameters", params).rounding(rotation.paddedDimension()), params.c(),
        params.gamma(), params.mask(), bits);
    this.params = params;
  }

  /** The mechanism's parameters. */
  public DdgParameters parameters() {
    return params;
  }

  @Override
  void fillNoise(long[] out) {
    if (params.sigma2Num() > 0) {
      for (int j = 0; j < out.length; j++) {
        out[j] = noise.discreteGaussian(params.sigma2Num(), params.sigma2Den());
      }
    }
  }

  /** One round's release by {@code parties} clients, for the accountant ({@link DdgParameters#event}). */
  public DistributedDiscreteGaussianDpEvent event(int parties) {
    return params.event(parties, rotation().paddedDimension());
  }
}
