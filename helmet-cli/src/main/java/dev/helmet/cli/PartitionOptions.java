package dev.helmet.cli;

import dev.helmet.core.partition.PartitionStrategy;
import java.util.Locale;
import picocli.CommandLine.Option;

/** How the training data is split among simulated parties. */
final class PartitionOptions {
  @Option(names = "--parties", paramLabel = "W", defaultValue = "1000",
      description = "Number of parties. Default: ${DEFAULT-VALUE}.")
  int parties;

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

  PartitionStrategy strategy() {
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
