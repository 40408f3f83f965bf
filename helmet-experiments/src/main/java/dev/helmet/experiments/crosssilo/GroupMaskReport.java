package dev.helmet.experiments.crosssilo;

import dev.helmet.experiments.Chart;
import dev.helmet.experiments.crosssilo.GroupMaskTiming.Config;
import dev.helmet.experiments.crosssilo.GroupMaskTiming.Grid;
import dev.helmet.experiments.crosssilo.GroupMaskTiming.Result;
import dev.helmet.experiments.crosssilo.GroupMaskTiming.Setting;
import dev.helmet.experiments.crosssilo.SummationTiming.Run;
import dev.helmet.experiments.crosssilo.SummationTiming.Spread;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * The plots and report.md of {@code crosssilo-groups} (Heikkilä et al., Fig. 5): the running time
 * of pairwise-mask summation against the parties N per group size g, the honest noise factor of
 * disjoint groups beside it (design note, doubt 8), and the paper's claims checked.
 */
public final class GroupMaskReport {
  private GroupMaskReport() {}

  /** A curve over N: its label, which configurations, its style. */
  private record Curve(String label, Predicate<Setting> member, boolean dashed, int colour) {}

  private static List<Curve> curves(Grid g) {
    List<Curve> out = new ArrayList<>();
    int colour = 0;
    for (int s : g.groupSizes()) {
      String label = s == GroupMaskTiming.ALL ? "groups, g = N" : "groups, g = " + s;
      out.add(new Curve(label, x -> x.summation().equals("groups")
          && (s == GroupMaskTiming.ALL ? x.groupSize() == x.parties() : x.groupSize() == s),
          false, colour++));
    }
    out.add(new Curve("harary, g = N", x -> x.summation().equals("harary") && x.groupSize() == x.parties(), true,
        colour++));
    out.add(new Curve("harary, g odd < N", x -> x.summation().equals("harary") && x.groupSize() < x.parties(), true,
        colour++));
    out.add(new Curve("plain (no encryption)", Setting::plain, true, 6));
    return out;
  }

  /** Wall time, per-party seconds and the noise factor (log scale), each against N. */
  public static List<Path> plots(Result r, Path out) throws IOException {
    Grid g = r.grid();
    String sub = String.format(Locale.ROOT, "in process, d = %d, %d-bit ring, medians of %d timed run(s)", g.length(),
        g.ringBits(), g.repeats());
    List<Path> written = new ArrayList<>();
    Path base = out.resolve("time-vs-parties");
    Chart.line(base, "Total running time of one round (Fig. 5)", sub, "parties N", false,
        new Chart.YAxis("wall seconds", false, false), series(r, c -> c.wall().median(), false));
    written.add(base);
    base = out.resolve("party-seconds-vs-parties");
    Chart.line(base, "Seconds per party (input, masks, packing)", sub, "parties N", false,
        new Chart.YAxis("seconds per party", false, false),
        series(r, c -> Spread.of(c.runs(), Run::partySeconds).median(), true));
    written.add(base);
    List<Chart.Series> noise = new ArrayList<>();
    for (Chart.Series s : series(r, c -> GroupMaskTiming.noiseFactor(c.setting(), g.colluders()), true)) {
      if (s.label().startsWith("groups")) {
        noise.add(s);
      }
    }
    double[] ns = g.parties().stream().mapToDouble(Integer::doubleValue).toArray();
    noise.add(new Chart.Series("total only, N/(N - T - 1)", ns, g.parties().stream()
        .mapToDouble(n -> GroupMaskTiming.totalOnlyFactor(n, g.colluders())).toArray(), new double[ns.length], true, 6));
    base = out.resolve("noise-factor-vs-parties");
    Chart.line(base, "Honest noise factor: total noise variance / sigma^2", String.format(Locale.ROOT,
        "disjoint groups N/(g - T - 1), T = %d", g.colluders()), "parties N", false,
        new Chart.YAxis("noise variance on the sum / sigma^2", false, true), noise);
    written.add(base);
    return written;
  }

  private static List<Chart.Series> series(Result r, ToDoubleFunction<Config> y, boolean skipPlain) {
    List<Chart.Series> out = new ArrayList<>();
    for (Curve c : curves(r.grid())) {
      List<Config> cs = r.configs().stream().filter(x -> c.member().test(x.setting())).toList();
      if (cs.isEmpty() || skipPlain && c.label().startsWith("plain")) {
        continue;
      }
      out.add(new Chart.Series(c.label(), cs.stream().mapToDouble(x -> x.setting().parties()).toArray(),
          cs.stream().mapToDouble(y).toArray(), new double[cs.size()], c.dashed(), c.colour()));
    }
    return out;
  }

  /** report.md: settings, plots, claims, the table of medians with the noise factors. */
  public static Path report(Result r, List<Path> plots, Path out, String command, double seconds) throws IOException {
    Grid g = r.grid();
    StringBuilder sb = new StringBuilder("# " + GroupMaskTiming.NAME + "\n\n");
    sb.append(String.format(Locale.ROOT, "Made by `%s` in %.0f s. Heikkilä et al., \"Differentially private "
        + "cross-silo federated learning\", Fig. 5 (running time of pairwise masking, their Algorithm 4, against the "
        + "number of parties N and the group size g), as a pure summation benchmark: no training, one vector per "
        + "party of d = %,d values (%s) in a %d-bit ring, N in %s, g in {%s} wherever g <= N and g | N. "
        + "Summations: `groups` (disjoint groups of g consecutive parties, the authors' grouping), `harary` (the "
        + "same g - 1 masks per party on a (g - 1)-connected Harary graph, which reveals only the total; it exists for "
        + "g odd or g = N, and at g = N both are the complete graph), and plain summation per N. Each configuration: "
        + "untimed runs for the JIT until it has seen at least %d inputs (the first also agrees the session's X25519 "
        + "keys), then %d timed round(s) with fresh "
        + "masks (median, min, max). Inputs are generated per party from seed %d; every round's sum is checked "
        + "against the exact sum.%n%n", command, seconds, g.length(),
        g.length() == ComputeNodesTiming.MLP_PARAMETERS ? "the paper's 1m model, 784-536-536-536-10 with biases"
            : "cut down for CI", g.ringBits(), g.parties(), String.join(", ", g.groupSizes().stream()
            .map(s -> s == GroupMaskTiming.ALL ? "N" : Integer.toString(s)).toList()), SummationTiming.WARM_UP_INPUTS,
        g.repeats(), g.seed()));
    sb.append(String.format(Locale.ROOT, "**In process.** Every party and the aggregator ran in one JVM on this "
        + "machine (2 cores, shared with other jobs: doubt 19), the masking on %d worker thread%s and plain summation "
        + "sequentially. What is measured is computation and bytes, not a network: the parties run one after another, "
        + "so the wall time is the sum of their work, where a deployment's would be about one party's plus the "
        + "aggregator's. Every party's time includes generating its input (%.4f s here, the median over the "
        + "configurations). %s: other jobs' bursts show as the spread between min and max, which is why the "
        + "medians are the figures.%n%n", r.threads(), r.threads() == 1 ? "" : "s",
        Spread.of(r.configs().stream().mapToDouble(Config::generateSeconds).toArray()).median(),
        SummationTiming.loadSentence(r.loadBefore(), r.loadAfter())));
    for (Path p : plots) {
      String f = p.getFileName().toString();
      sb.append("![").append(f).append("](").append(f).append(".png)\n\n");
    }
    claims(r, sb);
    table(r, sb);
    Path file = out.resolve("report.md");
    Files.writeString(file, sb, StandardCharsets.UTF_8);
    return file;
  }

  private static Config find(Result r, String summation, int parties, int groupSize) {
    return r.configs().stream().filter(c -> c.setting().summation().equals(summation)
        && c.setting().parties() == parties && c.setting().groupSize() == groupSize).findFirst().orElse(null);
  }

  private static double partyMedian(Config c) {
    return Spread.of(c.runs(), Run::partySeconds).median();
  }

  private static void claims(Result r, StringBuilder sb) {
    Grid g = r.grid();
    int t = g.colluders();
    boolean exact = r.configs().stream().allMatch(c -> c.runs().stream().allMatch(Run::exact));
    sb.append("## The paper's claims against these runs\n\n");
    sb.append(String.format(Locale.ROOT, "- Every round released the exact sum: %s.%n", exact ? "yes" : "**no**"));
    int nMax = g.parties().get(g.parties().size() - 1);
    // Time against N at fixed g: per party (what a deployment's critical path follows) and in total.
    for (int size : g.groupSizes().stream().filter(s -> s != GroupMaskTiming.ALL).toList()) {
      List<Config> cs = r.configs().stream().filter(c -> c.setting().summation().equals("groups")
          && c.setting().groupSize() == size).toList();
      if (cs.size() < 2) {
        continue;
      }
      Config a = cs.get(0);
      Config b = cs.get(cs.size() - 1);
      double[] party = cs.stream().mapToDouble(GroupMaskReport::partyMedian).toArray();
      double lo = java.util.Arrays.stream(party).min().orElseThrow();
      double hi = java.util.Arrays.stream(party).max().orElseThrow();
      String perN = String.join(", ", cs.stream().map(c -> String.format(Locale.ROOT, "%.4f s at N = %d",
          partyMedian(c), c.setting().parties())).toList());
      sb.append(String.format(Locale.ROOT, "- **Time roughly flat in N for fixed g** (g = %d): per party %s, the "
          + "largest %.2fx the smallest: %s. The in-process wall time grows with N instead (%.3f s at N = %d to "
          + "%.3f s at N = %d, x%.2f for x%.1f parties), because here the parties take turns on the same cores.%n",
          size, perN, hi / lo, hi / lo <= 1.5 ? "flat within 1.5x, yes" : "**not** flat within 1.5x",
          a.wall().median(), a.setting().parties(), b.wall().median(), b.setting().parties(),
          b.wall().median() / a.wall().median(), (double) b.setting().parties() / a.setting().parties()));
    }
    Config small = find(r, "groups", nMax, 2);
    Config full = find(r, "groups", nMax, nMax);
    if (small != null && full != null && nMax > 2) {
      sb.append(String.format(Locale.ROOT, "- **Larger groups cost more per party** (each party expands g - 1 masks): "
          + "%s; at N = %d a party spends %.4f s with g = 2 and %.4f s with g = N (x%.1f), and the round %.3f s against "
          + "%.3f s (x%.2f).%n", partyMedian(full) > partyMedian(small) ? "yes" : "**no**", nMax, partyMedian(small),
          partyMedian(full), partyMedian(full) / partyMedian(small),
          small.wall().median(), full.wall().median(), full.wall().median() / small.wall().median()));
    }
    long minBytes = r.configs().stream().filter(c -> !c.setting().plain()).mapToLong(c -> c.runs().get(0)
        .bytesPerParty()).min().orElse(0);
    long maxBytes = r.configs().stream().filter(c -> !c.setting().plain()).mapToLong(c -> c.runs().get(0)
        .bytesPerParty()).max().orElse(0);
    sb.append(String.format(Locale.ROOT, "- Bytes per party per round are the same for every N and g (%,d to %,d: one "
        + "packed vector and its framing); the key agreement adds 45 g bytes per party once per session.%n",
        minBytes, maxBytes));
    if (nMax > 2) {
      sb.append(String.format(Locale.ROOT, "- **What the figure leaves out: the honest noise** (design note doubt 8). "
          + "Disjoint groups reveal every group's sum, so each must be DP by itself: with T = %d, each party adds "
          + "sigma^2/(g - T - 1) and the released total carries N/(g - T - 1) sigma^2. At N = %d that is %s sigma^2 for "
          + "g = 2 against %s sigma^2 when only the total is revealed (g = N, or Harary while T <= g - 3). Cheaper "
          + "small groups buy their speed with up to N times the noise.%n", t, nMax,
          fmt(GroupMaskTiming.noiseFactor(new Setting("groups", nMax, 2), t)),
          fmt(GroupMaskTiming.totalOnlyFactor(nMax, t))));
    }
    Config hFull = find(r, "harary", nMax, nMax);
    if (hFull != null && full != null) {
      sb.append(String.format(Locale.ROOT, "- Harary at g = N is the complete graph, the same masks as groups of N: "
          + "%.3f s against %.3f s (medians). With even g < N (2, 16) the Harary graph does not exist (its degree g - 1 "
          + "must be even), so the preset has no Harary rows there; an odd g such as 3 or 17 would give the noise of "
          + "the total at the per-party cost of groups of g.%n", hFull.wall().median(), full.wall().median()));
    }
    Config p = find(r, "plain", nMax, nMax);
    if (p != null && full != null) {
      sb.append(String.format(Locale.ROOT, "- Against plain summation at N = %d (%.3f s): x%.2f for g = 2, x%.2f for "
          + "g = N.%n", nMax, p.wall().median(), small == null ? Double.NaN : small.wall().median() / p.wall().median(),
          full.wall().median() / p.wall().median()));
    }
    sb.append('\n');
  }

  private static void table(Result r, StringBuilder sb) {
    int t = r.grid().colluders();
    sb.append(String.format(Locale.ROOT, "## Medians over the timed rounds (T = %d)%n%n| summation | N | g | wall s "
        + "(median) | min | max | party s (mean) | aggregator s | bytes per party | key-agreement bytes per party "
        + "(once) | sums revealed | noise factor | total only N/(N-T-1) |%n"
        + "|---|---|---|---|---|---|---|---|---|---|---|---|---|%n", t));
    for (Config c : r.configs()) {
      Setting s = c.setting();
      Spread w = c.wall();
      sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %.3f | %.3f | %.3f | %s | %.4f | %,d | %,d | %d | %s | %s "
          + "|%n", s.summation(), s.parties(), s.plain() ? "-" : Integer.toString(s.groupSize()), w.median(), w.min(),
          w.max(), s.plain() ? "-" : String.format(Locale.ROOT, "%.4f", partyMedian(c)),
          Spread.of(c.runs(), Run::serverSeconds).median(), c.runs().get(0).bytesPerParty(), c.setupBytesPerParty(),
          GroupMaskTiming.revealedSums(s), s.plain() ? "every input" : fmt(GroupMaskTiming.noiseFactor(s, t)),
          fmt(GroupMaskTiming.totalOnlyFactor(s.parties(), t))));
    }
    sb.append("\nThe noise factor is the total noise variance on the released sum in units of the central sigma^2, "
        + "when each party sizes its share for the smallest sum the aggregator learns: N/(g - T - 1) for disjoint "
        + "groups, N/(N - T - 1) when only the total is revealed; plain summation reveals every input. The aggregator's "
        + "seconds are adding the packed vectors (plain: the whole run, generating the inputs included).\n\n");
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.4g", v);
  }
}
