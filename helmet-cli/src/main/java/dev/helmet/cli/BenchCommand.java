package dev.helmet.cli;

import dev.helmet.protocols.shared.CommonDefaults;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.linalg.Blas;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.protocols.helmet.BlindAveraging;
import dev.helmet.protocols.helmet.HelmetDefaults;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code helmet bench}: throughput measurements (not unit tests: the machines are shared and noisy). */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks.",
    subcommands = {BenchCommand.Train.class, SecAggBench.class, NetworkBench.class, MixnetBench.class})
final class BenchCommand extends GroupCommand {

  /**
   * Local training throughput in examples x epochs per second, single-threaded, on dense synthetic
   * data (the embedding case) and on MNIST pixels (sparse and dense rows), as a fraction of this
   * core's roofline measured in the same run ({@link Roofline}: register-only FMAs, and the SGD
   * step's own matrix products with the trainer's kernels); the speedup of training the same
   * parties on all threads; and the wall time of the demo's local training (1000 parties x 60
   * MNIST images, all threads). JSON keys of earlier versions are kept; the dot and axpy
   * "baselines" now use the vectorised kernels.
   */
  @Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false,
      description = "Local training throughput (examples x epochs per second) and where the time goes.")
  static final class Train implements Callable<Integer> {
    @Option(names = "--dims", split = ",", defaultValue = "785,6145",
        description = "Input dimensions including the intercept. Default: ${DEFAULT-VALUE}.")
    List<Integer> dims;

    @Option(names = "--learners", split = ",", defaultValue = "softmax,svm,logreg",
        description = "Learners. Default: ${DEFAULT-VALUE}.")
    List<String> learners;

    @Option(names = "--classes", defaultValue = "10", description = "Classes. Default: ${DEFAULT-VALUE}.")
    int classes;

    @Option(names = "--examples", defaultValue = "60", description = "Local examples per party. Default: ${DEFAULT-VALUE}.")
    int examples;

    @Option(names = "--parties", defaultValue = "100",
        description = "Parties trained per measurement (single thread). Default: ${DEFAULT-VALUE}.")
    int parties;

    @Option(names = "--epochs", defaultValue = "20", description = "Epochs. Default: ${DEFAULT-VALUE}.")
    int epochs;

    @Option(names = "--threads", paramLabel = "N",
        description = "Threads for the scaling measurement (parties in parallel). Default: the number of processors.")
    Integer threads;

    @Option(names = "--demo", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Also time the demo's local training and MNIST's sparse rows. Default: on.")
    boolean demo;

    @Option(names = "--cache-dir", paramLabel = "DIR", description = "Default: $HELMET_CACHE or ~/.cache/helmet.")
    Path cacheDir;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      ObjectNode j = Json.object();
      double[] base = baseline();
      j.put("baseline_dot_gflops", base[0]);
      j.put("baseline_axpy_gflops", base[1]);
      j.put("kernels", Blas.implementation());
      double fma = Roofline.fmaPeak();
      j.put("roofline_fma_gflops", fma);
      int batch = HelmetDefaults.BATCH_SIZE;
      j.put("batch_size", batch);
      int nThreads = threads != null ? threads : Runtime.getRuntime().availableProcessors();
      j.put("threads", nThreads);
      ArrayNode rows = j.putArray("results");
      if (!json) {
        out.printf("kernels: %s; batch %d; single thread unless said%n", Blas.implementation(), batch);
        out.printf("roofline (same run): register-only FMA %.1f GFLOP/s; dense dot %.2f, axpy %.2f GFLOP/s%n",
            fma, base[0], base[1]);
        out.printf("%-8s %-15s %5s %12s %8s %8s %6s %6s %7s%n", "learner", "data", "dims", "ex*epochs/s",
            "GFLOP/s", "gemm", "%gemm", "%fma", "x" + nThreads + "thr");
      }
      Preprocessing pre = CommonDefaults.preprocessing();
      for (String l : learners) {
        LearnerKind kind = LearnerKind.parse(l);
        for (int d : dims) {
          Dataset ds = synthetic(d - 1, classes, examples * parties, 7);
          measure(rows, out, kind, "dense-synthetic", ds, pre, fma, base, nThreads, false);
        }
      }
      if (demo) {
        BuiltinDataset.TrainTest mnist = BuiltinDataset.MNIST.load(cacheDir != null ? cacheDir : BuiltinDataset.defaultCache());
        Dataset sample = mnist.train().subset(range(examples * parties), "mnist");
        for (String l : learners) {
          measure(rows, out, LearnerKind.parse(l), "mnist-sparse", sample, pre, fma, base, nThreads, true);
          measure(rows, out, LearnerKind.parse(l), "mnist-dense", sample, pre, fma, base, nThreads, false);
        }
        Partition part = new PartitionStrategy.Iid(DemoCommand.PARTIES, DemoCommand.PER_PARTY)
            .split(mnist.train(), new SplittableRandom(1));
        long t0 = System.nanoTime();
        BlindAveraging.trainLocal(mnist.train(), part, pre, HelmetDefaults.learner(LearnerKind.SOFTMAX), 1, nThreads,
            Progress.NONE);
        double secs = (System.nanoTime() - t0) / 1e9;
        j.put("demo_training_seconds", secs);
        j.put("demo_threads", nThreads);
        if (!json) {
          out.printf("demo local training (1000 x 60 MNIST, softmax, %d epochs, %d threads): %.1f s%n",
              dev.helmet.protocols.shared.LearnerDefaults.epochs(LearnerKind.SOFTMAX), nThreads, secs);
        }
      }
      if (json) {
        out.println(Json.print(j));
      }
      out.flush();
      return Main.OK;
    }

    private void measure(ArrayNode rows, PrintWriter out, LearnerKind kind, String name, Dataset ds,
        Preprocessing pre, double fma, double[] base, int nThreads, boolean sparse) {
      int d = ds.dimension() + 1;
      Learner learner = new Learner(
          HelmetDefaults.learner(kind).withEpochs(epochs), pre.inputNormBound(), ds.dimension(), ds.numClasses());
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
      Parallel.forEach(nThreads, parties, p -> learner.train(locals[p], new SplittableRandom(p)));
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
      double gemm = Roofline.stepGemm(Math.min(HelmetDefaults.BATCH_SIZE, examples), d, rowsOut);
      double flops = 4.0 * rowsOut * d * parties * examples * epochs; // dense-equivalent: scores + update
      double gflops = flops / secs / 1e9;
      ObjectNode r = rows.addObject();
      r.put("learner", kind.id());
      r.put("data", name);
      r.put("dims", d);
      r.put("examples_epochs_per_second", exPerSec);
      r.put("dense_equivalent_gflops", gflops);
      r.put("ratio_to_baseline_dot", gflops / base[0]);
      r.put("dot_share", dotSecs / secs);
      r.put("axpy_share", axpySecs / secs);
      r.put("sink", sink == 42 ? 1 : 0);
      r.put("step_gemm_gflops", gemm);
      r.put("fraction_of_step_gemm", gflops / gemm);
      r.put("fraction_of_fma_peak", fma > 0 ? gflops / fma : 0);
      r.put("thread_speedup", secs / parSecs);
      if (!json) {
        out.printf("%-8s %-15s %5d %12.0f %8.2f %8.2f %5.0f%% %5.0f%% %6.2fx%n", kind.id(), name, d, exPerSec,
            gflops, gemm, 100 * gflops / gemm, fma > 0 ? 100 * gflops / fma : 0, secs / parSecs);
        out.flush();
      }
    }

    private static int[] range(int n) {
      int[] a = new int[n];
      for (int i = 0; i < n; i++) {
        a[i] = i;
      }
      return a;
    }

    /** Dense and axpy rates of this machine, single thread, measured now. */
    static double[] baseline() {
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
    static Dataset synthetic(int features, int classes, int rows, long seed) {
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
}
