package dev.helmet.experiments.sum;

import dev.helmet.privacy.accounting.ApproxDpAccountant;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.RdpAccountant;
import dev.helmet.privacy.mechanism.BinomialEncoder;
import dev.helmet.privacy.mechanism.BinomialParameters;
import dev.helmet.privacy.mechanism.ConditionalRounding;
import dev.helmet.privacy.mechanism.DdgEncoder;
import dev.helmet.privacy.mechanism.DdgParameters;
import dev.helmet.privacy.mechanism.RandomizedHadamard;
import dev.helmet.privacy.mechanism.RoundedSumDecoder;
import dev.helmet.privacy.mechanism.SkellamEncoder;
import dev.helmet.privacy.mechanism.SkellamParameters;
import dev.helmet.privacy.noise.RandomBits;
import java.util.Locale;

/**
 * The distributed baselines of the sum experiment: clip to L2 norm 1, rotate, scale by gamma,
 * round conditionally (beta = e^-0.5), add each client's share of the noise, reduce modulo 2^b.
 * The distributed discrete Gaussian (Kairouz, Liu, Steinke 2021) is accounted with their
 * Proposition 14, the distributed Skellam (Agarwal, Kairouz, Liu 2021) with its RDP bound, both by
 * the RDP accountant, each client's noise parameter calibrated by bisection (rounded up onto a grid
 * of 2^-20); cpSGD's binomial mechanism (Agarwal et al. 2018) by its Theorem 1 ({@link
 * ApproxDpAccountant}), each client's standard deviation calibrated by bisection, its trials 4 sigma^2
 * rounded up to an even number.
 */
final class RingBaselineSum implements SumMechanism {
  private static final long DEN = 1L << 20;
  private final String name;

  private RingBaselineSum(String name) {
    this.name = name;
  }

  static RingBaselineSum ddg() {
    return new RingBaselineSum("ddg");
  }

  static RingBaselineSum skellam() {
    return new RingBaselineSum("skellam");
  }

  static RingBaselineSum cpsgd() {
    return new RingBaselineSum("cpsgd");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Calibrated calibrate(int n, int d, int bits, double gamma, double epsilon, double delta, long seed) {
    RandomizedHadamard rotation = new RandomizedHadamard(d, seed);
    int padded = rotation.paddedDimension();
    double beta = ConditionalRounding.DEFAULT_BETA;
    if (name.equals("cpsgd")) {
      double t = Calibration.noiseMultiplier(x -> binomial(gamma, beta, x, bits).event(n, padded),
          ApproxDpAccountant::new, epsilon, delta);
      BinomialParameters p = binomial(gamma, beta, t, bits);
      RoundedSumDecoder decoder = RoundedSumDecoder.of(rotation, p);
      return calibrated(bits, decoder, (x, r) -> new BinomialEncoder(rotation, p, r).encode(x),
          String.format(Locale.ROOT, "%d binomial trials per client", p.trials()));
    }
    if (name.equals("ddg")) {
      // sigma^2 below 1/4 is outside Prop. 14: the search starts at sigma = 1/2.
      double s = Calibration.noiseMultiplier(x -> ddg(gamma, beta, Math.max(0.5, x), bits).event(n, padded),
          RdpAccountant::new, epsilon, delta);
      DdgParameters p = ddg(gamma, beta, Math.max(0.5, s), bits);
      RoundedSumDecoder decoder = RoundedSumDecoder.of(rotation, p);
      return calibrated(bits, decoder, (x, r) -> new DdgEncoder(rotation, p, r).encode(x),
          String.format(Locale.ROOT, "sigma^2 %.4g per client", p.sigma2()));
    }
    double l = Calibration.noiseMultiplier(x -> skellam(gamma, beta, x, bits).event(n, padded), RdpAccountant::new,
        epsilon, delta);
    SkellamParameters p = skellam(gamma, beta, l, bits);
    RoundedSumDecoder decoder = RoundedSumDecoder.of(rotation, p);
    return calibrated(bits, decoder, (x, r) -> new SkellamEncoder(rotation, p, r).encode(x),
        String.format(Locale.ROOT, "lambda %.4g per client", p.lambda()));
  }

  private static DdgParameters ddg(double gamma, double beta, double sigma, int bits) {
    return new DdgParameters(1, gamma, beta, (long) Math.ceil(sigma * sigma * DEN), DEN, bits);
  }

  /** Each client's trials for standard deviation sigma (the search runs over sigma). */
  private static BinomialParameters binomial(double gamma, double beta, double sigma, int bits) {
    return BinomialParameters.forSigma(1, gamma, beta, sigma, bits);
  }

  private static SkellamParameters skellam(double gamma, double beta, double lambda, int bits) {
    return new SkellamParameters(1, gamma, beta, (long) Math.ceil(lambda * DEN), DEN, bits);
  }

  private interface Encode {
    long[] apply(double[] x, RandomBits r);
  }

  private static Calibrated calibrated(int bits, RoundedSumDecoder decoder, Encode encode, String describe) {
    return new Calibrated() {
      @Override
      public long[] encode(double[] x, RandomBits random) {
        return encode.apply(x, random);
      }

      @Override
      public double[] decode(long[] sum) {
        return decoder.decode(sum);
      }

      @Override
      public int bits() {
        return bits;
      }

      @Override
      public String describe() {
        return describe;
      }
    };
  }
}
