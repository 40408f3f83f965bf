package dev.helmet.bench;

import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Whole in-process SecAgg+ rounds (every party's key agreement, signatures, Shamir shares, mask
 * expansion, and the server's unmasking), one thread, with the plain sum of the same inputs as the
 * same run's baseline. Per operation: one round. {@code bench secagg} runs the large shapes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class SecAggBenchmarks {
  @Param({"200"})
  public int parties;

  @Param({"10000"})
  public int params;

  @Param({"0", "0.1"})
  public double dropout;

  private SecureSummation secAgg;
  private SummationSpec spec;
  private IntFunction<long[]> inputs;

  @Setup
  public void setUp() {
    FixedPointEncoding enc = new FixedPointEncoding(32, 0);
    long mask = enc.mask();
    inputs = i -> {
      SplittableRandom r = new SplittableRandom(i);
      long[] x = new long[params];
      for (int j = 0; j < params; j++) {
        x[j] = r.nextLong() & mask;
      }
      return x;
    };
    int min = parties - (int) Math.floor(dropout * parties);
    DropoutPlan plan = dropout > 0 ? DropoutPlan.random(dropout, 2, 1) : DropoutPlan.NONE;
    secAgg = new InProcessSecAgg(InProcessSecAgg.Variant.SECAGG_PLUS, InProcessSecAgg.DROPOUTS_FROM_THRESHOLD, plan, 1);
    spec = new SummationSpec(parties, params, enc, min);
  }

  /** One SecAgg+ round. */
  @Benchmark
  public Object secAggPlusRound() {
    return secAgg.run(spec, inputs);
  }

  /** The plain sum of the same inputs. */
  @Benchmark
  public Object plainSum() {
    return new PlainSummation().run(spec, inputs);
  }
}
