package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.SkellamDpEvent;
import dev.helmet.privacy.noise.RandomBits;

/**
 * A client's encoding in the distributed Skellam mechanism (Agarwal, Kairouz, Liu, NeurIPS 2021,
 * Section 4), one of the baselines of SMM (Bao et al., PVLDB 2022, Section 5): the distributed
 * discrete Gaussian's clip to L2 norm c, rotation ({@link RandomizedHadamard}), scaling by gamma
 * and conditional rounding ({@link ConditionalRounding}), then symmetric Skellam noise Sk(lambda,
 * lambda) per coordinate, exactly ({@link dev.helmet.privacy.noise.DiscreteNoise#fillSkellam}), reduced modulo 2^b. The
 * server decodes the sum with {@link RoundedSumDecoder}.
 *
 * <p>Skellam noise is closed under summation, so n clients' sum carries Sk(n lambda, n lambda)
 * exactly, and the release is accounted with the Skellam mechanism's RDP ({@link #event}; {@link
 * dev.helmet.privacy.accounting.SkellamRdp}) for L2 sensitivity sqrt(B) and L1 sensitivity min(B,
 * sqrt(D B)).
 */
public final class SkellamEncoder extends ConditionalEncoder {
  private final SkellamParameters params;

  /** An encoder whose rounding and noise come from a fresh {@link RandomBits#secure()} source. */
  public SkellamEncoder(RandomizedHadamard rotation, SkellamParameters params) {
    this(rotation, params, RandomBits.secure());
  }

  /** An encoder on the given bits: {@link RandomBits#insecureForTesting} only in tests. */
  public SkellamEncoder(RandomizedHadamard rotation, SkellamParameters params, RandomBits bits) {
    super(rotation, Checks.notNull("parameters", params).rounding(rotation.paddedDimension()), params.c(),
        params.gamma(), params.mask(), bits);
    this.params = params;
  }

  /** The mechanism's parameters. */
  public SkellamParameters parameters() {
    return params;
  }

  @Override
  void fillNoise(long[] out) {
    noise.fillSkellam(out, params.lambdaNum(), params.lambdaDen());
  }

  /** One round's release by {@code parties} clients, for the accountant ({@link SkellamParameters#event}). */
  public SkellamDpEvent event(int parties) {
    return params.event(parties, rotation().paddedDimension());
  }
}
