package dev.helmet.experiments.crosssilo.network;

import dev.helmet.experiments.Computation;
import dev.helmet.experiments.Preset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The networked forms ({@code --network}) of the presets crosssilo-nodes (Fig. 3's total running
 * time against M) and crosssilo-projection (Fig. 4's against the projection dimension k), run by
 * {@link CrossSiloNetworkTiming} and reported by {@link CrossSiloNetworkReport}.
 */
public final class NetworkTiming {
  private NetworkTiming() {}

  private static final Preset.Outputs OUTPUTS = new Preset.Outputs(List.of("results.csv", "nodes.csv"), true,
      "report.md");

  /** crosssilo-nodes --network: DCA through M compute-node processes against no encryption. */
  public static Preset.NetworkForm nodes() {
    return new Preset.NetworkForm(OUTPUTS, r -> run(r, false));
  }

  /** crosssilo-projection --network: the 1m MLP through 8 nodes, unprojected and at each k. */
  public static Preset.NetworkForm projection() {
    return new Preset.NetworkForm(OUTPUTS, r -> run(r, true));
  }

  private static Computation.Result run(Computation.Request r, boolean projection) throws Exception {
    if (r.threads() != null) {
      throw new IllegalArgumentException("--threads does not apply with --network: each compute node sums on one "
          + "thread and every participant has its own");
    }
    if (r.dataset() != null && !r.dataset().trim().equalsIgnoreCase("mnist") || r.features() != null) {
      throw new IllegalArgumentException("with --network the timing runs on MNIST's raw pixels (the paper's "
          + "setting); --dataset and --features do not apply");
    }
    String name = projection ? "crosssilo-projection" : "crosssilo-nodes";
    Path out = r.out();
    var g = projection ? CrossSiloNetworkTiming.projectionGrid(r.quick()) : CrossSiloNetworkTiming.grid(r.quick());
    long start = System.nanoTime();
    Files.createDirectories(out);
    var result = CrossSiloNetworkTiming.run(g, r.cache(), out, r.progress(), r.helmetMain());
    List<Path> csv = CrossSiloNetworkReport.writeCsv(result, out);
    var plots = CrossSiloNetworkReport.plots(result, out);
    double seconds = (System.nanoTime() - start) / 1e9;
    Path report = CrossSiloNetworkReport.report(result, plots, out, "helmet experiment run --preset " + name
        + " --network" + r.quickFlag() + " --out " + out, seconds);
    return new Computation.Result(String.format(java.util.Locale.ROOT, "%s over the network: %s, %d timed sessions "
        + "each", name, projection ? "M = " + g.nodes().get(0) + ", no projection and k = " + g.projections()
            : "no encryption and M = " + g.nodes(), g.repeats()), seconds, csv, report, plots);
  }
}
