package dev.helmet.protocols.smm;

import dev.helmet.privacy.accounting.SkellamMixtureRdp.Subsampling;
import dev.helmet.privacy.accounting.SmmAccounting;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.mechanism.MixtureClip;
import dev.helmet.privacy.mechanism.RandomizedHadamard;
import dev.helmet.privacy.mechanism.SmmParameters;
import dev.helmet.privacy.mechanism.StochasticRounding;
import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.RandomBits;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Skellam mixture mechanism's rounds: rotate, scale by gamma, mixture clip (c = (gamma C)^2,
 * L-infinity Delta from the best order), stochastic rounding; every party adds Sk(lambda/h,
 * lambda/h) with the total lambda from {@link SmmAccounting}.
 */
final class MixtureRounds implements RoundMechanism {
  /** Denominator of each party's Skellam parameter (its numerator is rounded up: more noise). */
  static final long LAMBDA_DEN = 1L << 20;

  private final SmmConfig config;
  private final SmmAccounting.Result accounting;
  private final SmmParameters party;

  MixtureRounds(SmmConfig config, int honest, double epsilon, double delta) {
    this.config = config;
    this.accounting = SmmAccounting.calibrate(new SmmAccounting.Params(1, config.mixtureC(), config.samplingRate(),
        config.rounds(), delta, config.subsampling()), epsilon);
    // Each honest party's share, rounded up to a multiple of 2^-20: the honest shares sum to at least lambda.
    long num = (long) Math.ceil(accounting.event().lambda() / honest * LAMBDA_DEN);
    this.party = new SmmParameters(config.gamma(), config.mixtureC(), accounting.deltaInf(), num, LAMBDA_DEN,
        config.bits());
  }

  @Override
  public String id() {
    return "smm";
  }

  @Override
  public String title() {
    return "the Skellam mixture mechanism";
  }

  @Override
  public String noiseSampler() {
    return "exact Skellam (difference of two exact Poisson samples)";
  }

  @Override
  public String accountant() {
    return config.subsampling() == Subsampling.GENERAL ? "rdp" : dev.helmet.privacy.accounting.RdpAccountant.PAPER_SUBSAMPLING;
  }

  @Override
  public String subsamplingBound() {
    return config.subsampling() == Subsampling.GENERAL ? "general (Zhu and Wang 2019, Theorem 6)"
        : "the paper's binomial expansion (Bao et al. 2022; proven for mechanisms like the Gaussian, not shown for "
            + "SMM): reproduces the paper, weaker than the general bound";
  }

  /**
   * Keeps two buffers of D values (rotated, clipped) from record to record: a record used to
   * allocate and zero 1.5 MB at the paper's shape. Each record overwrites them; nothing else reads
   * them, and they go with the encoder at the end of the party's batch.
   */
  @Override
  public RecordEncoder encoder() {
    return new RecordEncoder() {
      private double[] y = new double[0];
      private double[] clipped;

      @Override
      public void addRecord(double[] gradient, RandomizedHadamard rotation, RandomBits bits, long[] acc) {
        int d = rotation.paddedDimension();
        if (y.length != d) {
          y = new double[d];
          clipped = new double[d];
        }
        rotation.rotateInto(gradient, y);
        double gamma = config.gamma();
        for (int k = 0; k < d; k++) {
          y[k] *= gamma;
        }
        MixtureClip.clipInto(y, party.c(), party.deltaInf(), clipped);
        StochasticRounding.addRounded(clipped, acc, bits);
      }
    };
  }

  @Override
  public void drawPartyNoise(long[] out, DiscreteNoise noise) {
    noise.fillSkellam(out, party.lambdaNum(), party.lambdaDen());
  }

  @Override
  public void addPartiesNoise(long[] out, DiscreteNoise noise, int parties) {
    // Skellam is closed under sums: w shares are one Skellam of w times the parameter.
    long[] tmp = new long[out.length];
    noise.fillSkellam(tmp, Math.multiplyExact(party.lambdaNum(), (long) parties), party.lambdaDen());
    for (int j = 0; j < out.length; j++) {
      out[j] += tmp[j];
    }
  }

  @Override
  public DpEvent roundEvent() {
    return accounting.event();
  }

  @Override
  public double noiseVariance() {
    return 2 * accounting.event().lambda();
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("total_skellam_lambda", accounting.event().lambda());
    m.put("party_skellam_lambda", party.lambda());
    m.put("mixture_c", config.mixtureC());
    m.put("delta_inf", accounting.deltaInf());
    m.put("rdp_order", accounting.order());
    return m;
  }
}
