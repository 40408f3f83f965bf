package dev.helmet.bench;

import dev.helmet.core.nn.Examples;
import dev.helmet.core.nn.Mlp;
import java.util.Arrays;
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
 * One DP-SGD step's clipped gradient sum for the Skellam mixture mechanism's 784-80-10 MLP (SPEC
 * section 6) over a batch of 240 MNIST-sized inputs: batched with the per-example norm identity,
 * and, as the same run's baseline, the naive loop that forms each example's gradient, clips it and
 * adds it. Per operation: one batch.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class MlpBenchmarks {
  private static final int BATCH = 240;
  private static final int EXAMPLES = 1000;
  private static final double CLIP = 1.0;

  private final Mlp net = new Mlp(784, 80, 10);
  private Examples data;
  private double[] params;
  private int[] batch;
  private double[] out;
  private double[] one;

  @Setup
  public void setUp() {
    SplittableRandom r = new SplittableRandom(1);
    double[] x = new double[EXAMPLES * 784];
    for (int i = 0; i < x.length; i++) {
      x[i] = r.nextDouble();
    }
    int[] y = new int[EXAMPLES];
    for (int i = 0; i < EXAMPLES; i++) {
      y[i] = r.nextInt(10);
    }
    data = Examples.dense(x, y, EXAMPLES, 784, 10);
    params = net.initialise(2);
    batch = new int[BATCH];
    for (int j = 0; j < BATCH; j++) {
      batch[j] = r.nextInt(EXAMPLES);
    }
    out = new double[net.parameterCount()];
    one = new double[net.parameterCount()];
  }

  /** The batched clipped sum: one product per layer forward and two per layer backward. */
  @Benchmark
  public double clippedGradientSum() {
    Arrays.fill(out, 0);
    net.clippedGradientSum(params, data, batch, CLIP, out);
    return out[0];
  }

  /** The unclipped sum of the same batch (the non-private step), for the cost of clipping. */
  @Benchmark
  public double gradientSum() {
    Arrays.fill(out, 0);
    net.gradientSum(params, data, batch, out);
    return out[0];
  }

  /** Baseline: each example's gradient formed on its own, then clipped and added. */
  @Benchmark
  public double naivePerExampleLoop() {
    Arrays.fill(out, 0);
    int[] single = new int[1];
    for (int i : batch) {
      single[0] = i;
      Arrays.fill(one, 0);
      net.gradientSum(params, data, single, one);
      double sq = 0;
      for (double v : one) {
        sq += v * v;
      }
      double s = Math.min(1, CLIP / Math.sqrt(sq));
      for (int q = 0; q < out.length; q++) {
        out[q] += s * one[q];
      }
    }
    return out[0];
  }
}
