package dev.helmet.protocols.smm;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.SkellamMixtureRdp.Subsampling;
import java.util.Arrays;

/**
 * The Skellam mixture mechanism's settings (Bao et al., PVLDB 2022, Algorithm 3; SPEC 6).
 *
 * @param hidden the MLP's hidden layer widths (the paper: one layer of 80)
 * @param bits b: every coordinate travels in Z_{2^b}
 * @param gamma the scale applied after the rotation (one ring unit is 1/gamma gradient units)
 * @param clip C: each example's gradient is clipped to L2 norm C before the rotation; the mixture
 *     clip bound is then c = (gamma C)^2
 * @param samplingRate q: each record joins a round with this probability (Poisson, secret)
 * @param expectedBatch the public normaliser of each round's sum (the paper's |B|), required:
 *     the guarantee is for one record added or removed, so the number of records is private
 * @param rounds T: summations (optimiser steps)
 * @param learningRate the server's step size
 * @param adam Adam (Kingma and Ba 2015, the paper's) or plain SGD
 * @param subsampling how a sampled round is bounded: Zhu and Wang's general bound (default) or the
 *     paper's form (labelled; see {@link dev.helmet.privacy.accounting.SkellamMixtureRdp})
 * @param startSeed public seed of the initial model and of the rounds' rotations
 * @param mechanism smm (the Skellam mixture mechanism), or the paper's baselines on the same
 *     pipeline: ddg (distributed discrete Gaussian), skellam (distributed Skellam) or cpsgd (cpSGD's
 *     binomial noise, (eps, delta) accounting)
 */
record SmmConfig(int[] hidden, int bits, double gamma, double clip, double samplingRate, double expectedBatch,
    int rounds, double learningRate, boolean adam, Subsampling subsampling, int startSeed, String mechanism) {
  /** The mechanisms. */
  static final java.util.List<String> MECHANISMS = java.util.List.of("smm", "ddg", "skellam", "cpsgd");

  SmmConfig {
    Checks.require(MECHANISMS.contains(mechanism), "mechanism must be smm, ddg, skellam or cpsgd. Provided value: "
        + mechanism);
    Checks.require(subsampling == Subsampling.GENERAL || mechanism.equals("smm"), "the paper's subsampling form "
        + "is offered for smm only (to reproduce its numbers); " + mechanism + " uses the general bound");
    hidden = hidden.clone();
    for (int h : hidden) {
      Checks.positive("hidden layer width", h);
    }
    Checks.inRange("bits", bits, 2, 64);
    Checks.positive("gamma", gamma);
    Checks.positive("clip", clip);
    Checks.require(samplingRate > 0 && samplingRate <= 1, "sampling rate must be in (0, 1]. Provided value: "
        + samplingRate);
    Checks.require(expectedBatch > 0 && Double.isFinite(expectedBatch), "the expected batch must be a public number "
        + "> 0 (the number of records is private under add-or-remove neighbours). Provided value: " + expectedBatch);
    Checks.positive("rounds", rounds);
    Checks.positive("learning rate", learningRate);
    Checks.notNull("subsampling", subsampling);
  }

  /** The mixture clip bound c = (gamma C)^2: unit L2 sensitivity after scaling, as the paper sets it. */
  double mixtureC() {
    return gamma * clip * gamma * clip;
  }

  /** The layer widths for {@code features} inputs and {@code classes} outputs. */
  int[] widths(int features, int classes) {
    return dev.helmet.protocols.algorithm.MlpLayers.widths(features, hidden, classes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SmmConfig c && Arrays.equals(c.hidden, hidden) && c.bits == bits && c.gamma == gamma
        && c.clip == clip && c.samplingRate == samplingRate
        && Double.compare(c.expectedBatch, expectedBatch) == 0 && c.rounds == rounds
        && c.learningRate == learningRate && c.adam == adam && c.subsampling == subsampling
        && c.startSeed == startSeed && c.mechanism.equals(mechanism);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(hidden) * 31 + Double.hashCode(gamma) + bits + rounds;
  }
}
