package dev.helmet.bench;

import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.RandomBits;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The exact samplers on the secure generator (AES-256-CTR DRBG keyed from SecureRandom), in draws
 * per second: the discrete Gaussian at the demo's variance (sigma^2 = 556,009) and a small one,
 * the symmetric Skellam at several lambda, the centred binomial (cpSGD's noise) at the same
 * variances as the discrete Gaussian (N = 4 sigma^2: 16 and 2,224,036 trials), and the generator's
 * raw 64-bit words as the same run's ceiling.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class SamplerBenchmarks {
  private static final int DRAWS = 1000;

  /** A sampler and the discrete Gaussian's variance. */
  @State(Scope.Thread)
  public static class Gaussian {
    @Param({"4", "556009"})
    public long sigma2;

    DiscreteNoise noise;

    @Setup
    public void setUp() {
      noise = new DiscreteNoise(RandomBits.secure());
    }
  }

  /** A sampler and the Skellam's lambda. */
  @State(Scope.Thread)
  public static class Skellam {
    @Param({"10", "1000000"})
    public long lambda;

    DiscreteNoise noise;

    @Setup
    public void setUp() {
      noise = new DiscreteNoise(RandomBits.secure());
    }
  }

  /** A sampler and the binomial's trials. */
  @State(Scope.Thread)
  public static class Binomial {
    @Param({"16", "2224036"})
    public long trials;

    DiscreteNoise noise;

    @Setup
    public void setUp() {
      noise = new DiscreteNoise(RandomBits.secure());
    }
  }

  /** The generator alone. */
  @State(Scope.Thread)
  public static class Bits {
    RandomBits bits;

    @Setup
    public void setUp() {
      bits = RandomBits.secure();
    }
  }

  /** Discrete Gaussian N_Z(0, sigma2) draws. */
  @Benchmark
  @OperationsPerInvocation(DRAWS)
  public long discreteGaussian(Gaussian g) {
    long s = 0;
    for (int i = 0; i < DRAWS; i++) {
      s += g.noise.discreteGaussian(g.sigma2);
    }
    return s;
  }

  /** Symmetric Skellam Sk(lambda, lambda) draws. */
  @Benchmark
  @OperationsPerInvocation(DRAWS)
  public long skellam(Skellam k) {
    long s = 0;
    for (int i = 0; i < DRAWS; i++) {
      s += k.noise.skellam(k.lambda, 1);
    }
    return s;
  }

  /** Centred binomial Bin(trials, 1/2) - trials/2 draws. */
  @Benchmark
  @OperationsPerInvocation(DRAWS)
  public long centredBinomial(Binomial b) {
    long s = 0;
    for (int i = 0; i < DRAWS; i++) {
      s += b.noise.centredBinomial(b.trials);
    }
    return s;
  }

  /** Raw 64-bit words of the secure generator. */
  @Benchmark
  @OperationsPerInvocation(DRAWS)
  public long generatorWords(Bits b) {
    long s = 0;
    for (int i = 0; i < DRAWS; i++) {
      s ^= b.bits.nextLong();
    }
    return s;
  }
}
