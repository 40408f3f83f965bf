package dev.helmet.experiments.crosssilo;

import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Progress;
import dev.helmet.experiments.crosssilo.SummationTiming.Inputs;
import dev.helmet.experiments.crosssilo.SummationTiming.Node;
import dev.helmet.experiments.crosssilo.SummationTiming.Reference;
import dev.helmet.experiments.crosssilo.SummationTiming.Run;
import dev.helmet.experiments.crosssilo.SummationTiming.Spread;
import dev.helmet.secagg.servers.ComputeServerSummation;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.PlainSummation;
import dev.helmet.secagg.summation.SecureSummation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code crosssilo-nodes} preset: Heikkilä et al.'s Fig. 3 ("Differentially private cross-silo
 * federated learning", Sec. 4), the total running time of one secure summation against the number
 * M of compute nodes of DCA (their Algorithm 1, Sec. 3.3; {@link ComputeServerSummation}), against
 * summation without encryption ({@link PlainSummation}). A pure summation benchmark: no training,
 * one vector per party of the paper's model size, the 784-536-536-536-10 MLP with biases (1,001,794
 * parameters; the authors' has no biases, 1,000,176: design note doubt 12), in a 32-bit ring.
 *
 * <p><b>In process.</b> Every party and node runs in this JVM ({@link SummationTiming}), so what is
 * measured is computation and bytes, not a network, and the nodes run one after another rather than
 * on machines of their own. Our DCA also differs from the paper's in what it sends: M - 1 of the M
 * shares go as 32-byte seeds of the mask generator, so a party's bytes stay flat in M (the paper's
 * parties send M full vectors), and the time grows only with the seed expansion (by the party, to
 * form its last share, and by nodes 1 .. M-1).
 */
public final class ComputeNodesTiming {
  private ComputeNodesTiming() {}

  /** The preset's name. */
  public static final String NAME = "crosssilo-nodes";

  /** The parameters of the 784-536-536-536-10 MLP with biases (Fig. 3's "model 1m"). */
  public static final int MLP_PARAMETERS = 784 * 536 + 536 + 2 * (536 * 536 + 536) + 536 * 10 + 10;

  /**
   * The settings.
   *
   * @param parties N
   * @param length the vector length d
   * @param ringBits b
   * @param nodes the M of the DCA rows
   * @param repeats timed runs per configuration (after the untimed ones, {@link SummationTiming#warmUpRuns})
   * @param seed the inputs' seed
   */
  public record Grid(int parties, int length, int ringBits, List<Integer> nodes, int repeats, long seed) {
    public Grid {
      nodes = List.copyOf(nodes);
      Checks.require(!nodes.isEmpty() && nodes.stream().allMatch(m -> m >= 2), "compute nodes must be >= 2. "
          + "Provided values: " + nodes);
      Checks.positive("repeats", repeats);
    }
  }

  /**
   * The paper's setting (100 parties, 1,001,794 values, M in {2, 4, 8}, 5 repeats), or the CI form
   * (10 parties, 10,000 values, M in {2, 3}, 1 repeat).
   */
  public static Grid grid(boolean quick) {
    return quick ? new Grid(10, 10_000, 32, List.of(2, 3), 1, 19)
        : new Grid(100, MLP_PARAMETERS, 32, List.of(2, 4, 8), 5, 19);
  }

  /**
   * One configuration's runs.
   *
   * @param summation "plain" or "dca"
   * @param nodes M (0 for plain)
   * @param runs the timed runs
   */
  public record Config(String summation, int nodes, List<Run> runs) {
    public Config {
      runs = List.copyOf(runs);
    }

    /** Whether this is the baseline without encryption. */
    public boolean plain() {
      return nodes == 0;
    }

    /** Wall seconds over the runs. */
    public Spread wall() {
      return Spread.of(runs, Run::wallSeconds);
    }

    /** "plain" or "dca M = 4". */
    public String label() {
      return plain() ? "plain (no encryption)" : "dca, M = " + nodes;
    }
  }

  /**
   * The result: the settings, what generating one input costs, every configuration, and the load
   * average before and after ({@link SummationTiming#loadAverage}).
   */
  public record Result(Grid grid, int threads, double generateSeconds, List<Config> configs, double loadBefore,
      double loadAfter) {
    /** The baseline. */
    public Config plain() {
      return configs.stream().filter(Config::plain).findFirst().orElseThrow();
    }

    /** The DCA configurations, by M. */
    public List<Config> dca() {
      return configs.stream().filter(c -> !c.plain()).toList();
    }

    /** Median wall time over the plain baseline's. */
    public double fold(Config c) {
      return c.wall().median() / plain().wall().median();
    }
  }

  /** Times plain summation, then DCA for each M, each first untimed and then {@code repeats} times. */
  public static Result run(Grid g, int threads, Progress progress) {
    double load = SummationTiming.loadAverage();
    Inputs in = new Inputs(g.parties(), g.length(), g.ringBits(), g.seed());
    int total = (1 + g.nodes().size()) * g.repeats();
    progress.start(String.format(Locale.ROOT, "%s: %d parties x %d values, plain and M = %s, %d repeats", NAME,
        g.parties(), g.length(), g.nodes(), g.repeats()), total);
    Reference ref = in.reference();
    List<Config> configs = new ArrayList<>();
    Runnable tick = () -> progress.advance(1);
    SummationTiming.Timed plain = SummationTiming.time(new PlainSummation(), in, ref, g.repeats(), tick);
    configs.add(new Config("plain", 0, plain.runs()));
    for (int m : g.nodes()) {
      SecureSummation s = new ComputeServerSummation(m, DropoutPlan.NONE, threads);
      configs.add(new Config(s.name(), m, SummationTiming.time(s, in, ref, g.repeats(), tick).runs()));
    }
    progress.finish();
    return new Result(g, threads, plain.generateSeconds(), configs, load, SummationTiming.loadAverage());
  }

  /** The columns of results.csv, one line per timed run. */
  static final String HEADER = "summation,compute_nodes,parties,length,ring_bits,threads,repeat,wall_seconds,"
      + "party_seconds_mean,party_seconds_max,node_seconds_max,seed_node_seconds_mean,last_node_seconds,"
      + "bytes_per_party,node_bytes_in_max,server_bytes,exact_sum";

  /**
   * Writes results.csv (one line per timed run; plain's "node" is the aggregator) and nodes.csv (one
   * line per DCA run and node: what it received, sent and spent).
   */
  public static List<Path> writeCsv(Result r, Path out) throws IOException {
    Grid g = r.grid();
    StringBuilder sb = new StringBuilder(HEADER).append('\n');
    StringBuilder nodes = new StringBuilder("compute_nodes,repeat,node,receives,bytes_in,bytes_out,seconds\n");
    for (Config c : r.configs()) {
      for (Run run : c.runs()) {
        sb.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%s,%s,%s,%s,%s,%s,%d,%d,%d,%s%n", c.summation(),
            c.nodes(), g.parties(), g.length(), g.ringBits(), c.plain() ? 1 : r.threads(), run.repeat(),
            SummationTiming.num(run.wallSeconds()), SummationTiming.num(run.partySeconds()),
            SummationTiming.num(run.partyMaxSeconds()), SummationTiming.num(run.serverSeconds()),
            SummationTiming.num(run.seedNodeSeconds()), SummationTiming.num(run.lastNodeSeconds()),
            run.bytesPerParty(), c.plain() ? run.serverBytes() : run.nodeBytesInMax(), run.serverBytes(),
            run.exact()));
        for (Node n : run.nodes()) {
          nodes.append(String.format(Locale.ROOT, "%d,%d,%s,%s,%d,%d,%s%n", c.nodes(), run.repeat(), n.name(),
              n.receives(), n.bytesIn(), n.bytesOut(), SummationTiming.num(n.seconds())));
        }
      }
    }
    Path csv = out.resolve("results.csv");
    Files.writeString(csv, sb, StandardCharsets.UTF_8);
    Path nodeCsv = out.resolve("nodes.csv");
    Files.writeString(nodeCsv, nodes, StandardCharsets.UTF_8);
    return List.of(csv, nodeCsv);
  }

  /**
   * Least squares of the median wall time on M over the DCA rows: {slope (seconds per node),
   * intercept, R^2}; NaNs with fewer than two distinct M.
   */
  public static double[] linearFit(Result r) {
    List<Config> d = r.dca();
    int n = d.size();
    if (n < 2) {
      return new double[] {Double.NaN, Double.NaN, Double.NaN};
    }
    double mx = d.stream().mapToDouble(Config::nodes).average().orElseThrow();
    double my = d.stream().mapToDouble(c -> c.wall().median()).average().orElseThrow();
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (Config c : d) {
      double dx = c.nodes() - mx;
      double dy = c.wall().median() - my;
      sxy += dx * dy;
      sxx += dx * dx;
      syy += dy * dy;
    }
    double slope = sxy / sxx;
    double r2 = syy == 0 ? 1 : sxy * sxy / (sxx * syy);
    return new double[] {slope, my - slope * mx, r2};
  }
}
