package dev.helmet.experiments.sum;

import dev.helmet.privacy.accounting.SkellamMixtureRdp.Subsampling;
import dev.helmet.privacy.accounting.SmmAccounting;
import dev.helmet.privacy.mechanism.RandomizedHadamard;
import dev.helmet.privacy.mechanism.SmmDecoder;
import dev.helmet.privacy.mechanism.SmmEncoder;
import dev.helmet.privacy.mechanism.SmmParameters;
import dev.helmet.privacy.noise.RandomBits;

/**
 * The Skellam mixture mechanism for one sum: c = gamma^2 (unit L2 sensitivity after scaling), the
 * total lambda for n clients from {@link SmmAccounting} (one unsampled release), each client's
 * share rounded up to a multiple of 2^-20.
 */
final class SmmSum implements SumMechanism {
  @Override
  public String name() {
    return "smm";
  }

  @Override
  public Calibrated calibrate(int n, int d, int bits, double gamma, double epsilon, double delta, long seed) {
    SmmAccounting.Result r = SmmAccounting.calibrate(new SmmAccounting.Params(1, gamma * gamma, 1, 1, delta,
        Subsampling.GENERAL), epsilon);
    long den = 1L << 20;
    long num = (long) Math.ceil(r.event().lambda() / n * den);
    SmmParameters p = new SmmParameters(gamma, gamma * gamma, r.deltaInf(), num, den, bits);
    RandomizedHadamard rotation = new RandomizedHadamard(d, seed);
    SmmDecoder decoder = new SmmDecoder(rotation, p);
    return new Calibrated() {
      @Override
      public long[] encode(double[] x, RandomBits random) {
        return new SmmEncoder(rotation, p, random).encode(x);
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
        return String.format(java.util.Locale.ROOT, "lambda %.4g per client, Delta_inf %d (order %d)", p.lambda(),
            r.deltaInf(), r.order());
      }
    };
  }
}
