package dev.helmet.cli;

import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.experiments.Computation;
import dev.helmet.experiments.ComputedPreset;
import dev.helmet.experiments.ExperimentConfig;
import dev.helmet.experiments.ExperimentRunner;
import dev.helmet.experiments.GridPreset;
import dev.helmet.experiments.Preset;
import dev.helmet.experiments.Presets;
import dev.helmet.experiments.Report;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code helmet experiment}: sweeps that reproduce the papers' evaluations, with plots and a report. */
@Command(name = "experiment", mixinStandardHelpOptions = true,
    description = "Experiments: sweeps over parties, eps, learners and protocols, with results.csv, plots and a "
        + "report.",
    subcommands = {ExperimentCommand.Run.class})
final class ExperimentCommand extends GroupCommand {

  /** Runs one experiment (resumable). */
  @Command(name = "run", mixinStandardHelpOptions = true,
      description = "Run an experiment from a YAML or JSON file, or a built-in preset (--preset). Cells already in "
          + "--out are kept, so an "
          + "interrupted run continues where it stopped. Writes results.csv, PNG and SVG plots and report.md.")
  static final class Run implements Callable<Integer> {
    @Parameters(paramLabel = "CONFIG", arity = "0..1", description = "The experiment file (see docs/experiments.md).")
    Path config;

    @Option(names = "--preset", paramLabel = "NAME", completionCandidates = PresetIds.class,
        description = "A built-in experiment instead of a file, one of: ${COMPLETION-CANDIDATES}. Each reproduces "
            + "a figure or table of the papers; docs/experiments.md says what each runs, on which data sets, and "
            + "how long it takes.")
    String preset;

    @Option(names = "--dataset", paramLabel = "NAME",
        description = "With --preset: the data set, where the preset takes one (each has its default and the data "
            + "sets it accepts: docs/experiments.md; an image preset takes mnist or fashion-mnist).")
    String dataset;

    @Option(names = "--quick", description = "With --preset: a small grid that finishes in about two minutes.")
    boolean quick;

    @Option(names = "--report-only",
        description = "Write results.csv, the plots and report.md of the cells finished so far in --out into "
            + "--out/partial (for example while the grid still runs, or after it was stopped), without running any "
            + "cell: the run's command with this flag added (its --threads, --cells-at-once, --engine, --master, "
            + "--engine-conf and --reuse are ignored). With --json, seconds is null and report_only true.")
    boolean reportOnly;

    @Option(names = "--rewrite-report",
        description = "Rewrite results.csv, the plots and report.md of a finished experiment in --out from its "
            + "cells, with this Helmet's report (for example after a correction to the report's text), without "
            + "running any cell. The report keeps the command and time of the invocation that ran the cells and "
            + "says it was rewritten. With --json, report_rewritten is true.")
    boolean rewriteReport;

    @Option(names = "--features", paramLabel = "raw|scatter|hog",
        description = "With --preset: the feature stage, applied to every image before anything else (raw pixels, "
            + "the 2-D scattering transform or histograms of oriented gradients; computed once and cached under "
            + "--cache-dir). Other than raw it is part of the experiment's name, e.g. fig5-mnist-scatter. Default: "
            + "raw. An experiment file states it in its features key: --features may repeat that value, and a "
            + "different one is an error (edit the file instead), so the file always says what ran.")
    String features;

    @Option(names = "--network", completionCandidates = NetworkedPresetIds.class,
        description = "With a preset that has a networked form (${COMPLETION-CANDIDATES}): run it over the network "
            + "instead, each compute node its own `helmet compute-node` process on loopback, the coordinator and "
            + "the participants in this JVM, mutual TLS (docs/experiments.md).")
    boolean network;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "Where the results go (created).")
    Path out;

    @Option(names = "--threads", paramLabel = "N", description = "Worker threads. Default: all cores (a timing "
        + "preset sets its own, e.g. 1 like a sequential baseline; docs/experiments.md).")
    Integer threads;

    @Option(names = "--cache-dir", paramLabel = "DIR", description = "Default: $HELMET_CACHE or ~/.cache/helmet.")
    Path cacheDir;

    @Option(names = "--engine", paramLabel = "local|spark", defaultValue = "local",
        description = "Where the cells run: local (one after another, each on --threads threads; or --cells-at-once "
            + "at a time) or spark (each cell "
            + "a Spark task, as many at once as the cluster has cores; the launcher adds module helmet-spark and "
            + "Spark). The same results.csv, plots and report. Default: ${DEFAULT-VALUE}.")
    String engine;

    @Option(names = "--cells-at-once", paramLabel = "K", defaultValue = "1",
        description = "With --engine local: run K cells at a time, each on --threads threads (default then: the "
            + "cores over K). For grids of long cells, such as the smm-fl presets' 1,000-round MLPs, where a cell "
            + "on all cores leaves some idle while each round waits for its slowest party and the server's step. "
            + "Default: ${DEFAULT-VALUE}.")
    int cellsAtOnce;

    @Option(names = "--reuse", paramLabel = "DIR",
        description = "Take the cells that are the same runs from another experiment's output folder instead of "
            + "running them; repeatable. A cell is taken when DIR's experiment has the same data (data set, features, "
            + "records per party, delta, honest fraction, validation split), a variant with the same algorithm, "
            + "summation and settings point, a finished cell of the same partition, parties, repeat and fold, and a "
            + "row for every eps of this experiment; its rows are copied under this variant's name and marked "
            + "reused_from in cells.jsonl. E.g. smm-fl-batch at |B| 240 and smm-fl-gamma at gamma m/4 are smm-fl's "
            + "own eps 3 runs: --reuse the smm-fl folder of the same data set. A folder on other data is refused.")
    java.util.List<Path> reuse;

    @Option(names = "--master", paramLabel = "URL",
        description = "With --engine spark: the Spark master, local[*] (default), spark://host:7077, yarn or k8s://...")
    String master;

    @Option(names = "--engine-conf", paramLabel = "KEY=VALUE",
        description = "With --engine spark: a Spark setting (spark.*, e.g. spark.executor.memory=4g); repeatable. On "
            + "a cluster the launcher ships helmet.jar and helmet-spark.jar to the executors unless spark.jars is "
            + "given.")
    java.util.Map<String, String> engineConf;

    @Option(names = "--json", description = "Print one JSON object when done (keys: name, cells, ran, kept, reused, "
        + "seconds, results, report, plots, report_only; report_kept, report_rewritten) instead of the summary lines.")
    boolean json;

    @Option(names = {"-q", "--quiet"}, description = "No progress output.")
    boolean quiet;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      if ((config == null) == (preset == null)) {
        throw new IllegalArgumentException("give either an experiment file or --preset (" + String.join(", ",
            Presets.ALL) + ")");
      }
      if (config != null && quick) {
        throw new IllegalArgumentException("--quick applies to presets only; make the file's grid smaller instead");
      }
      Preset p = preset == null ? null : Presets.named(preset);
      boolean noCells = network || p instanceof ComputedPreset;
      if (reportOnly && rewriteReport) {
        throw new IllegalArgumentException("give --report-only (the cells finished so far, into --out/partial) or "
            + "--rewrite-report (a finished experiment's own report), not both");
      }
      if ((reportOnly || rewriteReport) && noCells) {
        throw new IllegalArgumentException((reportOnly ? "--report-only" : "--rewrite-report") + " applies to "
            + "experiments that keep their cells in cells.jsonl; " + (network ? "--network timings" : "--preset "
            + preset) + " do not");
      }
      if (cellsAtOnce < 1 || cellsAtOnce > dev.helmet.experiments.LocalGrid.MAX_CELLS_AT_ONCE) {
        throw new IllegalArgumentException("--cells-at-once must be in [1, "
            + dev.helmet.experiments.LocalGrid.MAX_CELLS_AT_ONCE + "]. Provided value: " + cellsAtOnce);
      }
      if (cellsAtOnce != 1 && noCells) {
        throw new IllegalArgumentException("--cells-at-once applies to experiments made of cells; "
            + (network ? "--network timings are not" : "--preset " + preset + " is not one"));
      }
      if (reuse != null && noCells) {
        throw new IllegalArgumentException("--reuse applies to experiments made of cells; "
            + (network ? "--network timings are not one" : "--preset " + preset + " is not one"));
      }
      if (cellsAtOnce != 1 && !engine.equalsIgnoreCase("local")) {
        throw new IllegalArgumentException("--cells-at-once goes with --engine local; Spark runs as many cells at "
            + "once as its cluster has cores");
      }
      if (network) {
        if (p == null || p.network() == null) {
          throw new IllegalArgumentException("--network applies to --preset " + String.join(" and ",
              Presets.networked()) + " only");
        }
        Logging.configure(true);
        return printOutputs(p.network().computation().run(request()));
      }
      if (p instanceof ComputedPreset computed) {
        return printOutputs(computed.computation().run(request()));
      }
      String f = features == null ? null : features.trim().toLowerCase(java.util.Locale.ROOT);
      if (f != null && !FeatureStage.IDS.contains(f)) {
        throw new IllegalArgumentException("--features must be one of " + String.join(", ", FeatureStage.IDS)
            + ". Provided value: " + features);
      }
      ExperimentConfig c = config != null ? ExperimentConfig.read(config)
          : ((GridPreset) p).config((dataset != null ? dataset : p.defaultDataset()).toLowerCase(java.util.Locale.ROOT),
              quick, f == null ? "raw" : f);
      if (f != null && !f.equals(c.features())) {
        throw new IllegalArgumentException("--features " + f + " disagrees with " + config + ", which says features: "
            + c.features() + "; set the features key in the file instead (or leave out --features)");
      }
      int t = threads != null ? threads : Math.max(1, Runtime.getRuntime().availableProcessors() / cellsAtOnce);
      if (t < 1) {
        throw new IllegalArgumentException("--threads must be positive. Provided value: " + t);
      }
      var err = spec.commandLine().getErr();
      if (reportOnly) { // the run's own flags (--threads, --engine, --master, --engine-conf) do not apply
        ExperimentRunner.Summary s = ExperimentRunner.recorded(c, out);
        if (s.skipped() == 0) {
          throw new IllegalArgumentException(out + " holds no finished cell of " + c.name() + " yet");
        }
        return report(c, s, commandLine(c) + " --report-only (" + s.skipped() + " of " + s.cells() + " cells)");
      }
      if (rewriteReport) {
        return rewrite(c);
      }
      if (!quiet) {
        err.println("experiment " + c.name() + " -> " + out);
        err.flush();
      }
      ExperimentRunner.Settings settings = new ExperimentRunner.Settings(out,
          cacheDir != null ? cacheDir : BuiltinDataset.defaultCache(), t, new ConsoleProgress(System.err, !quiet));
      if (!engine.equalsIgnoreCase("local")) {
        settings = settings.on(dev.helmet.experiments.Grid.named(engine.toLowerCase(java.util.Locale.ROOT),
            RunOptions.engineOptions(master, 0, engineConf)));
      } else {
        RunOptions.refuseStrayEngineOptions(master, engineConf, 0);
        settings = settings.on(new dev.helmet.experiments.LocalGrid(cellsAtOnce));
      }
      if (reuse != null) {
        settings = settings.reusing(reuse);
      }
      ExperimentRunner.Summary s = ExperimentRunner.run(c, settings);
      return report(c, s, commandLine(c));
    }

    /**
     * The command that makes this experiment, for the report: the flags that choose the cells and
     * where they come from (--reuse), and those that set how they ran (--engine, --cells-at-once,
     * --threads), so that the line reruns the same work. Paths are shown as they were given.
     */
    private String commandLine(ExperimentConfig c) {
      StringBuilder b = new StringBuilder("helmet experiment run ").append(config != null ? config.toString()
          : "--preset " + preset + " --dataset " + c.dataset() + (quick ? " --quick" : "")
              + (c.features().equals("raw") ? "" : " --features " + c.features()));
      if (!engine.equalsIgnoreCase("local")) {
        b.append(" --engine ").append(engine);
      }
      if (cellsAtOnce != 1) {
        b.append(" --cells-at-once ").append(cellsAtOnce);
      }
      if (threads != null) {
        b.append(" --threads ").append(threads);
      }
      if (reuse != null) {
        reuse.forEach(r -> b.append(" --reuse ").append(r));
      }
      return b.append(" --out ").append(out).toString();
    }

    /**
     * Writes results.csv, the plots and report.md for {@code s}'s rows (a report of the cells
     * finished so far into OUT/partial, apart from what the run writes at its end), and says so.
     */
    private int report(ExperimentConfig c, ExperimentRunner.Summary s, String command) throws java.io.IOException {
      Path dir = out;
      if (s.reportOnly()) {
        dir = out.resolve("partial");
        java.nio.file.Files.createDirectories(dir);
      }
      // A run that found every cell finished (and borrowed none) keeps the report of the invocation
      // that ran them, with its time, rather than replacing it with one that says it took 0 s.
      boolean kept = !s.reportOnly() && s.ran() == 0 && s.reused() == 0
          && java.nio.file.Files.exists(dir.resolve("report.md"));
      Report.Outputs o = kept ? Report.existing(dir) : Report.write(c, s.rows(), dir, new Report.Made(command,
          s.seconds()), s.times(), null, claims());
      var pw = spec.commandLine().getOut();
      if (json) {
        var j = Json.object();
        j.put("name", c.name());
        j.put("cells", s.cells());
        j.put("ran", s.ran());
        j.put("kept", s.skipped());
        j.put("reused", s.reused());
        if (s.reportOnly()) {
          j.putNull("seconds"); // nothing was run
        } else {
          j.put("seconds", s.seconds());
        }
        j.put("report_only", s.reportOnly());
        j.put("report_kept", kept);
        putOutputs(j, o);
        pw.println(Json.print(j));
        pw.flush();
        return Main.OK;
      }
      if (s.reportOnly()) {
        pw.printf("%s: %d of %d cells finished so far (nothing run)%n", c.name(), s.skipped(), s.cells());
      } else {
        pw.printf("%s: %d cells (%d run now, %d kept from before%s) in %.1f s%n", c.name(), s.cells(), s.ran(),
            s.skipped(), s.reused() > 0 ? ", " + s.reused() + " taken from --reuse folders" : "", s.seconds());
      }
      if (kept) {
        pw.printf("  every cell was finished by earlier invocations: their report is left as it was (--report-only "
            + "writes a fresh one into %s)%n", out.resolve("partial"));
      }
      pw.printf("  results   %s%n  report    %s%n", o.csv(), o.report());
      for (Path p : o.plots()) {
        pw.printf("  plot      %s.png, .svg%n", p);
      }
      pw.flush();
      return Main.OK;
    }

    /**
     * --rewrite-report: the finished experiment's outputs written again from its cells, keeping the
     * command and time of the invocation that ran them (its report's first line).
     */
    private int rewrite(ExperimentConfig c) throws java.io.IOException {
      ExperimentRunner.Summary s = ExperimentRunner.recorded(c, out);
      if (s.skipped() < s.cells()) {
        throw new IllegalArgumentException(out + " holds " + s.skipped() + " of the " + s.cells() + " cells of "
            + c.name() + "; --rewrite-report rewrites a finished experiment's report (--report-only reports the "
            + "cells finished so far)");
      }
      Report.Made made = Report.madeBy(out);
      String by = commandLine(c) + " --rewrite-report";
      Report.Outputs o = Report.write(c, s.rows(), out, made, s.times(), by, claims());
      var pw = spec.commandLine().getOut();
      if (json) {
        var j = Json.object();
        j.put("name", c.name());
        j.put("cells", s.cells());
        j.put("ran", 0);
        j.put("kept", s.skipped());
        j.put("seconds", made.seconds()); // the invocation's that ran the cells, as the report says
        j.put("report_only", false);
        j.put("report_rewritten", true);
        putOutputs(j, o);
        pw.println(Json.print(j));
        pw.flush();
      } else {
        printOutputs(String.format(java.util.Locale.ROOT, "%s: the report of %d finished cells rewritten (nothing "
            + "run; made by %s in %.0f s)", c.name(), s.cells(), made.command(), made.seconds()), Double.NaN,
            List.of(o.csv()), o.report(), o.plots());
      }
      return Main.OK;
    }

    /** The files an experiment wrote, as its --json names them. */
    private static void putOutputs(com.fasterxml.jackson.databind.node.ObjectNode j, Report.Outputs o) {
      j.put("results", o.csv().toString());
      j.put("report", o.report().toString());
      var plots = j.putArray("plots");
      o.plots().forEach(p -> plots.add(p.toString()));
    }

    /** The claims sections the report checks: the preset's, or every registered one's for a file. */
    private java.util.List<dev.helmet.experiments.Claims> claims() {
      return Presets.claims(preset == null ? null : Presets.named(preset));
    }

    /** The options a computed preset (or a preset's --network form) runs with. */
    private Computation.Request request() {
      return new Computation.Request(out, quick, dataset, features, threads, cacheDir != null ? cacheDir
          : BuiltinDataset.defaultCache(), new ConsoleProgress(System.err, !quiet), Main.class.getName());
    }

    /** Prints what a computed preset wrote. */
    private int printOutputs(Computation.Result r) {
      printOutputs(r.summary(), r.seconds(), r.tables(), r.report(), r.plots());
      return Main.OK;
    }

    /** Prints what was written, after {@code what} and the seconds it took (none if NaN). */
    private void printOutputs(String what, double seconds, List<Path> files, Path report, List<Path> plots) {
      var pw = spec.commandLine().getOut();
      pw.println(Double.isNaN(seconds) ? what : String.format(java.util.Locale.ROOT, "%s in %.1f s", what, seconds));
      for (Path f : files) {
        pw.printf("  results   %s%n", f);
      }
      pw.printf("  report    %s%n", report);
      for (Path p : plots) {
        pw.printf("  plot      %s.png, .svg%n", p);
      }
      pw.flush();
    }
  }

  /** The registered presets' ids, for --preset's help. */
  static final class PresetIds implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Presets.ALL.iterator();
    }
  }

  /** The ids of the presets with a networked form, for --network's help. */
  static final class NetworkedPresetIds implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Presets.networked().iterator();
    }
  }
}
