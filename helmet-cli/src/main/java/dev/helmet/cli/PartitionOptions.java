package dev.helmet.cli;

import dev.helmet.core.partition.PartitionStrategy;
import java.util.Locale;
import picocli.CommandLine.Option;

/** How the training data is split among simulated parties. */
final class PartitionOptions {
  /** The key under which {@link #describeDefaults} gives --parties its description. */
  private static final String PARTIES_KEY = "partition.parties";

  @Option(names = "--parties", paramLabel = "W", descriptionKey = PARTIES_KEY,
      description = "Number of parties. Default: the algorithm's own (`helmet algorithms`).")
  Integer parties;

  @Option(names = "--per-party", paramLabel = "N", defaultValue = "0",
      description = "Points per party; 0 deals all training data out evenly. Default: ${DEFAULT-VALUE}.")
  int perParty;

  @Option(names = "--partition", paramLabel = "KIND", defaultValue = "iid",
      description = "iid, iid-replacement (each party draws --per-party rows of its own, so parties may share rows "
          + "and there may be more parties than the data has rows for), one-class (party i holds only class i mod "
          + "K), dirichlet (label skew), uneven (two groups of sizes N and u*N), natural (from --party-column). "
          + "Default: ${DEFAULT-VALUE}.")
  String partition;

  @Option(names = "--dirichlet-alpha", paramLabel = "A", defaultValue = "0.5",
      description = "Concentration of the Dirichlet label skew. Default: ${DEFAULT-VALUE}.")
  double alpha;

  @Option(names = "--uneven-ratio", paramLabel = "U", defaultValue = "4",
      description = "Size ratio u of the large to the small parties for --partition uneven. Default: ${DEFAULT-VALUE}.")
  double unevenRatio;

  @Option(names = "--large-fraction", paramLabel = "F", defaultValue = "0.5",
      description = "Fraction of large parties for --partition uneven. Default: ${DEFAULT-VALUE}.")
  double largeFraction;

  /**
   * Gives {@code spec}'s --parties a description that lists every registered algorithm's default
   * number of parties ({@link dev.helmet.protocols.algorithm.Algorithm#defaultParties}), grouped by
   * value in the registry's order: "Default: 1000 (helmet, dp-fl), 10 (smm)".
   */
  static void describeDefaults(picocli.CommandLine.Model.CommandSpec spec) {
    java.util.Map<Integer, java.util.List<String>> byDefault = new java.util.LinkedHashMap<>();
    for (dev.helmet.protocols.algorithm.Algorithm a : dev.helmet.protocols.algorithm.Algorithms.all()) {
      byDefault.computeIfAbsent(a.defaultParties(), k -> new java.util.ArrayList<>()).add(a.id());
    }
    java.util.List<String> parts = new java.util.ArrayList<>();
    byDefault.forEach((w, ids) -> parts.add(w + " (" + String.join(", ", ids) + ")"));
    String text = "Number of parties. Default: the algorithm's own: " + String.join(", ", parts) + ".";
    // picocli's way to give an option a description computed at run time: a bundle entry under its key.
    spec.resourceBundle(new java.util.ListResourceBundle() {
      @Override
      protected Object[][] getContents() {
        return new Object[][] {{PARTIES_KEY, text}};
      }
    });
  }

  /**
   * The number of parties: --parties, else {@code a}'s own default ({@link
   * dev.helmet.protocols.algorithm.Algorithm#defaultParties}).
   */
  int parties(dev.helmet.protocols.algorithm.Algorithm a) {
    return parties != null ? parties : a.defaultParties();
  }

  /** The split for algorithm {@code a}. */
  PartitionStrategy strategy(dev.helmet.protocols.algorithm.Algorithm a) {
    int parties = parties(a);
    return switch (partition.toLowerCase(Locale.ROOT)) {
      case "iid" -> new PartitionStrategy.Iid(parties, perParty);
      case "iid-replacement" -> {
        if (perParty < 1) {
          throw new IllegalArgumentException("--partition iid-replacement needs --per-party (the rows each party "
              + "draws)");
        }
        yield new PartitionStrategy.IidWithReplacement(parties, perParty);
      }
      case "one-class", "one-class-per-party", "label-sorted" -> new PartitionStrategy.OneClassPerParty(parties,
          perParty);
      case "dirichlet" -> new PartitionStrategy.Dirichlet(parties, perParty, alpha);
      case "uneven" -> new PartitionStrategy.Uneven(parties, perParty, unevenRatio,
          largeFraction);
      case "natural" -> new PartitionStrategy.Natural();
      default -> throw new IllegalArgumentException(
          "partition must be one of iid, iid-replacement, one-class, dirichlet, uneven, natural. Provided value: " + partition);
    };
  }
}
