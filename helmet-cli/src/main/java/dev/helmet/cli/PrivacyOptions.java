package dev.helmet.cli;

import dev.helmet.protocols.privacy.Protection;
import picocli.CommandLine.Option;

/** The privacy target. */
final class PrivacyOptions {
  @Option(names = "--epsilon", paramLabel = "E", defaultValue = "0.5",
      description = "Target epsilon. Default: ${DEFAULT-VALUE}.")
  double epsilon;

  @Option(names = "--delta", paramLabel = "D", defaultValue = "1e-5",
      description = "Target delta. Default: ${DEFAULT-VALUE}.")
  double delta;

  @Option(names = "--honest-fraction", paramLabel = "T", defaultValue = "0.5",
      description = "Fraction t of parties trusted to add their noise, in (0, 1]. Default: ${DEFAULT-VALUE}.")
  double honestFraction;

  @Option(names = "--group-size", paramLabel = "G", defaultValue = "1",
      description = "Protect groups of G records of one party (group privacy). Default: ${DEFAULT-VALUE}.")
  int groupSize;

  @Option(names = "--min-contributors", paramLabel = "M", defaultValue = "0",
      description = "The fewest contributors the noise is calibrated for and the summation needs; fewer aborts "
          + "it. 0: (1 - --dropout) of the parties. Default: ${DEFAULT-VALUE}.")
  int minContributors;

  @Option(names = "--user-level",
      description = "Protect each party's whole data set (sensitivity 2R) instead of single records.")
  boolean userLevel;

  @picocli.CommandLine.Spec(picocli.CommandLine.Spec.Target.MIXEE)
  picocli.CommandLine.Model.CommandSpec command;

  /** Whether the command line named --epsilon (false: the default is in force). */
  boolean epsilonGiven() {
    return command != null && command.commandLine() != null && command.commandLine().getParseResult() != null
        && command.commandLine().getParseResult().hasMatchedOption("--epsilon");
  }

  /** The protected unit. */
  Protection protection() {
    if (userLevel && groupSize != 1) {
      throw new IllegalArgumentException("--user-level and --group-size cannot be combined");
    }
    if (groupSize < 1) {
      throw new IllegalArgumentException("group size must be >= 1. Provided value: " + groupSize);
    }
    return userLevel ? Protection.user() : Protection.group(groupSize);
  }

  /** The fewest contributors among {@code parties}: --min-contributors, or (1 - dropout) of them. */
  int minContributors(int parties, double dropoutTolerance) {
    return dev.helmet.protocols.simulation.LocalSession.minContributors(minContributors, parties, dropoutTolerance);
  }
}
