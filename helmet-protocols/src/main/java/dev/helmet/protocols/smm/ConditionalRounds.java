package dev.helmet.protocols.smm;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.ApproxDpAccountant;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.RdpAccountant;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.mechanism.BinomialParameters;
import dev.helmet.privacy.mechanism.ConditionalRounding;
import dev.helmet.privacy.mechanism.DdgParameters;
import dev.helmet.privacy.mechanism.RandomizedHadamard;
import dev.helmet.privacy.mechanism.SkellamParameters;
import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.RandomBits;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The baselines of the SMM paper on the same pipeline: each record's gradient clipped to L2 norm C,
 * rotated, scaled by gamma and rounded conditionally (retried until its norm meets the bound B,
 * beta = e^-0.5); each party adds discrete Gaussian noise (the distributed discrete Gaussian of
 * Kairouz, Liu and Steinke 2021, accounted with their Proposition 14 for the sum of the h honest
 * parties' shares), Skellam noise (Agarwal, Kairouz and Liu 2021) or centred binomial noise
 * (cpSGD, Agarwal et al. 2018). Each party's noise parameter is calibrated by bisection so that T
 * Poisson-subsampled rounds meet the target: with the RDP accountant (Zhu and Wang's general
 * subsampling bound), rounded up onto a grid of 2^-20, or for cpSGD, which has no Renyi curve,
 * with the (eps, delta) accountant ({@link ApproxDpAccountant}: cpSGD's Theorem 1, amplification by
 * Poisson sampling, the better of linear and advanced composition, as the SMM paper accounts it),
 * searched over each party's standard deviation and its trials rounded up to an even number.
 */
final class ConditionalRounds implements RoundMechanism {
  private static final long DEN = 1L << 20;

  /** The noise each party adds. */
  enum Noise {
    DDG("ddg", "the distributed discrete Gaussian mechanism", "exact discrete Gaussian (Canonne, Kamath, Steinke)"),
    SKELLAM("skellam", "the distributed Skellam mechanism", "exact Skellam (difference of two exact Poisson samples)"),
    BINOMIAL("cpsgd", "cpSGD's binomial mechanism", "exact centred binomial (rejection from a step envelope)");

    final String id;
    final String title;
    final String sampler;

    Noise(String id, String title, String sampler) {
      this.id = id;
      this.title = title;
      this.sampler = sampler;
    }
  }

  private final Noise kind;
  private final int honest;
  private final int padded;
  private final ConditionalRounding rounding;
  private final DdgParameters ddg;
  private final SkellamParameters skellam;
  private final BinomialParameters binomial;
  private final double clip;
  private final double gamma;

  ConditionalRounds(Noise kind, SmmConfig c, int padded, int honest, double epsilon, double delta) {
    this.kind = kind;
    this.honest = honest;
    this.padded = padded;
    this.clip = c.clip();
    this.gamma = c.gamma();
    double beta = ConditionalRounding.DEFAULT_BETA;
    DdgParameters g = null;
    SkellamParameters k = null;
    BinomialParameters n = null;
    switch (kind) {
      case DDG -> {
        // Prop. 14 needs sigma >= 1/2: the search starts there.
        double s = Calibration.noiseMultiplier(x -> sampled(c, ddg(c, beta, Math.max(0.5, x)).event(honest, padded)),
            RdpAccountant::new, epsilon, delta);
        g = ddg(c, beta, Math.max(0.5, s));
      }
      case SKELLAM -> {
        double l = Calibration.noiseMultiplier(x -> sampled(c, skellam(c, beta, x).event(honest, padded)),
            RdpAccountant::new, epsilon, delta);
        k = skellam(c, beta, l);
      }
      case BINOMIAL -> {
        // Searched over each party's standard deviation x (trials 4 x^2), so the range is ample.
        Checks.positive("epsilon", epsilon);
        Checks.openUnit("delta", delta);
        double t;
        try {
          t = Calibration.noiseMultiplier(x -> sampled(c, binomial(c, beta, x).event(honest, padded)),
              ApproxDpAccountant::new, epsilon, delta);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("cpsgd: no number of binomial trials up to 2^52 per party reaches eps "
              + epsilon + " at delta " + delta + " with gamma " + c.gamma() + " (its Theorem 1 needs noise that "
              + "grows as gamma^2): lower gamma or raise eps", e);
        }
        n = binomial(c, beta, t);
      }
      default -> throw new IllegalStateException(kind.name());
    }
    this.ddg = g;
    this.skellam = k;
    this.binomial = n;
    this.rounding = new ConditionalRounding(c.clip() * c.gamma(), padded, beta);
  }

  private static DpEvent sampled(SmmConfig c, DpEvent round) {
    DpEvent e = c.samplingRate() < 1 ? new PoissonSampledDpEvent(c.samplingRate(), round) : round;
    return c.rounds() == 1 ? e : new SelfComposedDpEvent(e, c.rounds());
  }

  private static DdgParameters ddg(SmmConfig c, double beta, double sigma) {
    return new DdgParameters(c.clip(), c.gamma(), beta, (long) Math.ceil(sigma * sigma * DEN), DEN, c.bits());
  }

  private static SkellamParameters skellam(SmmConfig c, double beta, double lambda) {
    return new SkellamParameters(c.clip(), c.gamma(), beta, (long) Math.ceil(lambda * DEN), DEN, c.bits());
  }

  /** Each party's trials for standard deviation sigma: 4 sigma^2 rounded up to an even number. */
  private static BinomialParameters binomial(SmmConfig c, double beta, double sigma) {
    return BinomialParameters.forSigma(c.clip(), c.gamma(), beta, sigma, c.bits());
  }

  @Override
  public String id() {
    return kind.id;
  }

  @Override
  public String title() {
    return kind.title;
  }

  @Override
  public String noiseSampler() {
    return kind.sampler;
  }

  @Override
  public String accountant() {
    return kind == Noise.BINOMIAL ? "approx-dp" : "rdp";
  }

  @Override
  public String subsamplingBound() {
    return kind == Noise.BINOMIAL
        ? "(eps, delta) amplification by Poisson sampling (Balle, Barthe, Gaboardi 2018), then the better of linear "
            + "and advanced composition (as the SMM paper accounts cpSGD)"
        : "general (Zhu and Wang 2019, Theorem 6)";
  }

  /** Keeps its buffers (the clipped gradient, its rotation, the rounding) from record to record. */
  @Override
  public RecordEncoder encoder() {
    return new RecordEncoder() {
      private double[] clipped = new double[0];
      private double[] rotated = new double[0];
      private long[] rounded;

      @Override
      public void addRecord(double[] gradient, RandomizedHadamard rotation, RandomBits bits, long[] acc) {
        if (clipped.length != gradient.length || rotated.length != rotation.paddedDimension()) {
          clipped = new double[gradient.length];
          rotated = new double[rotation.paddedDimension()];
          rounded = new long[rotation.paddedDimension()];
        }
        ConditionalRounding.clipRotateScaleInto(rotation, gradient, clip, gamma, clipped, rotated);
        rounding.roundInto(rotated, rounded, bits);
        for (int k = 0; k < rounded.length; k++) {
          acc[k] += rounded[k];
        }
      }
    };
  }

  @Override
  public void drawPartyNoise(long[] out, DiscreteNoise noise) {
    switch (kind) {
      case DDG -> {
        for (int j = 0; j < out.length; j++) {
          out[j] = noise.discreteGaussian(ddg.sigma2Num(), ddg.sigma2Den());
        }
      }
      case SKELLAM -> noise.fillSkellam(out, skellam.lambdaNum(), skellam.lambdaDen());
      default -> binomial.fillNoise(out, noise);
    }
  }

  @Override
  public void addPartiesNoise(long[] out, DiscreteNoise noise, int parties) {
    if (kind == Noise.DDG) {
      // A sum of discrete Gaussians is not one: draw every party's share.
      for (int j = 0; j < out.length; j++) {
        for (int p = 0; p < parties; p++) {
          out[j] += noise.discreteGaussian(ddg.sigma2Num(), ddg.sigma2Den());
        }
      }
      return;
    }
    if (kind == Noise.BINOMIAL) {
      binomial.addNoise(out, noise, parties);
      return;
    }
    // Skellam noise is closed under summation: one draw of the parties' total.
    long[] tmp = new long[out.length];
    noise.fillSkellam(tmp, Math.multiplyExact(skellam.lambdaNum(), (long) parties), skellam.lambdaDen());
    for (int j = 0; j < out.length; j++) {
      out[j] += tmp[j];
    }
  }

  @Override
  public DpEvent roundEvent() {
    return switch (kind) {
      case DDG -> ddg.event(honest, padded);
      case SKELLAM -> skellam.event(honest, padded);
      default -> binomial.event(honest, padded);
    };
  }

  @Override
  public double noiseVariance() {
    return honest * switch (kind) {
      case DDG -> ddg.sigma2();
      case SKELLAM -> 2 * skellam.lambda();
      default -> binomial.variance();
    };
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> m = new LinkedHashMap<>();
    switch (kind) {
      case DDG -> m.put("party_sigma2", ddg.sigma2());
      case SKELLAM -> m.put("party_skellam_lambda", skellam.lambda());
      default -> m.put("party_binomial_trials", binomial.trials());
    }
    m.put("rounding_bound_squared", rounding.squaredBound());
    m.put("beta", rounding.beta());
    m.put("l2_sensitivity", rounding.l2Sensitivity());
    return m;
  }
}
