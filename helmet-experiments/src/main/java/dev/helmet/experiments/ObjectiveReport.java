package dev.helmet.experiments;

import com.fasterxml.jackson.databind.JsonNode;
import dev.helmet.protocols.algorithm.Parameter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The report's section for algorithms with a training objective (wd-dp): the test metric (accuracy,
 * or MSE for regression) and the optimality gap {@code L_D(theta) - L_D(theta*)} against eps and
 * against the imbalance u of {@code uneven-uR} partitions, with the non-private optimum theta* as a
 * reference line. Every chart states what it ran under: trust mode, delta, T, eta and the budget
 * split, read from the variants' settings (their defaults where a setting is not given).
 */
final class ObjectiveReport {
  private static final Pattern UNEVEN = Pattern.compile("uneven-u([0-9.]+)");

  private ObjectiveReport() {}

  /** Whether {@code rows} carry optimality gaps (the algorithm has an objective). */
  static boolean applies(List<Row> rows) {
    return rows.stream().anyMatch(r -> !Double.isNaN(r.gap()));
  }

  /** Appends the section to {@code md} and writes its charts into {@code out}. */
  static void write(ExperimentConfig c, List<Row> selected, Path out, StringBuilder md, List<Path> plots)
      throws IOException {
    List<Row> rows = selected.stream().filter(r -> r.selection().equals("validation")).toList();
    boolean regression = rows.stream().anyMatch(Row::regression);
    Chart.YAxis metric = regression ? new Chart.YAxis("test MSE (target units)", false, false)
        : new Chart.YAxis("test accuracy (%)", true, false);
    Chart.YAxis gapAxis = new Chart.YAxis("optimality gap L(theta) - L(theta*)", false, true);
    String subtitle = settings(c);
    String what = regression ? "MSE" : "accuracy";
    md.append("## ").append(regression ? "Test MSE" : "Test accuracy").append(" and optimality gap\n\n")
        .append("Settings: ").append(subtitle).append(". The optimality gap is L_D(theta) - L_D(theta*) on the "
            + "pooled training records of each run's parties, theta* the non-private optimum of the same objective "
            + "(`optimality_gap` in `results.csv`); *non-private* is theta*'s test ").append(what)
        .append(" (`nonprivate_metric`). Both are measurements on data the experiment holds, not private releases."
            + "\n\n");
    if (c.epsilons().size() > 1) {
      for (String p : c.partitions()) {
        for (int w : c.parties()) {
          List<Row> cell = rows.stream().filter(r -> r.partition().equals(p) && r.parties() == w).toList();
          if (cell.isEmpty()) {
            continue;
          }
          String tag = p + ", " + w + " parties";
          chart(out, md, plots, "metric-vs-eps-" + p + "-" + w, (regression ? "MSE" : "Accuracy") + " vs eps (" + tag
              + ")", subtitle, "eps (log scale)", metric, byX(cell, Row::targetEps, Row::metric), nonPrivate(cell));
          chart(out, md, plots, "gap-vs-eps-" + p + "-" + w, "Optimality gap vs eps (" + tag + ")", subtitle,
              "eps (log scale)", gapAxis, byX(cell, Row::targetEps, Row::gap), null);
        }
      }
    }
    List<Row> uneven = rows.stream().filter(r -> UNEVEN.matcher(r.partition()).matches()
        && Math.abs(Math.log(r.targetEps() / c.plotEpsilon())) < 1e-9).toList();
    if (uneven.stream().map(Row::partition).distinct().count() > 1) {
      int w = c.parties().get(c.parties().size() - 1);
      List<Row> cell = uneven.stream().filter(r -> r.parties() == w).toList();
      String tag = w + " parties, eps = " + Chart.fmt(c.plotEpsilon());
      chart(out, md, plots, "metric-vs-imbalance", (regression ? "MSE" : "Accuracy") + " vs imbalance u (" + tag + ")",
          subtitle, "u = n_max / n_min", metric, byX(cell, ObjectiveReport::imbalance, Row::metric), nonPrivate(cell));
      chart(out, md, plots, "gap-vs-imbalance", "Optimality gap vs imbalance u (" + tag + ")", subtitle,
          "u = n_max / n_min", gapAxis, byX(cell, ObjectiveReport::imbalance, Row::gap), null);
    }
    table(c, rows, md, regression);
  }

  /** Mean and sd of {@code y} per variant per x. */
  private static Map<String, TreeMap<Double, List<Double>>> byX(List<Row> rows, ToDoubleFunction<Row> x,
      ToDoubleFunction<Row> y) {
    Map<String, TreeMap<Double, List<Double>>> out = new TreeMap<>();
    for (Row r : rows) {
      out.computeIfAbsent(r.variant(), k -> new TreeMap<>()).computeIfAbsent(x.applyAsDouble(r),
          k -> new ArrayList<>()).add(y.applyAsDouble(r));
    }
    return out;
  }

  /** theta*'s mean test metric over the runs, or null when not recorded. */
  private static Double nonPrivate(List<Row> rows) {
    double m = rows.stream().mapToDouble(Row::nonPrivate).filter(v -> !Double.isNaN(v)).average().orElse(Double.NaN);
    return Double.isNaN(m) ? null : m;
  }

  private static void chart(Path out, StringBuilder md, List<Path> plots, String file, String title, String subtitle,
      String xLabel, Chart.YAxis y, Map<String, TreeMap<Double, List<Double>>> data, Double reference)
      throws IOException {
    List<Chart.Series> series = new ArrayList<>();
    double[] xs = null;
    for (var e : data.entrySet()) {
      double[] x = e.getValue().keySet().stream().mapToDouble(Double::doubleValue).toArray();
      double[] mean = new double[x.length];
      double[] sd = new double[x.length];
      int i = 0;
      for (List<Double> v : e.getValue().values()) {
        mean[i] = v.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        double m = mean[i];
        sd[i] = v.size() > 1 ? Math.sqrt(v.stream().mapToDouble(d -> (d - m) * (d - m)).sum() / (v.size() - 1)) : 0;
        i++;
      }
      if (y.log()) {
        // a gap is >= 0 up to the solver's tolerance; a log axis shows magnitudes, so bars would mislead
        sd = new double[x.length];
      }
      series.add(new Chart.Series(e.getKey(), x, mean, sd, false));
      xs = x;
    }
    if (reference != null && xs != null) {
      double[] flat = new double[xs.length];
      java.util.Arrays.fill(flat, reference);
      series.add(new Chart.Series("non-private (theta*)", xs, flat, new double[xs.length], true));
    }
    Path base = out.resolve(file);
    boolean logX = xLabel.startsWith("eps");
    Chart.line(base, title, subtitle, xLabel, logX, y, series);
    plots.add(base);
    md.append("![").append(title).append("](").append(base.getFileName()).append(".png)\n\n");
  }

  private static void table(ExperimentConfig c, List<Row> rows, StringBuilder md, boolean regression) {
    md.append("| variant | partition | parties |");
    for (double e : c.epsilons()) {
      md.append(" eps ").append(Chart.fmt(e)).append(": ").append(regression ? "MSE" : "acc. %").append(" / gap |");
    }
    md.append("\n|---|---|---|").append("---|".repeat(c.epsilons().size())).append("\n");
    Map<String, List<Row>> groups = new TreeMap<>();
    for (Row r : rows) {
      groups.computeIfAbsent(r.variant() + "|" + r.partition() + "|" + String.format("%06d", r.parties()),
          k -> new ArrayList<>()).add(r);
    }
    groups.forEach((key, g) -> {
      Row first = g.get(0);
      md.append("| ").append(first.variant()).append(" | ").append(first.partition()).append(" | ")
          .append(first.parties()).append(" |");
      for (double e : c.epsilons()) {
        List<Row> at = g.stream().filter(r -> r.targetEps() == e).toList();
        if (at.isEmpty()) {
          md.append(" - |");
          continue;
        }
        double m = at.stream().mapToDouble(Row::metric).average().orElse(Double.NaN);
        double gap = at.stream().mapToDouble(Row::gap).average().orElse(Double.NaN);
        md.append(String.format(Locale.ROOT, regression ? " %.4g / %.3g |" : " %.2f / %.3g |", regression ? m : 100 * m,
            gap));
      }
      md.append("\n");
    });
    md.append("\n");
  }

  private static double imbalance(Row r) {
    Matcher m = UNEVEN.matcher(r.partition());
    return m.matches() ? Double.parseDouble(m.group(1)) : Double.NaN;
  }

  /**
   * The settings every chart states: trust mode, delta, T, eta and the budget split, from the first
   * variant (its value where given, else the algorithm's documented default).
   */
  static String settings(ExperimentConfig c) {
    ExperimentConfig.Variant v = c.variants().get(0);
    JsonNode point = v.points().isEmpty() ? null : v.points().get(0);
    String trust = v.summation().equals("plain") ? "trusted server (models summed in the clear)"
        : "secure (" + v.summation() + ")";
    String steps = value(v, point, "--steps");
    String eta = value(v, point, "--step-size");
    String f = value(v, point, "--weight-noise-fraction");
    String split = f.equals("0") ? "all of (eps, delta) on the T steps" : "eps1 = (1 - " + f + ") eps on the T steps, "
        + "eps2 = " + f + " eps on the weights";
    return trust + "; delta " + c.delta() + "; T " + steps + "; eta " + (eta.equals("0") ? "1/beta" : eta) + "; "
        + split;
  }

  /**
   * The value of the variant's parameter whose command-line option is {@code flag} (wd-dp's
   * {@code --steps}, ...: the option names the setting whatever the algorithm calls its section),
   * its default where the point does not give it, or "?" if the algorithm has no such parameter.
   */
  private static String value(ExperimentConfig.Variant v, JsonNode point, String flag) {
    Parameter p = v.algorithm().parameters().stream().filter(x -> x.flag().equals(flag)).findFirst().orElse(null);
    if (p == null) {
      return "?";
    }
    JsonNode n = v.algorithm().setting(point, p.path());
    return n != null && !n.isNull() ? n.asText() : p.defaultValue();
  }
}
