package dev.helmet.experiments.crosssilo;

import dev.helmet.experiments.Computation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How the computed cross-silo presets run (Heikkilä et al.'s Figs. 1, 3 and 5, in process): each
 * checks its options, runs its grid, writes its tables, plots and report into the request's folder
 * and returns what it wrote.
 */
final class CrossSiloComputations {
  private CrossSiloComputations() {}

  /** crosssilo-sampling: Fig. 1's effective sampling fractions, computed, not trained. */
  static Computation.Result sampling(Computation.Request r) throws IOException {
    if (r.dataset() != null || r.features() != null) {
      throw new IllegalArgumentException(CrossSiloPresets.SAMPLING + " is a computation on n = 50,000 token-list "
          + "records; --dataset and --features do not apply");
    }
    int t = r.threads() != null ? r.threads() : Runtime.getRuntime().availableProcessors();
    if (t < 1) {
      throw new IllegalArgumentException("--threads must be positive. Provided value: " + t);
    }
    Path out = r.out();
    var g = SamplingFraction.grid(r.quick());
    long start = System.nanoTime();
    Files.createDirectories(out);
    var rows = SamplingFraction.run(g, t, r.progress());
    Path csv = SamplingFraction.writeCsv(g, rows, out);
    var plots = SamplingReport.plots(g, rows, out);
    double seconds = (System.nanoTime() - start) / 1e9;
    Path report = SamplingReport.report(g, rows, plots, out, "helmet experiment run --preset "
        + CrossSiloPresets.SAMPLING + r.quickFlag() + " --out " + out, seconds);
    return new Computation.Result(CrossSiloPresets.SAMPLING + ": " + rows.size() + " points", seconds, List.of(csv),
        report, plots);
  }

  /** crosssilo-nodes: Fig. 3's running time against the compute nodes, in process. */
  static Computation.Result computeNodes(Computation.Request r) throws IOException {
    int t = timingThreads(CrossSiloPresets.NODES, r);
    Path out = r.out();
    var g = ComputeNodesTiming.grid(r.quick());
    long start = System.nanoTime();
    Files.createDirectories(out);
    var result = ComputeNodesTiming.run(g, t, r.progress());
    List<Path> csv = ComputeNodesTiming.writeCsv(result, out);
    var plots = ComputeNodesReport.plots(result, out);
    double seconds = (System.nanoTime() - start) / 1e9;
    Path report = ComputeNodesReport.report(result, plots, out, "helmet experiment run --preset "
        + CrossSiloPresets.NODES + r.quickFlag() + (r.threads() != null ? " --threads " + t : "") + " --out " + out,
        seconds);
    return new Computation.Result(String.format(java.util.Locale.ROOT, "%s: plain and M = %s, %d timed runs each",
        CrossSiloPresets.NODES, g.nodes(), g.repeats()), seconds, csv, report, plots);
  }

  /** crosssilo-groups: Fig. 5's running time against parties and group size, in process. */
  static Computation.Result groupMasks(Computation.Request r) throws IOException {
    int t = timingThreads(CrossSiloPresets.GROUPS, r);
    Path out = r.out();
    var g = GroupMaskTiming.grid(r.quick());
    long start = System.nanoTime();
    Files.createDirectories(out);
    var result = GroupMaskTiming.run(g, t, r.progress());
    Path csv = GroupMaskTiming.writeCsv(result, out);
    var plots = GroupMaskReport.plots(result, out);
    double seconds = (System.nanoTime() - start) / 1e9;
    Path report = GroupMaskReport.report(result, plots, out, "helmet experiment run --preset "
        + CrossSiloPresets.GROUPS + r.quickFlag() + (r.threads() != null ? " --threads " + t : "") + " --out " + out,
        seconds);
    return new Computation.Result(String.format(java.util.Locale.ROOT, "%s: %d settings, %d timed runs each",
        CrossSiloPresets.GROUPS, result.configs().size(), g.repeats()), seconds, List.of(csv), report, plots);
  }

  /**
   * The worker threads of a timing preset: --threads, else 1, like the sequential plain-summation
   * baseline.
   */
  private static int timingThreads(String name, Computation.Request r) {
    if (r.dataset() != null || r.features() != null) {
      throw new IllegalArgumentException(name + " times summations of synthetic vectors; --dataset and --features "
          + "do not apply");
    }
    int t = r.threads() != null ? r.threads() : 1;
    if (t < 1) {
      throw new IllegalArgumentException("--threads must be positive. Provided value: " + t);
    }
    return t;
  }
}
