package dev.helmet.experiments.crosssilo;

import dev.helmet.experiments.Chart;
import dev.helmet.experiments.crosssilo.ComputeNodesTiming.Config;
import dev.helmet.experiments.crosssilo.ComputeNodesTiming.Grid;
import dev.helmet.experiments.crosssilo.ComputeNodesTiming.Result;
import dev.helmet.experiments.crosssilo.SummationTiming.Node;
import dev.helmet.experiments.crosssilo.SummationTiming.Run;
import dev.helmet.experiments.crosssilo.SummationTiming.Spread;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The plots and report.md of {@code crosssilo-nodes} (Heikkilä et al., Fig. 3): the running time of
 * DCA against the compute nodes M beside plain summation, what each party and node spent and sent,
 * and the paper's claim ("time roughly linear in M") checked against what this in-process DCA does.
 */
public final class ComputeNodesReport {
  private ComputeNodesReport() {}

  /** Three charts against M: wall time (median, min, max; plain flat), seconds per machine, bytes. */
  public static List<Path> plots(Result r, Path out) throws IOException {
    List<Config> d = r.dca();
    double[] m = d.stream().mapToDouble(Config::nodes).toArray();
    Config plain = r.plain();
    String sub = String.format(Locale.ROOT, "in process, N = %d parties, d = %d, %d-bit ring, timed runs per point: %d",
        r.grid().parties(), r.grid().length(), r.grid().ringBits(), r.grid().repeats());
    List<Path> written = new ArrayList<>();

    List<Chart.Series> time = new ArrayList<>();
    time.add(series("dca, median", d, m, c -> c.wall().median(), false, 0));
    time.add(series("dca, min", d, m, c -> c.wall().min(), true, 0));
    time.add(series("dca, max", d, m, c -> c.wall().max(), true, 0));
    time.add(series("plain, median", d, m, c -> plain.wall().median(), false, 1));
    Path base = out.resolve("time-vs-nodes");
    Chart.line(base, "Total running time of one summation (Fig. 3)", sub, "compute nodes M", false,
        new Chart.YAxis("wall seconds", false, false), time);
    written.add(base);

    List<Chart.Series> cost = new ArrayList<>();
    cost.add(series("party (mean)", d, m, c -> median(c, Run::partySeconds), false, 0));
    cost.add(series("seed node (mean of 1..M-1)", d, m, c -> median(c, Run::seedNodeSeconds), false, 2));
    cost.add(series("last node M", d, m, c -> median(c, Run::lastNodeSeconds), false, 3));
    base = out.resolve("seconds-per-machine-vs-nodes");
    Chart.line(base, "Seconds per party and per compute node", sub + ", medians", "compute nodes M", false,
        new Chart.YAxis("seconds", false, false), cost);
    written.add(base);

    List<Chart.Series> bytes = new ArrayList<>();
    bytes.add(series("dca, bytes per party", d, m, c -> c.runs().get(0).bytesPerParty() / 1e6, false, 0));
    bytes.add(series("dca, busiest node in", d, m, c -> c.runs().get(0).nodeBytesInMax() / 1e6, false, 2));
    bytes.add(series("plain, bytes per party", d, m, c -> plain.runs().get(0).bytesPerParty() / 1e6, true, 1));
    bytes.add(series("paper: M full vectors", d, m, c -> c.nodes() * plain.runs().get(0).bytesPerParty() / 1e6,
        true, 3));
    base = out.resolve("bytes-vs-nodes");
    Chart.line(base, "Bytes per party and per compute node", sub, "compute nodes M", false,
        new Chart.YAxis("MB (log scale)", false, true), bytes);
    written.add(base);
    return written;
  }

  private static Chart.Series series(String label, List<Config> cs, double[] x, ToDoubleFunction<Config> y,
      boolean dashed, int colour) {
    return new Chart.Series(label, x, cs.stream().mapToDouble(y).toArray(), new double[cs.size()], dashed, colour);
  }

  private static double median(Config c, ToDoubleFunction<Run> f) {
    return Spread.of(c.runs(), f).median();
  }

  /** report.md: settings, plots, the claims checked, the table of medians, and per node. */
  public static Path report(Result r, List<Path> plots, Path out, String command, double seconds) throws IOException {
    Grid g = r.grid();
    Config plain = r.plain();
    long packed = plain.runs().get(0).bytesPerParty();
    StringBuilder sb = new StringBuilder("# " + ComputeNodesTiming.NAME + "\n\n");
    sb.append(String.format(Locale.ROOT, "Made by `%s` in %.0f s. Heikkilä et al., \"Differentially private "
        + "cross-silo federated learning\", Fig. 3 (total running time against the number of compute nodes M, against "
        + "no encryption), as a pure summation benchmark: no training, one vector per party of d = %,d values (the "
        + "paper's 784-536-536-536-10 MLP, %s), summed in a %d-bit ring by DCA (the paper's Algorithm 1; Helmet's "
        + "`dca`) with M in %s, and by plain summation. N = %d parties, one untimed run per configuration to warm "
        + "up the JIT (more where N < %d, so that it sees at least %d inputs), then %d timed run(s) (median, min and "
        + "max). Inputs are uniform ring elements generated per party from seed %d, never all in memory at once; "
        + "every run's sum is checked against the exact sum.%n%n",
        command, seconds, g.length(), g.length() == ComputeNodesTiming.MLP_PARAMETERS ? "with biases"
            : "here cut down for CI", g.ringBits(), g.nodes(), g.parties(), SummationTiming.WARM_UP_INPUTS,
        SummationTiming.WARM_UP_INPUTS, g.repeats(), g.seed()));
    sb.append(String.format(Locale.ROOT, "**In process.** Every party, node and the aggregator ran in one JVM on "
        + "this machine (2 cores, shared with other jobs: design note doubt 19), the secure summations on %d "
        + "worker thread%s and plain summation sequentially. What is measured is computation and bytes, not a "
        + "network: the nodes run one after another rather than on machines of their own, and the bytes are counted, "
        + "not sent. Every wall time includes generating the inputs (%.4f s per party here, %.2f s for all %d). %s: "
        + "other jobs' bursts show as the spread between min and max, which is why the medians are the figures.%n%n",
        r.threads(), r.threads() == 1 ? "" : "s", r.generateSeconds(), r.generateSeconds() * g.parties(),
        g.parties(), SummationTiming.loadSentence(r.loadBefore(), r.loadAfter())));
    for (Path p : plots) {
      String f = p.getFileName().toString();
      sb.append("![").append(f).append("](").append(f).append(".png)\n\n");
    }
    claims(r, sb, packed);
    table(r, sb);
    perNode(r, sb);
    Path file = out.resolve("report.md");
    Files.writeString(file, sb, StandardCharsets.UTF_8);
    return file;
  }

  private static void claims(Result r, StringBuilder sb, long packed) {
    Grid g = r.grid();
    List<Config> d = r.dca();
    boolean exact = r.configs().stream().allMatch(c -> c.runs().stream().allMatch(Run::exact));
    long minBytes = d.stream().mapToLong(c -> c.runs().get(0).bytesPerParty()).min().orElseThrow();
    long maxBytes = d.stream().mapToLong(c -> c.runs().get(0).bytesPerParty()).max().orElseThrow();
    double spread = (double) (maxBytes - minBytes) / minBytes;
    double[] fit = ComputeNodesTiming.linearFit(r);
    boolean increasing = true;
    for (int i = 1; i < d.size(); i++) {
      increasing &= d.get(i).wall().median() > d.get(i - 1).wall().median();
    }
    Config first = d.get(0);
    Config last = d.get(d.size() - 1);
    sb.append("## The paper's claims against these runs\n\n");
    sb.append(String.format(Locale.ROOT, "- Every run released the exact sum: %s.%n", exact ? "yes" : "**no**"));
    sb.append(String.format(Locale.ROOT, "- Fold increase over plain summation (median wall time): %s.%n",
        String.join(", ", d.stream().map(c -> String.format(Locale.ROOT, "%.2fx at M = %d", r.fold(c), c.nodes()))
            .toList())));
    sb.append(String.format(Locale.ROOT, "- **Time roughly linear in M** (the paper): the median wall time %s with M "
        + "(%.3f s at M = %d to %.3f s at M = %d); a least-squares line through the medians has slope %.3f s per node "
        + "and R^2 = %.3f: %s. But not for the paper's reason, see the next point.%n",
        increasing ? "grows" : "does **not** grow monotonically", first.wall().median(), first.nodes(),
        last.wall().median(), last.nodes(), fit[0], fit[2], d.size() < 3 ? "too few M to judge linearity"
            : fit[2] >= 0.9 && fit[0] > 0 ? "roughly linear, yes" : "**not** clearly linear"));
    // What one more node costs here, from the components: N parties expand one more seed each, and
    // one more seed node expands N seeds.
    double partyPerNode = (median(last, Run::partySeconds) - median(first, Run::partySeconds))
        / (last.nodes() - first.nodes());
    double seedNode = d.stream().mapToDouble(c -> median(c, Run::seedNodeSeconds)).average().orElseThrow();
    sb.append(String.format(Locale.ROOT, "- The components account for that slope: one more node makes each of the "
        + "N = %d parties expand one more seed (%.5f s per party, from the party medians at M = %d and %d: %.3f s "
        + "for all) and adds one seed node (%.3f s, the mean of the seed nodes' medians): %.3f s per node, against "
        + "the fitted %.3f s.%n", g.parties(), partyPerNode, first.nodes(), last.nodes(), partyPerNode * g.parties(),
        seedNode, partyPerNode * g.parties() + seedNode, fit[0]));
    sb.append(String.format(Locale.ROOT, "- **Bytes per party stay flat in M**: our DCA sends M - 1 of the shares as "
        + "32-byte seeds of the mask generator (AES-CTR) and only the last as a packed vector, so a party sends %,d to "
        + "%,d bytes for M = %d to %d (%.4f %% apart; plain: %,d), where the paper's DCA sends M full shares (%,d "
        + "bytes at M = %d). The growth in time therefore comes only from expanding the seeds: each party expands "
        + "M - 1 of them to form its last share (median party time %.4f s at M = %d, %.4f s at M = %d), and each of "
        + "nodes 1 .. M-1 expands one seed per party (a seed node's median %.3f s at M = %d, %.3f s at M = %d: flat in "
        + "M, as each node's work is N expansions whatever M is). In process the M - 1 seed nodes run one after "
        + "another, so their total grows with M; on separate machines the node stage would not. The paper's linear "
        + "growth, from parties sending M times the data over a network, is not what is measured here.%n",
        minBytes, maxBytes, first.nodes(), last.nodes(), 100 * spread, packed, (long) last.nodes() * packed,
        last.nodes(), median(first, Run::partySeconds), first.nodes(), median(last, Run::partySeconds),
        last.nodes(), median(first, Run::seedNodeSeconds), first.nodes(), median(last, Run::seedNodeSeconds),
        last.nodes()));
    sb.append(String.format(Locale.ROOT, "- The last node receives every party's packed share (%,d bytes in); the "
        + "seed nodes receive %,d bytes each (N seeds and the list of who contributed).%n%n",
        last.runs().get(0).nodes().get(last.nodes() - 1).bytesIn(), last.runs().get(0).nodes().get(0).bytesIn()));
    sb.append(String.format(Locale.ROOT, "Not measured here: DCA over the network with each node its own `./helmet "
        + "compute-node` process (it exists, `scripts/dca-loopback.sh`; on %d shared cores its wall time would "
        + "measure contention as much as cryptography, doubt 19).%n%n", Runtime.getRuntime().availableProcessors()));
  }

  private static void table(Result r, StringBuilder sb) {
    sb.append("## Medians over the timed runs\n\n| summation | M | wall s (median) | min | max | fold over plain | "
        + "party s (mean) | slowest party s | seed node s | last node s | bytes per party | most bytes into one "
        + "node (plain: the aggregator) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Config c : r.configs()) {
      Spread w = c.wall();
      Run first = c.runs().get(0);
      sb.append(String.format(Locale.ROOT, "| %s | %s | %.3f | %.3f | %.3f | %.2f | %s | %s | %s | %s | %,d | %,d |%n",
          c.summation(), c.plain() ? "-" : Integer.toString(c.nodes()), w.median(), w.min(), w.max(), r.fold(c),
          c.plain() ? "-" : fmt(median(c, Run::partySeconds)), c.plain() ? "-" : fmt(median(c, Run::partyMaxSeconds)),
          c.plain() ? "-" : fmt(median(c, Run::seedNodeSeconds)), c.plain() ? "-" : fmt(median(c, Run::lastNodeSeconds)),
          first.bytesPerParty(), c.plain() ? first.serverBytes() : first.nodeBytesInMax()));
    }
    sb.append("\nPlain summation's parties only send; its aggregator's time is the whole run. Bytes are as counted by "
        + "the summations (13 bytes of framing per message, vectors bit-packed), identical in every run.\n\n");
  }

  private static void perNode(Result r, StringBuilder sb) {
    sb.append("## Per compute node (medians over the timed runs)\n\n| M | node | receives | bytes in | bytes out | "
        + "seconds |\n|---|---|---|---|---|---|\n");
    for (Config c : r.dca()) {
      List<Node> nodes = c.runs().get(0).nodes();
      for (int j = 0; j < nodes.size(); j++) {
        int k = j;
        Node n = nodes.get(j);
        double s = Spread.of(c.runs().stream().mapToDouble(run -> run.nodes().get(k).seconds()).toArray()).median();
        sb.append(String.format(Locale.ROOT, "| %d | %s | %s | %,d | %,d | %.4f |%n", c.nodes(), n.name(),
            n.receives(), n.bytesIn(), n.bytesOut(), s));
      }
    }
    sb.append('\n');
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.4f", v);
  }
}
