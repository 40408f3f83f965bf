package dev.helmet.experiments.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.SmoothnessBound;
import dev.helmet.core.linalg.Blas;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import dev.helmet.protocols.shared.CommonDefaults;
import dev.helmet.protocols.simulation.Simulation;
import java.util.SplittableRandom;

/**
 * Local training throughput in examples x epochs per second, single-threaded, on dense synthetic
 * data (the embedding case) and on MNIST pixels (sparse and dense rows), as a fraction of this
 * core's roofline measured in the same run ({@link Roofline}: register-only FMAs, and the SGD
 * step's own matrix products with the trainer's kernels); the speedup of training the same parties
 * on all threads; and the wall time of the demo's local training through the default algorithm's
 * own preparation ({@link Simulation#prepare}).
 */
public final class TrainingBench {
  private TrainingBench() {}

  /**
   * The local mini-batch size the measurements train with: the default algorithm's (helmet's
   * learner default, docs/defaults.md), fixed here so that the benchmark's numbers mean the same
   * from one version to the next.
   */
  public static final int BATCH_SIZE = 5;

  /**
   * The learner settings the kernel measurements train with: the default algorithm's Lambda and R
   * per learner (docs/defaults.md), the tight smoothness bound and the default Huber width. The
   * throughput hardly depends on Lambda and R; they are given so the steps are the real ones.
   */
  public static LearnerConfig learner(LearnerKind kind, int epochs) {
    double lambda = switch (kind) {
      case SOFTMAX, MLP -> 0.5;
      case SVM -> 2;
      case LOGREG, LINREG -> 1;
    };
    double radius = switch (kind) {
      case SOFTMAX, MLP -> 2;
      case SVM -> 0.5;
      case LOGREG, LINREG -> 1;
    };
    return new LearnerConfig(kind, lambda, radius, epochs, BATCH_SIZE, SmoothnessBound.TIGHT,
        LearnerConfig.DEFAULT_HUBER_H);
  }

  /**
   * One measurement.
   *
   * @param dims input dimension including the intercept
   * @param examplesEpochsPerSecond the single-threaded training rate
   * @param gflops dense-equivalent GFLOP/s (scores and update)
   * @param dotShare the per-example dot products' time as a fraction of the training time
   * @param axpyShare the per-example axpys' time, likewise
   * @param sink 1 if the kernels' sink happened to be 42 (keeps the JIT from removing them), else 0
   * @param stepGemm GFLOP/s of the same run's GEMM of the step's own shape
   * @param fmaPeak the same run's register-only FMA rate (0 without the Vector API)
   * @param threadSpeedup single-threaded time over the time on all threads
   */
  public record Row(LearnerKind kind, String data, int dims, double examplesEpochsPerSecond, double gflops,
      double baselineDot, double dotShare, double axpyShare, int sink, double stepGemm, double fmaPeak,
      double threadSpeedup) {}

  /**
   * Trains {@code parties} parties of {@code examples} rows each of {@code ds} for {@code epochs}
   * epochs, single-threaded after a warm-up, then on {@code threads} threads, and times the
   * per-example kernels alone and the step's GEMM.
   *
   * @param base {@link #baseline()}'s dot and axpy rates
   * @param sparse whether the rows are kept sparse
   */
  public static Row measure(LearnerKind kind, String name, Dataset ds, Preprocessing pre, int parties, int examples,
      int epochs, double fma, double[] base, int threads, boolean sparse) {
    int d = ds.dimension() + 1;
    Learner learner = new Learner(learner(kind, epochs), pre.inputNormBound(), ds.dimension(), ds.numClasses());
    DesignMatrix[] locals = new DesignMatrix[parties];
    for (int p = 0; p < parties; p++) {
      int[] idx = new int[examples];
      for (int i = 0; i < examples; i++) {
        idx[i] = p * examples + i;
      }
      locals[p] = pre.design(ds, idx, sparse);
    }
    // Warm up the JIT on a few parties, then time all of them.
    for (int p = 0; p < Math.min(10, parties); p++) {
      learner.train(locals[p], new SplittableRandom(p));
    }
    long t0 = System.nanoTime();
    for (int p = 0; p < parties; p++) {
      learner.train(locals[p], new SplittableRandom(p));
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    // The same parties on every thread: each party's model is its own (nothing to share between
    // parties' products), so threads take parties.
    long t1 = System.nanoTime();
    Parallel.forEach(threads, parties, p -> learner.train(locals[p], new SplittableRandom(p)));
    double parSecs = (System.nanoTime() - t1) / 1e9;
    double exPerSec = (double) parties * examples * epochs / secs;
    int rowsOut = learner.outputRows();
    // The per-example kernels alone (the trainer's earlier shape, kept for the JSON's dot_share and
    // axpy_share): K dot products and K axpys per example.
    double[] w = new double[rowsOut * d];
    long td = System.nanoTime();
    double sink = 0;
    for (int e = 0; e < epochs; e++) {
      for (DesignMatrix m : locals) {
        for (int i = 0; i < m.rows(); i++) {
          for (int k = 0; k < rowsOut; k++) {
            sink += m.dot(i, w, k * d);
          }
        }
      }
    }
    double dotSecs = (System.nanoTime() - td) / 1e9;
    long ta = System.nanoTime();
    for (int e = 0; e < epochs; e++) {
      for (DesignMatrix m : locals) {
        for (int i = 0; i < m.rows(); i++) {
          for (int k = 0; k < rowsOut; k++) {
            m.axpy(i, 1e-9, w, k * d);
          }
        }
      }
    }
    double axpySecs = (System.nanoTime() - ta) / 1e9;
    // The same run's GEMM of the step's own shape (batch x dims x output rows, scores and update).
    double gemm = Roofline.stepGemm(Math.min(BATCH_SIZE, examples), d, rowsOut);
    double flops = 4.0 * rowsOut * d * parties * examples * epochs; // dense-equivalent: scores + update
    double gflops = flops / secs / 1e9;
    return new Row(kind, name, d, exPerSec, gflops, base[0], dotSecs / secs, axpySecs / secs, sink == 42 ? 1 : 0,
        gemm, fma, secs / parSecs);
  }

  /**
   * The demo's local training: the default algorithm ({@link Algorithms#DEFAULT}'s registered
   * name, with its default settings for {@code train}'s shape) prepares every party of {@code
   * parties} x {@code perParty} rows of {@code train}, on {@code threads} threads, as a session's
   * parties do before round 0.
   *
   * @param seconds the wall time
   * @param epochs the local epochs the algorithm trained (from its settings)
   */
  public record DemoTraining(double seconds, int epochs) {}

  /** Times {@link DemoTraining}. */
  public static DemoTraining demoTraining(Dataset train, int parties, int perParty, int threads) {
    Algorithm a = Algorithms.named(Algorithms.DEFAULT);
    Common common = new Common(CommonDefaults.EPSILON, CommonDefaults.DELTA, CommonDefaults.HONEST_FRACTION,
        Protection.record(), 0, train.dimension(), train.numClasses(), (long) parties * perParty);
    AlgorithmSpec spec = a.configure(new StrictNode("bench train", JsonNodeFactory.instance.objectNode(),
        IllegalArgumentException::new), common);
    Partition part = new PartitionStrategy.Iid(parties, perParty).split(train, new SplittableRandom(1));
    long t0 = System.nanoTime();
    Simulation.prepare(spec, train, part, 1, threads, Progress.NONE);
    double secs = (System.nanoTime() - t0) / 1e9;
    return new DemoTraining(secs, spec.toConfig().path("learner").path("epochs").asInt());
  }

  /** Dense and axpy rates of this machine, single thread, measured now. */
  public static double[] baseline() {
    int n = 6145;
    double[] a = new double[n];
    double[] b = new double[n];
    SplittableRandom r = new SplittableRandom(1);
    for (int i = 0; i < n; i++) {
      a[i] = r.nextDouble();
      b[i] = r.nextDouble();
    }
    double sink = 0;
    int reps = 100_000;
    for (int i = 0; i < reps / 5; i++) {
      sink += Blas.dot(a, 0, b, 0, n);
      Blas.axpy(1e-12, a, 0, b, 0, n);
    }
    long t0 = System.nanoTime();
    for (int i = 0; i < reps; i++) {
      sink += Blas.dot(a, 0, b, 0, n);
    }
    double dot = 2.0 * n * reps / ((System.nanoTime() - t0) / 1e9) / 1e9;
    long t1 = System.nanoTime();
    for (int i = 0; i < reps; i++) {
      Blas.axpy(1e-12, a, 0, b, 0, n);
    }
    double axpy = 2.0 * n * reps / ((System.nanoTime() - t1) / 1e9) / 1e9;
    return new double[] {dot, axpy + (sink == 42 ? 1e-12 : 0)};
  }

  /** Dense Gaussian features with random labels: the shape of real embeddings. */
  public static Dataset synthetic(int features, int classes, int rows, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] f = new float[rows * features];
    int[] y = new int[rows];
    for (int i = 0; i < f.length; i++) {
      f[i] = (float) r.nextGaussian();
    }
    for (int i = 0; i < rows; i++) {
      y[i] = r.nextInt(classes);
    }
    return new Dataset("synthetic", f, y, features, LabelSet.ofIntegers(classes), null);
  }
}
