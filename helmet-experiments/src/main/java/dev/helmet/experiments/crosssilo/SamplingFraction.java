package dev.helmet.experiments.crosssilo;

import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.accounting.PldAccountant;
import dev.helmet.privacy.accounting.SworAmplification;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The {@code crosssilo-sampling} preset: Heikkilä et al.'s Fig. 1 ("Differentially private
 * cross-silo federated learning", Sec. 3.4.1), the effective sampling fraction (lower is better)
 * against the number of records controlled by malicious parties, computed without any training
 * (design note docs/design/cross-silo.md, section 1.4).
 *
 * <p>n = 50,000 records on the token list, batches b in {500, 2500}, and the coalition's records
 * n_A over integer points from n/100 to n/2. The curves, all from {@link SworAmplification}:
 * Poisson sampling's b/n, which malicious parties cannot change; sampling without replacement
 * (SWOR) in the paper's worst case b/n_H; SWOR with slack delta_s (the paper's (b - k*)/n_H,
 * k* the delta_s-quantile of the malicious tokens in a batch); and, at a few points, the
 * "equivalent fraction" of the exact hypergeometric mixture (the design note's derivation, not in
 * the paper): the Poisson rate whose replace-one PLD accounting over K steps at noise multiplier
 * sigma, with Poisson sampling's own pair, reaches the eps at delta that the mixture reaches with
 * the bound fixed-size sampling has (Dong, Roth and Su's C_q; {@link SworAmplification}'s class
 * note). The paper's fractions are rates of that fixed-size bound, b/n a rate of Poisson's: only the equivalent
 * fraction puts both on one scale. A second sweep places the coalition
 * on the paper's N = 32 equal parties: T colluders plus the observing party hold n_A = (T + 1)
 * n / N records (doubts 1, 7 and 20), rounded up when that is not an integer (more malicious
 * records: never the kinder side).
 */
public final class SamplingFraction {
  private SamplingFraction() {}

  /**
   * The settings.
   *
   * @param records n
   * @param batches the batch sizes b
   * @param from the smallest n_A of the records sweep
   * @param to the largest n_A
   * @param points integer points of n_A from {@code from} to {@code to}, evenly spaced
   * @param slacks the per-step slacks delta_s of the slack curves
   * @param equivalentPoints points of the records sweep (evenly spread over it) where the exact
   *     mixture's equivalent fraction is computed
   * @param equivalentBatches the b for which it is computed
   * @param parties N, equal parties, for the parties sweep
   * @param colluders the T of the parties sweep
   * @param equivalentColluders the T at which the parties sweep computes the equivalent fraction
   * @param sigma the noise multiplier of the equivalent fraction's accounting
   * @param steps K, the steps it composes
   * @param delta the delta at which eps is read
   */
  public record Grid(int records, List<Integer> batches, int from, int to, int points, List<Double> slacks,
      int equivalentPoints, List<Integer> equivalentBatches, int parties, List<Integer> colluders, List<Integer> equivalentColluders, double sigma,
      int steps, double delta) {}

  /**
   * The paper's grid (100 points, equivalents at 10 of them and at T = 0, 3, 7, 15 for both b; T =
   * 0..15; K = 1,250 steps), or a small one for CI (5 points, T = 0, 3, 7, 15, equivalents at 3
   * points for b = 500 only, K = 125 steps: each equivalent costs seconds of PLD accounting, b = 2500
   * twice as many; at K = 1,250 the quick grid took 241 s against 207 s at 125 on a loaded 2-core
   * machine, so most of its cost does not depend on K; the
   * fractions, quantiles and golden values do not depend on K, only the eps of the equivalents do).
   */
  public static Grid grid(boolean quick) {
    List<Double> slacks = List.of(1e-15, 1e-10, 1e-5);
    List<Integer> batches = List.of(500, 2500);
    return quick
        ? new Grid(50_000, batches, 500, 25_000, 5, slacks, 3, List.of(500), 32, List.of(0, 3, 7, 15), List.of(), 1.0,
            125, 1e-5)
        : new Grid(50_000, batches, 500, 25_000, 100, slacks, 10, batches, 32,
            java.util.stream.IntStream.rangeClosed(0, 15).boxed().toList(), List.of(0, 3, 7, 15), 1.0, 1250, 1e-5);
  }

  /** Which sweep a row belongs to: over n_A, or over the colluders T of N equal parties. */
  public enum Sweep {
    RECORDS("records"), PARTIES("parties");

    private final String id;

    Sweep(String id) {
      this.id = id;
    }

    /** The name in results.csv. */
    public String id() {
      return id;
    }
  }

  /**
   * One point of one curve family.
   *
   * @param sweep the sweep
   * @param batch b
   * @param maliciousRecords n_A
   * @param colluders T = n_A N / n - 1 (an integer on the parties sweep; fractional on the records
   *     sweep, below 0 where the coalition holds less than one party's records)
   * @param poisson b/n
   * @param worst b/n_H
   * @param quantiles k* per slack, in the grid's order
   * @param slack (b - k*)/n_H per slack
   * @param equivalent the exact mixture's equivalent fraction, NaN where not computed
   * @param epsExact the exact mixture's eps after K steps, NaN where not computed
   * @param epsWorst the worst case's eps after K steps, NaN where not computed
   * @param epsPoisson Poisson sampling's eps after K steps at b/n
   */
  public record Row(Sweep sweep, int batch, int maliciousRecords, double colluders, double poisson, double worst,
      int[] quantiles, double[] slack, double equivalent, double epsExact, double epsWorst, double epsPoisson) {
    /** Whether the exact mixture was computed here. */
    public boolean hasEquivalent() {
      return !Double.isNaN(equivalent);
    }
  }

  /** The n_A of the records sweep: {@code points} integers from {@code from} to {@code to}, rounded. */
  public static int[] recordPoints(Grid g) {
    int[] out = new int[g.points()];
    for (int i = 0; i < out.length; i++) {
      out[i] = g.points() == 1 ? g.from()
          : (int) Math.round(g.from() + (double) i * (g.to() - g.from()) / (g.points() - 1));
    }
    return out;
  }

  /** The indices of {@link #recordPoints} that get the equivalent fraction: evenly spread, both ends. */
  static List<Integer> equivalentIndices(Grid g) {
    List<Integer> out = new ArrayList<>();
    int k = Math.min(g.equivalentPoints(), g.points());
    for (int i = 0; i < k; i++) {
      int idx = k == 1 ? 0 : (int) Math.round((double) i * (g.points() - 1) / (k - 1));
      if (!out.contains(idx)) {
        out.add(idx);
      }
    }
    return out;
  }

  /** n_A = ceil((T + 1) n / N): the observing party and its T colluders, all of equal size. */
  public static int coalitionRecords(int colluders, int parties, int records) {
    return (int) Math.ceil((double) (colluders + 1) * records / parties);
  }

  /**
   * Computes every row. The closed forms are immediate; the equivalent fractions (a dozen PLD
   * accountings each, seconds apiece) run on {@code threads} threads, the costliest first.
   */
  public static List<Row> run(Grid g, int threads, Progress progress) {
    record Task(Sweep sweep, int batch, int malicious, double colluders, boolean exact) {}
    List<Task> tasks = new ArrayList<>();
    int[] records = recordPoints(g);
    List<Integer> eq = equivalentIndices(g);
    for (int b : g.batches()) {
      boolean exact = g.equivalentBatches().contains(b);
      for (int i = 0; i < records.length; i++) {
        tasks.add(new Task(Sweep.RECORDS, b, records[i], (double) records[i] * g.parties() / g.records() - 1,
            exact && eq.contains(i)));
      }
      for (int t : g.colluders()) {
        tasks.add(new Task(Sweep.PARTIES, b, coalitionRecords(t, g.parties(), g.records()), t,
            exact && g.equivalentColluders().contains(t)));
      }
    }
    double[] epsPoisson = new double[g.batches().size()];
    Row[] rows = new Row[tasks.size()];
    Integer[] order = new Integer[tasks.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    // Larger batches and larger coalitions have wider hypergeometric supports: start them first.
    Arrays.sort(order, Comparator.comparingInt((Integer i) -> tasks.get(i).exact() ? 0 : 1)
        .thenComparingLong(i -> -(long) tasks.get(i).batch() * tasks.get(i).malicious()));
    long heavy = tasks.stream().filter(Task::exact).count();
    progress.start("crosssilo-sampling: " + tasks.size() + " points, " + heavy + " exact mixtures",
        heavy + g.batches().size());
    Parallel.forEach(threads, g.batches().size(), k -> {
      epsPoisson[k] = poissonEpsilon((double) g.batches().get(k) / g.records(), g);
      progress.advance(1);
    });
    Parallel.forEach(threads, order.length, j -> {
      int i = order[j];
      Task t = tasks.get(i);
      rows[i] = row(g, t.sweep(), t.batch(), t.malicious(), t.colluders(), t.exact(),
          epsPoisson[g.batches().indexOf(t.batch())]);
      if (t.exact()) {
        progress.advance(1);
      }
    });
    progress.finish();
    return List.of(rows);
  }

  private static Row row(Grid g, Sweep sweep, int b, int malicious, double colluders, boolean exact,
      double epsPoisson) {
    SworAmplification s = new SworAmplification(g.records(), malicious, b);
    int[] k = new int[g.slacks().size()];
    double[] slack = new double[k.length];
    for (int j = 0; j < k.length; j++) {
      k[j] = s.maliciousQuantile(g.slacks().get(j));
      slack[j] = (double) (b - k[j]) / s.honestRecords();
    }
    double equivalent = Double.NaN;
    double epsExact = Double.NaN;
    double epsWorst = Double.NaN;
    if (exact) {
      epsExact = s.epsilon(g.sigma(), new SworAmplification.Exact(), g.steps(), g.delta());
      equivalent = s.fractionAtEpsilon(epsExact, g.sigma(), g.steps(), g.delta());
      epsWorst = s.epsilon(g.sigma(), new SworAmplification.WorstCase(), g.steps(), g.delta());
    }
    return new Row(sweep, b, malicious, colluders, s.poissonFraction(), s.worstCaseFraction(), k, slack, equivalent,
        epsExact, epsWorst, epsPoisson);
  }

  private static double poissonEpsilon(double q, Grid g) {
    return new PldAccountant().compose(SworAmplification.poissonPair(q, g.sigma()), g.steps()).epsilon(g.delta());
  }

  /** The slack's label in column names and legends: 1e-15, 1e-10, 1e-05 as 1e-15, 1e-10, 1e-5. */
  static String slackLabel(double deltaS) {
    return String.format(Locale.ROOT, "%.0e", deltaS).replace("e-0", "e-");
  }

  /** Writes results.csv: one line per (sweep, b, n_A), every curve a column. */
  public static Path writeCsv(Grid g, List<Row> rows, Path out) throws IOException {
    StringBuilder sb = new StringBuilder("sweep,batch,records,malicious_records,malicious_parties_T,parties_N,"
        + "poisson,swor_worst");
    for (double d : g.slacks()) {
      sb.append(",swor_slack_").append(slackLabel(d));
    }
    for (double d : g.slacks()) {
      sb.append(",quantile_").append(slackLabel(d));
    }
    sb.append(",exact_equivalent,eps_exact,eps_worst,eps_poisson\n");
    for (Row r : rows) {
      sb.append(String.format(Locale.ROOT, "%s,%d,%d,%d,%.6f,%d,%s,%s", r.sweep().id(), r.batch(), g.records(),
          r.maliciousRecords(), r.colluders(), g.parties(), num(r.poisson()), num(r.worst())));
      for (double v : r.slack()) {
        sb.append(',').append(num(v));
      }
      for (int k : r.quantiles()) {
        sb.append(',').append(k);
      }
      sb.append(',').append(num(r.equivalent())).append(',').append(num(r.epsExact())).append(',')
          .append(num(r.epsWorst())).append(',').append(num(r.epsPoisson())).append('\n');
    }
    Path file = out.resolve("results.csv");
    Files.writeString(file, sb, StandardCharsets.UTF_8);
    return file;
  }

  /** Nine significant digits; empty for NaN (a value not computed at that point). */
  static String num(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.9g", v);
  }
}
