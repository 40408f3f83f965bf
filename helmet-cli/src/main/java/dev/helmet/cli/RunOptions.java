package dev.helmet.cli;

import dev.helmet.secagg.protocol.InProcessSecAgg;
import dev.helmet.secagg.summation.DropoutPlan;
import dev.helmet.secagg.summation.SecureSummation;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How a run executes and reports. */
final class RunOptions {
  @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
      description = "Seed of the partition, the holdout split and the local shuffles (the privacy noise is "
          + "always fresh from SecureRandom). Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--threads", paramLabel = "N",
      description = "Worker threads. Default: the number of processors.")
  Integer threads;

  @Option(names = "--summation", paramLabel = "S",
      description = "How each round's inputs are summed: secagg+ (SecAgg+, Bell et al. 2020: each party shares keys "
          + "with O(log W) neighbours), secagg (SecAgg, Bonawitz et al. 2017: all pairs), dca (additive shares to "
          + "--compute-nodes compute nodes, the cross-silo paper's Algorithm 1, private if one is honest; "
          + "compute-servers is its old name, still accepted), groups or harary (pairwise masks in groups of "
          + "--mask-group), plain (in the clear, for comparison "
          + "only) or simulated (for experiments, where the algorithm has it: the parties' inputs summed at once, "
          + "their noise drawn as one; no messages). Default: secagg+.")
  String summation;

  @Option(names = "--engine", paramLabel = "local|spark", defaultValue = "local",
      description = "Where the simulated parties run: local (this process's threads) or spark (Apache Spark: parties "
          + "as partitions, rounds as stages, the sum a tree aggregation; the launcher builds module helmet-spark and "
          + "adds it with Spark to the class path). The Spark engine sums in the clear (--summation plain, its "
          + "default). Default: ${DEFAULT-VALUE}.")
  String engine;

  @Option(names = "--master", paramLabel = "URL",
      description = "With --engine spark: the Spark master, local[*] (default), local[N], spark://host:7077, yarn or "
          + "k8s://... (under spark-submit, the one it gives).")
  String master;

  @Option(names = "--engine-conf", paramLabel = "KEY=VALUE",
      description = "With --engine spark: a Spark setting (spark.*, e.g. spark.executor.memory=4g); repeatable. "
          + "On a cluster the launcher ships helmet.jar and helmet-spark.jar to the executors unless spark.jars is "
          + "given.")
  java.util.Map<String, String> engineConf;

  @Option(names = "--engine-tasks", paramLabel = "N", defaultValue = "0",
      description = "With --engine spark: tasks the parties are split into. Default: 0 (four times Spark's "
          + "default parallelism: N for local[N], else the cluster's cores, at least 2).")
  int engineTasks;

  @Option(names = "--protocol", paramLabel = "P",
      description = "The old name of --summation, kept as an alias; it also still accepts an algorithm name "
          + "(--protocol dp-fl is --algorithm dp-fl).")
  String protocol;

  @Option(names = "--dropout", paramLabel = "F", defaultValue = "0",
      description = "Simulate a fraction F of the parties dropping out, each at a random round. The noise is "
          + "calibrated for the (1 - F) W parties that remain (see --min-contributors). Default: ${DEFAULT-VALUE}.")
  double dropout;

  @Option(names = "--max-dropout", paramLabel = "D",
      description = "The dropout rate secure aggregation is sized for. Default: the dropouts the release "
          + "tolerates, 1 - M / W for --min-contributors M.")
  Double maxDropout;

  @Option(names = "--colluding-fraction", paramLabel = "G",
      description = "The fraction of parties that may collude with the server, which secure aggregation is sized "
          + "to withstand. Default: 1 - --honest-fraction, the parties the privacy accounting already distrusts.")
  Double colludingFraction;

  @Option(names = {"--compute-nodes", "--compute-servers"}, paramLabel = "M", defaultValue = "2",
      description = "Number of compute nodes for --summation dca (--compute-servers is the old name of this "
          + "option). Default: ${DEFAULT-VALUE}.")
  int computeServers;

  @Option(names = "--mask-group", paramLabel = "G", defaultValue = "2",
      description = "Group size for --summation groups (pairwise masks inside disjoint groups of G parties, the "
          + "cross-silo paper's Algorithm 4: the server learns every group's sum) or harary (pairwise masks on a "
          + "(G-1)-connected Harary graph: the server learns only the total). G must divide the parties for groups. "
          + "Default: ${DEFAULT-VALUE}.")
  int groupSize;

  @Option(names = "--ring-bits", paramLabel = "B", defaultValue = "0",
      description = "Summation ring Z_2^B: 32, 64, or 0 to choose (32 when it keeps the needed precision). "
          + "Default: ${DEFAULT-VALUE}.")
  int ringBits;

  @Option(names = "--reference", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Also train the non-private centralized reference on the pooled data. Default: on.")
  boolean reference;

  @Option(names = "--optimality-gap", negatable = true,
      description = "With the reference, for an algorithm with a training objective (wd-dp): also solve for the "
          + "non-private optimum theta* and report the optimality gap L_D(theta) - L_D(theta*) on the pooled data. "
          + "Default: only where the solve (up to 20,000 full-batch gradient steps on the pooled data) costs at "
          + "most about half a minute or 10 times the run, as on the tabular data sets; otherwise the report says "
          + "it was skipped (on MNIST it can take hours).")
  Boolean optimalityGap;

  @Option(names = "--noise-draws", paramLabel = "K", defaultValue = "1",
      description = "Evaluate K independent noise draws on the same trained local models and report mean, sd "
          + "and min accuracy (a measurement of the noise's effect; only the first release is written). "
          + "Default: ${DEFAULT-VALUE}.")
  int noiseDraws;

  @Option(names = {"-o", "--model-out"}, paramLabel = "FILE",
      description = "Where to write the released model (JSON).")
  Path modelOut;

  @Option(names = "--json", description = "Print one JSON object instead of the human summary.")
  boolean json;

  @Option(names = {"-q", "--quiet"}, description = "No progress output.")
  boolean quiet;

  int threads() {
    int t = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    if (t < 1) {
      throw new IllegalArgumentException("threads must be >= 1. Provided value: " + t);
    }
    return t;
  }

  /**
   * The summation's name: --summation, else a summation --protocol names, else secagg+ (plain on an
   * engine other than local, which sums in the clear).
   */
  String summationName() {
    if (summation != null) {
      if (protocol != null && !AlgorithmOptions.isAlgorithm(protocol)) {
        throw new IllegalArgumentException("--protocol is the old name of --summation; give one of them");
      }
      return summation;
    }
    return protocol != null && !AlgorithmOptions.isAlgorithm(protocol) ? protocol : distributed() ? "plain"
        : "secagg+";
  }

  /** Whether the parties run on an engine other than this process (--engine). */
  boolean distributed() {
    return engine != null && !engine.equalsIgnoreCase("local");
  }

  /**
   * Refuses engine options given without an engine to take them, and with one, makes the engine
   * now, so that a missing engine or an option it refuses is named before any data is loaded.
   */
  void checkEngineOptions() {
    if (!distributed()) {
      refuseStrayEngineOptions(master, engineConf, engineTasks);
      return;
    }
    if (!summationName().equalsIgnoreCase("plain")) {
      throw new IllegalArgumentException("--engine " + engine + " sums the parties' inputs in the clear; give "
          + "--summation plain (its default), or --engine local for " + summationName());
    }
    if (dropout > 0) {
      throw new IllegalArgumentException("--engine " + engine + " simulates no dropouts (the plain sum has no rounds "
          + "to drop out of); leave out --dropout");
    }
    engine();
  }

  /** The engine --engine names, made from its options; null for the local one. */
  dev.helmet.protocols.simulation.Engine engine() {
    return distributed() ? dev.helmet.protocols.simulation.Engine.named(engine.toLowerCase(java.util.Locale.ROOT),
        engineOptions(master, engineTasks, engineConf)) : null;
  }

  /** Whether any engine option (--master, --engine-conf, --engine-tasks) was given. */
  boolean engineOptionsGiven() {
    return master != null || engineConf != null || engineTasks != 0;
  }

  /** Refuses --master, --engine-conf or --engine-tasks (0: not given) for the local engine. */
  static void refuseStrayEngineOptions(String master, java.util.Map<String, String> conf, int tasks) {
    String stray = master != null ? "--master" : conf != null ? "--engine-conf" : tasks != 0 ? "--engine-tasks" : null;
    if (stray != null) {
      throw new IllegalArgumentException(stray + " goes with --engine spark");
    }
  }

  /** An engine's options: master, tasks (0: not given) and every --engine-conf KEY as conf.KEY. */
  static java.util.Map<String, String> engineOptions(String master, int tasks, java.util.Map<String, String> conf) {
    java.util.Map<String, String> o = new java.util.LinkedHashMap<>();
    if (master != null) {
      o.put("master", master);
    }
    if (tasks != 0) {
      o.put("tasks", Integer.toString(tasks));
    }
    if (conf != null) {
      conf.forEach((k, v) -> o.put("conf." + k, v));
    }
    return o;
  }

  int ringBits() {
    return ringBits;
  }

  /**
   * The summation, with the simulated dropouts, sized to withstand the given fraction of parties
   * colluding with the server unless --colluding-fraction overrides it; null for "simulated".
   */
  SecureSummation summation(double defaultColluding) {
    String name = summationName();
    return name.equalsIgnoreCase("simulated") ? null : summation(name, defaultColluding);
  }

  /** As {@link #summation(double)} for the named summation. */
  SecureSummation summation(String protocol, double defaultColluding) {
    if (ringBits != 0 && ringBits != 32 && ringBits != 64) {
      throw new IllegalArgumentException("ring bits must be 0, 32 or 64. Provided value: " + ringBits);
    }
    if (!(dropout >= 0 && dropout < 0.5)) {
      throw new IllegalArgumentException("dropout must be in [0, 0.5). Provided value: " + dropout);
    }
    double sizing = maxDropout != null ? maxDropout : InProcessSecAgg.DROPOUTS_FROM_THRESHOLD;
    double colluding = colludingFraction != null ? colludingFraction : defaultColluding;
    DropoutPlan plan = dropout == 0 ? DropoutPlan.NONE : DropoutPlan.random(dropout, -1, seed ^ 0x9E3779B97F4A7C15L);
    var entry = dev.helmet.secagg.Summations.find(protocol);
    if (entry == null || entry.name().equals("simulated")) {
      throw new IllegalArgumentException("summation must be one of " + dev.helmet.secagg.Summations.names()
          + ", simulated. Provided value: " + protocol);
    }
    // The options' own checks first, so the message names the flag the user typed.
    if (entry.name().equals("plain") && dropout > 0) {
      throw new IllegalArgumentException("--dropout needs a secure protocol; plain summation has no rounds");
    }
    if (entry.name().equals("dca") && computeServers < 2) {
      throw new IllegalArgumentException("--compute-nodes must be >= 2 for --summation dca (private if one of "
          + "them is honest). Provided value: " + computeServers);
    }
    return dev.helmet.secagg.Summations.make(entry.name(), new dev.helmet.secagg.Summations.Settings(colluding,
        sizing, plan, threads(), computeServers, groupSize));
  }
}
