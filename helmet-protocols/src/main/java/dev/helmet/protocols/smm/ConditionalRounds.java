package dev.helmet.protocols.smm;

import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.RdpAccountant;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
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
 * parties' shares) or Skellam noise (Agarwal, Kairouz and Liu 2021). Each party's noise parameter
 * is calibrated by bisection so that T Poisson-subsampled rounds meet the target with the RDP
 * accountant (Zhu and Wang's general subsampling bound), then rounded up onto a grid of 2^-20.
 */
final class ConditionalRounds implements RoundMechanism {
  private static final long DEN = 1L << 20;

  private final boolean gaussian;
  private final int honest;
  private final int padded;
  private final ConditionalRounding rounding;
  private final DdgParameters ddg;
  private final SkellamParameters skellam;
  private final double clip;
  private final double gamma;

  ConditionalRounds(boolean gaussian, SmmConfig c, int padded, int honest, double epsilon, double delta) {
    this.gaussian = gaussian;
    this.honest = honest;
    this.padded = padded;
    this.clip = c.clip();
    this.gamma = c.gamma();
    double beta = ConditionalRounding.DEFAULT_BETA;
    if (gaussian) {
      // Prop. 14 needs sigma >= 1/2: the search starts there.
      double s = Calibration.noiseMultiplier(x -> sampled(c, ddg(c, beta, Math.max(0.5, x)).event(honest, padded)),
          RdpAccountant::new, epsilon, delta);
      this.ddg = ddg(c, beta, Math.max(0.5, s));
      this.skellam = null;
      this.rounding = ddg.rounding(padded);
    } else {
      double l = Calibration.noiseMultiplier(x -> sampled(c, skellam(c, beta, x).event(honest, padded)),
          RdpAccountant::new, epsilon, delta);
      this.ddg = null;
      this.skellam = skellam(c, beta, l);
      this.rounding = skellam.rounding(padded);
    }
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

  @Override
  public String id() {
    return gaussian ? "ddg" : "skellam";
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
    if (gaussian) {
      for (int j = 0; j < out.length; j++) {
        out[j] = noise.discreteGaussian(ddg.sigma2Num(), ddg.sigma2Den());
      }
    } else {
      noise.fillSkellam(out, skellam.lambdaNum(), skellam.lambdaDen());
    }
  }

  @Override
  public void addPartiesNoise(long[] out, DiscreteNoise noise, int parties) {
    if (gaussian) {
      // A sum of discrete Gaussians is not one: draw every party's share.
      for (int j = 0; j < out.length; j++) {
        for (int p = 0; p < parties; p++) {
          out[j] += noise.discreteGaussian(ddg.sigma2Num(), ddg.sigma2Den());
        }
      }
    } else {
      long[] tmp = new long[out.length];
      noise.fillSkellam(tmp, Math.multiplyExact(skellam.lambdaNum(), (long) parties), skellam.lambdaDen());
      for (int j = 0; j < out.length; j++) {
        out[j] += tmp[j];
      }
    }
  }

  @Override
  public DpEvent roundEvent() {
    return gaussian ? ddg.event(honest, padded) : skellam.event(honest, padded);
  }

  @Override
  public double noiseVariance() {
    return honest * (gaussian ? ddg.sigma2() : 2 * skellam.lambda());
  }

  @Override
  public Map<String, Object> details() {
    Map<String, Object> m = new LinkedHashMap<>();
    if (gaussian) {
      m.put("party_sigma2", ddg.sigma2());
    } else {
      m.put("party_skellam_lambda", skellam.lambda());
    }
    m.put("rounding_bound_squared", rounding.squaredBound());
    m.put("beta", rounding.beta());
    m.put("l2_sensitivity", rounding.l2Sensitivity());
    return m;
  }
}
