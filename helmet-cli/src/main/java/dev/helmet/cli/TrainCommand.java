package dev.helmet.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet train}: one in-process run of any registered algorithm with every knob exposed. The
 * algorithms' own parameters are added as options from the registry ({@link AlgorithmOptions}).
 */
@Command(
    name = "train",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Simulate W parties that learn one model together with the chosen algorithm (default: blind averaging, "
          + "Distributed DP-Helmet: each party trains locally, adds calibrated noise once, one summation averages "
          + "the models). Prints test accuracy next to the privacy guarantee; --json prints one JSON object (keys "
          + "include test_accuracy, epsilon, delta, noise_multiplier, parties, per_party, learner, algorithm)."
    })
final class TrainCommand implements Callable<Integer> {
  @Mixin DataOptions data;
  @Mixin PartitionOptions partition;
  @Mixin AlgorithmOptions algorithm;
  @Mixin PrivacyOptions privacy;
  @Mixin RunOptions run;

  @Option(names = "--folds", paramLabel = "K", defaultValue = "0",
      description = "Stratified K-fold cross-validation on the training data instead of one run on the test "
          + "data (0 = off). Default: ${DEFAULT-VALUE}.")
  int folds;

  @Option(names = "--repeats", paramLabel = "R", defaultValue = "1",
      description = "Repeats of the cross-validation. Default: ${DEFAULT-VALUE}.")
  int repeats;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  /** What to run, from the parsed command line. */
  Trainer.Spec trainerSpec() {
    return trainerSpec(spec, data, partition, algorithm, privacy, run);
  }

  /** What a command with train's options runs (train, and audit, which audits what train would run). */
  static Trainer.Spec trainerSpec(picocli.CommandLine.Model.CommandSpec spec, DataOptions data,
      PartitionOptions partition, AlgorithmOptions algorithm, PrivacyOptions privacy, RunOptions run) {
    var a = algorithm.chosen(run.protocol);
    var config = AlgorithmOptions.withFeatureDefaults(AlgorithmOptions.config(spec, a), a, data.features);
    return new Trainer.Spec(data, partition.strategy(a), a, config, privacy, run, partition.perParty,
        a.id() + ": " + a.summary());
  }

  @Override
  public Integer call() {
    Trainer.Spec s = trainerSpec();
    if (folds != 0) {
      Trainer.crossValidate(s, folds, repeats, spec.commandLine().getOut(), spec.commandLine().getErr());
    } else {
      Trainer.train(s, spec.commandLine().getOut(), spec.commandLine().getErr());
    }
    return Main.OK;
  }
}
