package dev.helmet.bench;

import dev.helmet.privacy.mechanism.ConditionalRounding;
import dev.helmet.privacy.mechanism.MixtureClip;
import dev.helmet.privacy.mechanism.RandomizedHadamard;
import dev.helmet.privacy.mechanism.StochasticRounding;
import dev.helmet.privacy.noise.RandomBits;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-record work of the SMM family's encoders at the paper's shape (the 784-80-10 MLP's
 * 63,610 parameters padded to D = 65,536, b = 8, gamma = 64, clip 1), in microseconds per record:
 * the exact stochastic rounding of D values, the randomized Hadamard rotation (Vector API, and the
 * plain-Java path in a JVM with {@code -Dhelmet.scalarKernels=true}), SMM's mixture clip, and the
 * distributed discrete Gaussian's conditional rounding (repeated until the norm bound holds), and a
 * whole record through SMM's encoder. Baseline in the same run:
 * D words from the generator, the bits the rounding read per value before it read a byte.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class SmmBenchmarks {
  static final int PARAMETERS = 63_610;
  static final double GAMMA = 64;

  /** A record's rotated, scaled gradient (norm gamma), its raw gradient, and the generator. */
  @State(Scope.Thread)
  public static class Record {
    RandomizedHadamard rotation;
    double[] gradient;
    double[] scaled;
    long[] out;
    RandomBits bits;
    ConditionalRounding conditional;
    double[] rotated;
    double[] clipped;
    long[] acc;

    @Setup
    public void setUp() {
      SplittableRandom r = new SplittableRandom(1);
      gradient = new double[PARAMETERS];
      for (int j = 0; j < PARAMETERS; j++) {
        gradient[j] = r.nextGaussian();
      }
      gradient = ConditionalRounding.clipL2(gradient, 1.0);
      rotation = new RandomizedHadamard(PARAMETERS, 7);
      scaled = ConditionalRounding.clipRotateScale(rotation, gradient, 1.0, GAMMA);
      out = new long[scaled.length];
      bits = RandomBits.secure();
      conditional = new ConditionalRounding(GAMMA, scaled.length, ConditionalRounding.DEFAULT_BETA);
      rotated = new double[scaled.length];
      clipped = new double[scaled.length];
      acc = new long[scaled.length];
    }
  }

  /** Exact stochastic rounding of D values (SMM's rounding; one attempt of the conditional one). */
  @Benchmark
  public long[] stochasticRounding(Record s) {
    StochasticRounding.roundAll(s.scaled, s.out, s.bits);
    return s.out;
  }

  /** Baseline: D 64-bit words from the same generator. */
  @Benchmark
  public long generatorWords(Record s) {
    long x = 0;
    for (int j = 0; j < s.scaled.length; j++) {
      x += s.bits.nextLong();
    }
    return x;
  }

  /** The rotation H D_xi x / sqrt(D) of one gradient (a new array of D values). */
  @Benchmark
  public double[] rotate(Record s) {
    return s.rotation.rotate(s.gradient);
  }

  /** The same on the plain-Java kernels. */
  @Benchmark
  @Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Dhelmet.scalarKernels=true"})
  public double[] rotatePlainJava(Record s) {
    return s.rotation.rotate(s.gradient);
  }

  /** SMM's mixture clip of one rotated, scaled gradient (c = gamma^2, Delta_inf = 2^b / 4). */
  @Benchmark
  public double[] mixtureClip(Record s) {
    return MixtureClip.clip(s.scaled, GAMMA * GAMMA, 64);
  }

  /**
   * One record through SMM's whole encoder, as a party's batch runs it (buffers kept between
   * records): rotate, scale by gamma, mixture clip, exact stochastic rounding added to the sum.
   */
  @Benchmark
  public long[] smmRecord(Record s) {
    s.rotation.rotateInto(s.gradient, s.rotated);
    for (int k = 0; k < s.rotated.length; k++) {
      s.rotated[k] *= GAMMA;
    }
    MixtureClip.clipInto(s.rotated, GAMMA * GAMMA, 64, s.clipped);
    StochasticRounding.addRounded(s.clipped, s.acc, s.bits);
    return s.acc;
  }

  /** The distributed discrete Gaussian's conditional rounding of one rotated, scaled gradient. */
  @Benchmark
  public long[] conditionalRounding(Record s) {
    return s.conditional.round(s.scaled, s.bits);
  }
}
