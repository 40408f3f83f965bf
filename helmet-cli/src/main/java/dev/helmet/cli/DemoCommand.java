package dev.helmet.cli;

import dev.helmet.core.partition.PartitionStrategy;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet demo}: 1000 parties x 60 MNIST points, softmax, eps = 0.5, delta = 1e-5, t = 0.5,
 * with the documented defaults for everything else.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "1000 simulated parties with 60 MNIST images each train a differentially private softmax classifier "
          + "on histogram-of-oriented-gradient features by blind averaging, or by --algorithm NAME (eps = 0.5, "
          + "delta = 1e-5, honest fraction 0.5). Fetches MNIST on first use. "
          + "Prints test accuracy, the privacy guarantee, the noise multiplier, the non-private centralized "
          + "reference and the wall time, and writes the model."
    })
final class DemoCommand implements Callable<Integer> {
  static final int PARTIES = 1000;
  static final int PER_PARTY = 60;
  static final int MNIST_TRAIN = 60_000;

  @Mixin RunOptions run;

  @Option(names = "--cache-dir", paramLabel = "DIR",
      description = "Where MNIST is kept. Default: $HELMET_CACHE or ~/.cache/helmet.")
  Path cacheDir;

  @Option(names = "--network",
      description = "Run the networked protocol instead: a coordinator and the participants on loopback, each "
          + "participant with its own mutual-TLS connection (see `helmet coordinator` and `helmet participant`).")
  boolean network;

  @Mixin AlgorithmOptions algorithm;

  @Option(names = "--parties", paramLabel = "N",
      description = "Number of parties. Default: 1000, or 50 with --network.")
  Integer parties;

  @Option(names = "--per-party", paramLabel = "M",
      description = "MNIST training images per party. Default: 60, or with --network the whole training set "
          + "dealt out (60,000 / N: 1,200 for 50 parties, the cross-silo shape).")
  Integer perParty;

  @Option(names = "--features", paramLabel = "raw|scatter|hog", defaultValue = "hog",
      description = "Feature stage (see `helmet train --help`). hog and scatter lift the private model from about "
          + "80 %% (raw pixels) to about 90 %%; scatter is slightly more accurate on average but takes about 1.5 "
          + "minutes the first time (its features are cached after), hog about 25 s. Before 2026-11-25 (commit "
          + "f284441) the demo ran on raw pixels: --features raw. Default: ${DEFAULT-VALUE}.")
  String features;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    int w = parties != null ? parties : network ? 50 : PARTIES;
    if (w < 2 || w > 1000) {
      throw new IllegalArgumentException("--parties must be in [2, 1000]. Provided value: " + w);
    }
    int m = perParty != null ? perParty : network ? MNIST_TRAIN / w : PER_PARTY;
    if (m < 1 || (long) m * w > MNIST_TRAIN) {
      throw new IllegalArgumentException("--per-party must be at least 1 and --parties x --per-party at most the "
          + MNIST_TRAIN + " MNIST training images. Provided value: " + w + " x " + m);
    }
    var a = algorithm.chosen(run.protocol);
    var config = AlgorithmOptions.withFeatureDefaults(AlgorithmOptions.config(spec, a), a, features);
    if (run.modelOut == null) {
      // Separate files, so one demo never overwrites the other's model.
      run.modelOut = Path.of(network ? "helmet-demo-network-model.json" : "helmet-demo-model.json");
    }
    if (network) {
      if (run.distributed() || run.engineOptionsGiven()) {
        throw new IllegalArgumentException("demo --network runs every party in its own participant over gRPC; "
            + "--engine, --master, --engine-tasks and --engine-conf apply to simulations");
      }
      NetworkDemoReport.run(w, m, features, cacheDir, run, a, config, spec.commandLine().getOut(),
          spec.commandLine().getErr());
      return Main.OK;
    }
    DataOptions data = new DataOptions();
    data.dataset = "mnist";
    data.cacheDir = cacheDir;
    data.header = "auto";
    data.testFraction = 0.2;
    data.features = features;
    PrivacyOptions privacy = new PrivacyOptions();
    privacy.epsilon = 0.5;
    privacy.delta = 1e-5;
    privacy.honestFraction = 0.5;
    privacy.groupSize = 1;
    Trainer.Spec s = new Trainer.Spec(data, new PartitionStrategy.Iid(w, m), a, config, privacy, run,
        m, "Helmet demo: " + w + " parties x " + m + " MNIST images, algorithm " + a.id()
            + ", summation " + run.summationName());
    Trainer.train(s, spec.commandLine().getOut(), spec.commandLine().getErr());
    if (!run.json && !spec.commandLine().getParseResult().hasMatchedOption("--features")) {
      spec.commandLine().getOut().println("  more              --features scatter: slightly more accurate on average "
          + "(docs/results.md), about 1.5 min the first time; --features raw: raw pixels, as the papers");
      spec.commandLine().getOut().flush();
    }
    return Main.OK;
  }
}
