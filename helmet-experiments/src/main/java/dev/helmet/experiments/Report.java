package dev.helmet.experiments;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes an experiment's outputs: {@code results.csv}, the plots (PNG and SVG) and
 * {@code report.md}, which embeds them next to the configuration and the tables of mean test
 * accuracy, hyperparameters selected on validation data beside the best on test data.
 */
public final class Report {
  private Report() {}

  /**
   * The neighbouring relations of the rows' eps, in one sentence (with its trailing space; empty if
   * no row records one): whether the columns compare.
   */
  static String relations(List<Row> rows) {
    List<String> r = rows.stream().map(Row::neighbours).filter(n -> n != null && !n.isEmpty()).distinct().sorted()
        .toList();
    if (r.isEmpty()) {
      return "";
    }
    return r.size() == 1 ? "Every variant is accounted under the same neighbouring relation, neighbours that "
        + r.get(0) + " (`neighbours` in `results.csv`), so the columns compare. "
        : "The variants are accounted under different neighbouring relations (" + String.join("; ", r)
            + "; `neighbours` in `results.csv`): compare their eps with that in mind. ";
  }

  /** The files written. */
  public record Outputs(Path csv, Path report, List<Path> plots) {}

  /**
   * The outputs a report already written into {@code dir} consists of (each plot named without its
   * .png/.svg extension, as {@link #write} names them), for a run that leaves them as they are.
   */
  public static Outputs existing(Path dir) throws IOException {
    List<Path> plots;
    try (var files = java.nio.file.Files.list(dir)) {
      plots = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".svg")).sorted()
          .map(n -> dir.resolve(n.substring(0, n.length() - ".svg".length()))).toList();
    }
    return new Outputs(dir.resolve("results.csv"), dir.resolve("report.md"), plots);
  }

  private static final String[] SELECTIONS = {"validation", "test"};

  /**
   * Writes results.csv, the plots and report.md for {@code rows} into {@code out}; {@code seconds}
   * is the run's time, or NaN for a report of the cells finished so far.
   */
  public static Outputs write(ExperimentConfig c, List<Row> rows, Path out, String command, double seconds)
      throws IOException {
    return write(c, rows, out, command, seconds, null);
  }

  /** {@link #write(ExperimentConfig, List, Path, String, double)}, saying how long the cells took ({@code times}). */
  public static Outputs write(ExperimentConfig c, List<Row> rows, Path out, String command, double seconds,
      CellTimes times) throws IOException {
    return write(c, rows, out, new Made(command, seconds), times, null);
  }

  /** The invocation that ran an experiment's cells, as its report's first line names it. */
  public record Made(String command, double seconds) {}

  private static final java.util.regex.Pattern MADE =
      java.util.regex.Pattern.compile("^Made by `(.+)`; this invocation took (\\d+) s ");

  /**
   * The invocation named by the report in {@code dir}, which a run wrote at its end.
   *
   * @throws IllegalArgumentException if there is no such report, or it was not written by a run
   */
  public static Made madeBy(Path dir) throws IOException {
    Path md = dir.resolve("report.md");
    if (!Files.exists(md)) {
      throw new IllegalArgumentException(dir + " holds no report.md to rewrite; a run writes one when its last "
          + "cell finishes");
    }
    for (String line : Files.readAllLines(md, StandardCharsets.UTF_8)) {
      var m = MADE.matcher(line);
      if (m.find()) {
        return new Made(m.group(1), Double.parseDouble(m.group(2)));
      }
    }
    throw new IllegalArgumentException(md + " does not name the invocation that ran its cells (no line \"Made by "
        + "`...`; this invocation took N s\"), so a rewrite could not keep it");
  }

  /**
   * Writes the outputs as {@link #write(ExperimentConfig, List, Path, String, double, CellTimes)}
   * does; a non-null {@code rewrittenBy} (a command) says that this report was rewritten from the
   * cells of the run {@code made} names, which ran nothing new.
   */
  public static Outputs write(ExperimentConfig c, List<Row> rows, Path out, Made made, CellTimes times,
      String rewrittenBy) throws IOException {
    return write(c, rows, out, made, times, rewrittenBy, Presets.claims(null));
  }

  /**
   * Writes the outputs as {@link #write(ExperimentConfig, List, Path, Made, CellTimes, String)}
   * does, checking the claims sections {@code claims} (a preset's own, {@link Presets#claims}), each
   * where it applies to the results. The other forms check every registered preset's, as for an
   * experiment file.
   */
  public static Outputs write(ExperimentConfig c, List<Row> rows, Path out, Made made, CellTimes times,
      String rewrittenBy, List<Claims> claims) throws IOException {
    String command = made.command();
    double seconds = made.seconds();
    List<Row> grid = rows.stream().filter(r -> r.selection().equals("grid")).toList();
    List<Row> selected = Results.select(grid);
    Path csv = out.resolve("results.csv");
    Results.writeCsv(csv, grid, selected);
    var summary = Results.summarise(selected);
    List<Path> plots = new ArrayList<>();
    StringBuilder md = new StringBuilder();
    md.append("# ").append(c.name()).append("\n\n");
    md.append("Made by `").append(command).append(Double.isNaN(seconds)
        ? "` from the cells finished so far (nothing was run). Data set "
        : "`; this invocation took " + String.format(Locale.ROOT, "%.0f", seconds)
            + " s (cells finished by earlier invocations were kept, not rerun). Data set ").append(c.dataset())
        .append(" (").append(c.features()).append(" features").append(c.imageShape() == null ? ""
            : ", images " + c.imageShape()).append("), ")
        .append(c.perParty()).append(" records per party, delta = ").append(c.delta()).append(", honest fraction ")
        .append(c.honestFraction()).append("; ").append(c.repeats()).append(" repeat(s) x ").append(c.folds())
        .append(" validation fold(s). Each figure is the mean test accuracy over the repeats and folds (error bars: "
            + "one standard deviation). Every run is in `results.csv`.")
        .append(rewrittenBy == null ? "" : " This text was rewritten from the same cells by `" + rewrittenBy
            + "`, with the report of a later Helmet; no cell was rerun, and the figures are the run's.")
        .append("\n\n");
    md.append("**Hyperparameter selection.** *validation*: for each setting the grid point with the best accuracy "
        + "on a validation split (" + (c.validationFrom().equals("test") ? "a stratified " + Chart.fmt(100 * c.validationFraction())
        + " % of the official test set; accuracy is reported on the rest of it" : "a stratified "
        + Chart.fmt(100 * c.validationFraction()) + " % of the training data, which no party holds; those held-out "
        + "records are used without noise, so the selection does not protect them") + "; honest). *test*: the best on "
        + "the reported test data itself, as the papers did; it is optimistic.\n\n"
        + "**What a selected result costs.** Choosing the best of k candidates looks at all k models, each a release "
        + "of the same training data: a selected figure is private at the composition of the k releases, not at "
        + "the eps of one. The tables give that total as *eps total* next to each figure (`selection_eps` in "
        + "`results.csv`, with its neighbouring relation in `neighbours`); the plots place each point at the "
        + "per-candidate eps. " + relations(grid) + "Each eps is the released model's guarantee, against anyone "
        + "holding the model; what it also holds against (the server, parties colluding with it) depends on each "
        + "variant's summation and noise split, as `helmet train` prints for the same settings.\n\n");
    if (times != null) {
      md.append(times.markdown());
    }
    String firstPartition = c.partitions().get(0);
    // Regression runs have no accuracy: their MSE and gaps are in the objective section alone.
    boolean classes = grid.stream().anyMatch(r -> !r.regression());
    if (classes && c.epsilons().size() > 1) {
      for (String sel : SELECTIONS) {
        List<Chart.Series> series = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<String> parties = new ArrayList<>();
        var byVariant = summary.getOrDefault(sel, Map.of());
        byVariant.forEach((variant, byPartition) -> {
          var byParties = byPartition.get(firstPartition);
          if (byParties != null) {
            byParties.forEach((w, byEps) -> {
              series.add(series(variant + ", " + w + " parties", byEps, false));
              names.add(variant);
              parties.add(String.valueOf(w));
            });
          }
        });
        Path base = out.resolve("accuracy-vs-eps-" + sel);
        String title = "Accuracy vs eps (" + firstPartition + "; selected on " + sel + ")";
        Chart.line(base, title, "eps (log scale)", true, series);
        plots.add(base);
        md.append("![accuracy vs eps, selected on ").append(sel).append("](").append(base.getFileName())
            .append(".png)\n\n");
        List<Path> panels = BitPanels.write(base, title, "eps (log scale)", series, names, parties);
        plots.addAll(panels);
        md.append(BitPanels.markdown(panels, "accuracy vs eps, selected on " + sel));
      }
    }
    double plotEps = c.plotEpsilon();
    if (classes && c.parties().size() > 1) {
      List<Chart.Series> series = new ArrayList<>();
      List<String> variants = new ArrayList<>(summary.getOrDefault("validation", Map.of()).keySet());
      for (String sel : SELECTIONS) {
        summary.getOrDefault(sel, Map.of()).forEach((variant, byPartition) -> {
          var byParties = byPartition.get(firstPartition);
          if (byParties == null) {
            return;
          }
          List<double[]> pts = new ArrayList<>();
          byParties.forEach((w, byEps) -> {
            Results.Cell cell = byEps.get(plotEps);
            if (cell != null) {
              pts.add(new double[] {w, cell.mean(), cell.sd()});
            }
          });
          series.add(new Chart.Series(variant + " (" + sel + ")", col(pts, 0), col(pts, 1), col(pts, 2),
              sel.equals("test"), variants.indexOf(variant)));
        });
      }
      Path base = out.resolve("accuracy-vs-parties");
      Chart.line(base, "Accuracy vs parties (" + firstPartition + ", eps = " + Chart.fmt(plotEps) + ")",
          "parties (log scale)", true, series);
      plots.add(base);
      md.append("![accuracy vs parties](").append(base.getFileName()).append(".png)\n\n")
          .append("Solid: selected on validation data; dashed: best on test data.\n\n");
    }
    if (classes && c.sweepLabel() != null) {
      List<Path> charts = sweep(c, summary, out, plotEps);
      plots.addAll(charts);
      md.append("![accuracy vs ").append(c.sweepLabel()).append("](").append(charts.get(0).getFileName())
          .append(".png)\n\n").append(BitPanels.markdown(charts.subList(1, charts.size()), "accuracy vs "
              + c.sweepLabel())).append("Solid: selected on validation data; dashed: best on test data.\n\n");
    }
    if (classes && c.partitions().size() > 1) {
      int w = c.parties().get(c.parties().size() - 1);
      List<Chart.BarGroup> groups = new ArrayList<>();
      summary.getOrDefault("validation", Map.of()).forEach((variant, byPartition) -> {
        double[] y = new double[c.partitions().size()];
        double[] sd = new double[y.length];
        for (int i = 0; i < y.length; i++) {
          var byParties = byPartition.get(c.partitions().get(i));
          Results.Cell cell = byParties == null || byParties.get(w) == null ? null : byParties.get(w).get(plotEps);
          y[i] = cell == null ? 0 : cell.mean();
          sd[i] = cell == null ? 0 : cell.sd();
        }
        groups.add(new Chart.BarGroup(variant, y, sd));
      });
      Path base = out.resolve("partitions");
      Chart.bars(base, "Partitions (" + w + " parties, eps = " + Chart.fmt(plotEps) + "; selected on validation)",
          c.partitions(), groups);
      plots.add(base);
      md.append("![partitions](").append(base.getFileName()).append(".png)\n\n");
    }
    for (String sel : classes ? SELECTIONS : new String[0]) {
      md.append("## Test accuracy %, hyperparameters selected on ").append(sel).append("\n\n");
      md.append("| variant | partition | parties |");
      for (double e : c.epsilons()) {
        md.append(" eps ").append(Chart.fmt(e)).append(" |");
      }
      md.append(" chosen at eps ").append(Chart.fmt(plotEps)).append(" |\n|---|---|---|");
      md.append("---|".repeat(c.epsilons().size() + 1)).append("\n");
      summary.getOrDefault(sel, Map.of()).forEach((variant, byPartition) -> byPartition.forEach((p, byParties) ->
          byParties.forEach((w, byEps) -> {
            md.append("| ").append(variant).append(" | ").append(p).append(" | ").append(w).append(" |");
            for (double e : c.epsilons()) {
              Results.Cell cell = byEps.get(e);
              md.append(cell == null ? " - |" : " " + figure(cell, c.repeats() * c.folds()) + " |");
            }
            Results.Cell chosen = byEps.get(plotEps);
            md.append(" ").append(chosen == null ? "-" : chosen.hyperparameters()).append(" |\n");
          })));
      md.append("\n");
    }
    for (Claims section : classes ? claims : List.<Claims>of()) {
      if (section.applies(summary)) {
        section.write(c, summary, md);
      }
    }
    if (ObjectiveReport.applies(grid)) {
      ObjectiveReport.write(c, selected, out, md, plots);
    }
    md.append("## Configuration\n\n```yaml\n");
    md.append(new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER))
        .writeValueAsString(c.toJson()));
    md.append("```\n");
    Path report = out.resolve("report.md");
    Files.writeString(report, md.toString(), StandardCharsets.UTF_8);
    return new Outputs(csv, report, plots);
  }

  /**
   * A variant named {@code SERIES@X} (e.g. {@code smm-b8@240}) is point X of series SERIES in the
   * sweep plot ({@code plots: {sweep: LABEL}}); null for any other name.
   */
  public static String[] sweepPoint(String variant) {
    int at = variant.lastIndexOf('@');
    if (at <= 0 || at == variant.length() - 1) {
      return null;
    }
    try {
      Double.parseDouble(variant.substring(at + 1));
      return new String[] {variant.substring(0, at), variant.substring(at + 1)};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * Accuracy against the swept value of the SERIES@X variants, at the plot's eps, first partition
   * and party count: the chart of every series, then one a ring width ({@link BitPanels}).
   */
  private static List<Path> sweep(ExperimentConfig c, Map<String, Map<String, Map<String, Map<Integer, Map<Double,
      Results.Cell>>>>> summary, Path out, double eps) throws IOException {
    String partition = c.partitions().get(0);
    int parties = c.parties().get(0);
    List<Chart.Series> series = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<String> seriesNames = new ArrayList<>();
    for (String sel : SELECTIONS) {
      Map<String, java.util.TreeMap<Double, double[]>> bySeries = new java.util.LinkedHashMap<>();
      summary.getOrDefault(sel, Map.of()).forEach((variant, byPartition) -> {
        String[] p = sweepPoint(variant);
        var byParties = byPartition.get(partition);
        Results.Cell cell = p == null || byParties == null || byParties.get(parties) == null ? null
            : byParties.get(parties).get(eps);
        if (cell != null) {
          bySeries.computeIfAbsent(p[0], k -> new java.util.TreeMap<>()).put(Double.parseDouble(p[1]),
              new double[] {cell.mean(), cell.sd()});
        }
      });
      bySeries.forEach((name, pts) -> {
        if (!names.contains(name)) {
          names.add(name);
        }
        series.add(new Chart.Series(name + " (" + sel + ")", pts.keySet().stream().mapToDouble(Double::doubleValue)
            .toArray(), pts.values().stream().mapToDouble(v -> v[0]).toArray(),
            pts.values().stream().mapToDouble(v -> v[1]).toArray(), sel.equals("test"), names.indexOf(name)));
        seriesNames.add(name);
      });
    }
    Path base = out.resolve("accuracy-vs-sweep");
    String title = "Accuracy vs " + c.sweepLabel() + " (" + partition + ", " + parties + " parties, eps = "
        + Chart.fmt(eps) + ")";
    Chart.line(base, title, c.sweepLabel() + " (log scale)", true, series);
    List<Path> charts = new ArrayList<>(List.of(base));
    // one party count here; a series' two selections share its colour and differ by dashing
    charts.addAll(BitPanels.write(base, title, c.sweepLabel() + " (log scale)", series, seriesNames,
        java.util.Collections.nCopies(series.size(), "")));
    return charts;
  }

  /**
   * A table's figure: mean ± sd over the runs, "1 run" where there is no spread to show, and how
   * many of the {@code expected} runs there are while a grid is still running.
   */
  static String figure(Results.Cell cell, int expected) {
    String eps = "eps total " + (Double.isNaN(cell.selectionEps()) ? "not recorded" : Chart.fmt(cell.selectionEps()));
    String runs = cell.n() >= expected ? "" : (cell.n() == 1 ? "1 run of " : cell.n() + " runs of ") + expected + "; ";
    return cell.n() == 1 ? String.format(Locale.ROOT, "%.2f (%s%s)", 100 * cell.mean(),
        runs.isEmpty() ? "1 run; " : runs, eps)
        : String.format(Locale.ROOT, "%.2f ± %.2f (%s%s)", 100 * cell.mean(), 100 * cell.sd(), runs, eps);
  }

  private static Chart.Series series(String label, Map<Double, Results.Cell> byEps, boolean dashed) {
    List<double[]> pts = new ArrayList<>();
    byEps.forEach((e, cell) -> pts.add(new double[] {e, cell.mean(), cell.sd()}));
    return new Chart.Series(label, col(pts, 0), col(pts, 1), col(pts, 2), dashed);
  }

  private static double[] col(List<double[]> pts, int k) {
    return pts.stream().mapToDouble(p -> p[k]).toArray();
  }
}
