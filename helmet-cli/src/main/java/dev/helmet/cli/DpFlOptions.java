package dev.helmet.cli;

import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.protocols.dpfl.DpFl;
import picocli.CommandLine.Option;

/** Options of {@code helmet train --protocol dp-fl} (federated DP-SGD). */
final class DpFlOptions {
  @Option(names = "--sampling-rate", paramLabel = "Q", defaultValue = "0.1",
      description = "dp-fl: each record joins a round's batch with probability Q (Poisson). Default: ${DEFAULT-VALUE}.")
  double samplingRate;

  @Option(names = "--grad-clip", paramLabel = "C", defaultValue = "1",
      description = "dp-fl: per-example gradient L2 bound. Default: ${DEFAULT-VALUE}.")
  double clip;

  @Option(names = "--rounds", paramLabel = "T", description = "dp-fl: SGD rounds (one secure summation each). "
      + "Default: --dp-epochs / Q.")
  Integer rounds;

  @Option(names = "--dp-epochs", paramLabel = "E", defaultValue = "5",
      description = "dp-fl: passes over the data when --rounds is not given (rounds = E / Q). "
          + "Default: ${DEFAULT-VALUE}.")
  double epochs;

  @Option(names = "--learning-rate", paramLabel = "ETA", defaultValue = "2",
      description = "dp-fl: the server's step size on the mean clipped gradient. Default: ${DEFAULT-VALUE}.")
  double learningRate;

  @Option(names = "--noise-split", paramLabel = "S", defaultValue = "honest",
      description = "dp-fl: honest (the honest fraction's parties alone add the full noise), all-trusted (every "
          + "party adds 1/W of it, as central DP-SGD) or sqrt-w-penalty (every party adds all of it: the Helmet "
          + "papers' baseline). Default: ${DEFAULT-VALUE}.")
  String noiseSplit;

  @Option(names = "--accountant", paramLabel = "A",
      description = "dp-fl: rdp or pld. Default: pld under replace-one neighbours (the only one that accounts them), "
          + "rdp under add-remove.")
  String accountant;

  @Option(names = "--neighbours", paramLabel = "N", defaultValue = "replace-one",
      description = "dp-fl: the neighbouring relation of the guarantee: replace-one (Helmet's, so the two compare) or "
          + "add-remove (needs --expected-batch). Default: ${DEFAULT-VALUE}.")
  String neighbours;

  @Option(names = "--expected-batch", paramLabel = "B",
      description = "dp-fl: the public number each round's summed gradient is divided by. Needed under add-remove "
          + "neighbours, where the number of records is private. Default under replace-one: Q times the records.")
  Double expectedBatch;

  @Option(names = "--summation", paramLabel = "P", defaultValue = "secagg+",
      description = "dp-fl: how each round's sum is taken: secagg+, secagg, plain (in the clear) or simulated "
          + "(for experiments: gradients summed in floating point and the parties' noise drawn as one Gaussian "
          + "of the same total variance; no messages). Default: ${DEFAULT-VALUE}.")
  String summation;

  int rounds() {
    if (rounds != null) {
      if (rounds < 1) {
        throw new IllegalArgumentException("--rounds must be positive. Provided value: " + rounds);
      }
      return rounds;
    }
    if (!(epochs > 0)) {
      throw new IllegalArgumentException("--dp-epochs must be positive. Provided value: " + epochs);
    }
    return (int) Math.ceil(epochs / samplingRate);
  }

  DpFl.Config config(double epsilon, double delta, double honestFraction, int ringBits) {
    NeighbourRelation relation = NeighbourRelation.parse(neighbours);
    String acc = accountant != null ? accountant.toLowerCase(java.util.Locale.ROOT)
        : relation == NeighbourRelation.REPLACE_ONE ? "pld" : "rdp";
    if (relation == NeighbourRelation.ADD_OR_REMOVE_ONE && expectedBatch == null) {
      throw new IllegalArgumentException("--neighbours add-remove needs --expected-batch: under add-or-remove "
          + "neighbours the number of records is private, so the step's normaliser must be a public number");
    }
    return new DpFl.Config(samplingRate, clip, rounds(), learningRate, epsilon, delta, honestFraction,
        DpFl.NoiseSplit.parse(noiseSplit), acc, ringBits, relation, expectedBatch == null ? Double.NaN : expectedBatch);
  }
}
