package dev.helmet.experiments.sum;

import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.RdpAccountant;
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
 * Proposition 14, the distributed Skellam (Agarwal, Kairouz, Liu 2021) with its RDP bound; both by
 * the RDP accountant, each client's noise parameter calibrated by bisection (rounded up onto a grid
 * of 2^-20).
 */
final class RingBaselineSum implements SumMechanism {
  private static final long DEN = 1L << 20;
  private final boolean gaussian;

  private RingBaselineSum(boolean gaussian) {
    this.gaussian = gaussian;
  }

  static RingBaselineSum ddg() {
    return new RingBaselineSum(true);
  }

  static RingBaselineSum skellam() {
    return new RingBaselineSum(false);
  }

  @Override
  public String name() {
    return gaussian ? "ddg" : "skellam";
  }

  @Override
  public Calibrated calibrate(int n, int d, int bits, double gamma, double epsilon, double delta, long seed) {
    RandomizedHadamard rotation = new RandomizedHadamard(d, seed);
    int padded = rotation.paddedDimension();
    double beta = ConditionalRounding.DEFAULT_BETA;
    if (gaussian) {
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
