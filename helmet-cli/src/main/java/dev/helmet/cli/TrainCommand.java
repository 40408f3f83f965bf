package dev.helmet.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code helmet train}: one blind-averaging run with every knob exposed. */
@Command(
    name = "train",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Simulate W parties that each train locally, add calibrated Gaussian noise once, and average their "
          + "models with one summation (Distributed DP-Helmet). Prints test accuracy next to the privacy "
          + "guarantee; --json prints one JSON object (keys include test_accuracy, epsilon, delta, "
          + "noise_multiplier, parties, per_party, learner, sensitivity)."
    })
final class TrainCommand implements Callable<Integer> {
  @Mixin DataOptions data;
  @Mixin PartitionOptions partition;
  @Mixin ModelOptions model;
  @Mixin PrivacyOptions privacy;
  @Mixin RunOptions run;
  @Mixin DpFlOptions dpfl;

  @Option(names = "--folds", paramLabel = "K", defaultValue = "0",
      description = "Stratified K-fold cross-validation on the training data instead of one run on the test "
          + "data (0 = off). Default: ${DEFAULT-VALUE}.")
  int folds;

  @Option(names = "--repeats", paramLabel = "R", defaultValue = "1",
      description = "Repeats of the cross-validation. Default: ${DEFAULT-VALUE}.")
  int repeats;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (run.protocol.equalsIgnoreCase("dp-fl")) {
      if (folds != 0) {
        throw new IllegalArgumentException("--folds is not supported with --protocol dp-fl");
      }
      DpFlTrainer.train(data, partition.strategy(), model, privacy, run, dpfl, spec.commandLine().getOut(),
          spec.commandLine().getErr());
      return Main.OK;
    }
    Trainer.Spec s = new Trainer.Spec(data, partition.strategy(), model, privacy.privacy(run.dropout), run,
        partition.perParty,
        "Helmet blind averaging");
    if (folds != 0) {
      Trainer.crossValidate(s, folds, repeats, spec.commandLine().getOut(), spec.commandLine().getErr());
    } else {
      Trainer.train(s, spec.commandLine().getOut(), spec.commandLine().getErr());
    }
    return Main.OK;
  }
}
