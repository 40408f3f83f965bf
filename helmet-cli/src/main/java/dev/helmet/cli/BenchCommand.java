package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.linalg.Blas;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.experiments.bench.Roofline;
import dev.helmet.experiments.bench.TrainingBench;
import dev.helmet.protocols.shared.CommonDefaults;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code helmet bench}: throughput measurements (not unit tests: the machines are shared and noisy). */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks.",
    subcommands = {BenchCommand.Train.class, SecAggBench.class, NetworkBench.class, MixnetBench.class})
final class BenchCommand extends GroupCommand {

  /**
   * Local training throughput ({@link TrainingBench}: examples x epochs per second against this
   * core's {@link Roofline}, the thread speedup, and the demo's local training, 1000 parties x 60
   * MNIST images on all threads), printed or as JSON. JSON keys of earlier versions are kept; the
   * dot and axpy "baselines" now use the vectorised kernels.
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
      double[] base = TrainingBench.baseline();
      j.put("baseline_dot_gflops", base[0]);
      j.put("baseline_axpy_gflops", base[1]);
      j.put("kernels", Blas.implementation());
      double fma = Roofline.fmaPeak();
      j.put("roofline_fma_gflops", fma);
      int batch = TrainingBench.BATCH_SIZE;
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
          Dataset ds = TrainingBench.synthetic(d - 1, classes, examples * parties, 7);
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
        TrainingBench.DemoTraining t = TrainingBench.demoTraining(mnist.train(), DemoCommand.PARTIES,
            DemoCommand.PER_PARTY, nThreads);
        j.put("demo_training_seconds", t.seconds());
        j.put("demo_threads", nThreads);
        if (!json) {
          out.printf("demo local training (1000 x 60 MNIST, softmax, %d epochs, %d threads): %.1f s%n",
              t.epochs(), nThreads, t.seconds());
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
      TrainingBench.Row m = TrainingBench.measure(kind, name, ds, pre, parties, examples, epochs, fma, base, nThreads,
          sparse);
      double gflops = m.gflops();
      double gemm = m.stepGemm();
      ObjectNode r = rows.addObject();
      r.put("learner", kind.id());
      r.put("data", name);
      r.put("dims", m.dims());
      r.put("examples_epochs_per_second", m.examplesEpochsPerSecond());
      r.put("dense_equivalent_gflops", gflops);
      r.put("ratio_to_baseline_dot", gflops / base[0]);
      r.put("dot_share", m.dotShare());
      r.put("axpy_share", m.axpyShare());
      r.put("sink", m.sink());
      r.put("step_gemm_gflops", gemm);
      r.put("fraction_of_step_gemm", gflops / gemm);
      r.put("fraction_of_fma_peak", fma > 0 ? gflops / fma : 0);
      r.put("thread_speedup", m.threadSpeedup());
      if (!json) {
        out.printf("%-8s %-15s %5d %12.0f %8.2f %8.2f %5.0f%% %5.0f%% %6.2fx%n", kind.id(), name, m.dims(),
            m.examplesEpochsPerSecond(), gflops, gemm, 100 * gflops / gemm, fma > 0 ? 100 * gflops / fma : 0,
            m.threadSpeedup());
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
  }
}
