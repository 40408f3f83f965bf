package dev.helmet.bench;

import dev.helmet.core.linalg.Blas;
import dev.helmet.core.linalg.ScalarReference;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
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
 * The SGD step's matrix products (the scores of a batch against every model row, then the update
 * of every row), with the Vector API kernels and, as the same run's baseline, the plain-Java
 * kernels that give the same bits. Per operation: one step of a batch of 5 and 10 classes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class KernelBenchmarks {
  @Param({"785", "6145"})
  public int dims;

  private static final int BATCH = 5;
  private static final int CLASSES = 10;

  private double[] x;
  private int[] rows;
  private double[] w;
  private double[] scores;
  private double[] coef;

  @Setup
  public void setUp() {
    SplittableRandom r = new SplittableRandom(1);
    x = new double[BATCH * dims];
    for (int i = 0; i < x.length; i++) {
      x[i] = r.nextGaussian() * 0.01;
    }
    rows = new int[BATCH];
    for (int j = 0; j < BATCH; j++) {
      rows[j] = j * dims;
    }
    w = new double[CLASSES * dims];
    scores = new double[BATCH * CLASSES];
    coef = new double[BATCH * CLASSES];
    for (int i = 0; i < coef.length; i++) {
      coef[i] = r.nextGaussian() * 1e-6;
    }
  }

  /** One SGD step's products with the Vector API kernels ({@code 4 x 5 x 10 x dims} flops). */
  @Benchmark
  public double stepProducts() {
    Blas.productNT(x, rows, BATCH, w, 0, CLASSES, dims, scores, CLASSES);
    Blas.accumulateTN(coef, CLASSES, x, rows, BATCH, w, 0, CLASSES, dims);
    return scores[0];
  }

  /** The same step with the plain-Java kernels (same bits): the same run's baseline. */
  @Benchmark
  public double stepProductsPlainJava() {
    ScalarReference.productNT(x, rows, BATCH, w, 0, CLASSES, dims, scores, CLASSES);
    ScalarReference.accumulateTN(coef, CLASSES, x, rows, BATCH, w, 0, CLASSES, dims);
    return scores[0];
  }

}
