package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.BinomialDpEvent;
import dev.helmet.privacy.noise.RandomBits;

/**
 * A client's encoding in cpSGD's binomial mechanism (Agarwal, Suresh, Yu, Kumar, McMahan, NeurIPS
 * 2018) on the distributed discrete Gaussian's pipeline, one of the SMM paper's baselines: clip,
 * rotate, scale by gamma, round conditionally ({@link ConditionalEncoder}), then centred binomial
 * noise Bin(N, 1/2) - N/2 per coordinate, exactly ({@link
 * dev.helmet.privacy.noise.DiscreteNoise#fillCentredBinomial}), reduced modulo 2^b. n clients' sum
 * carries Bin(n N, 1/2) - n N/2, accounted in (eps, delta) terms ({@link BinomialParameters#event}).
 */
public final class BinomialEncoder extends ConditionalEncoder {
  private final BinomialParameters params;

  /** An encoder on the given bits: {@link RandomBits#secure()} outside tests. */
  public BinomialEncoder(RandomizedHadamard rotation, BinomialParameters params, RandomBits bits) {
    super(rotation, Checks.notNull("parameters", params).rounding(rotation.paddedDimension()), params.c(),
        params.gamma(), params.mask(), bits);
    this.params = params;
  }

  /** The mechanism's parameters. */
  public BinomialParameters parameters() {
    return params;
  }

  @Override
  void fillNoise(long[] out) {
    params.fillNoise(out, noise);
  }

  /** One round's release by {@code parties} clients, for the accountant. */
  public BinomialDpEvent event(int parties) {
    return params.event(parties, rotation().paddedDimension());
  }
}
