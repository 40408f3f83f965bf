package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.util.Checks;
import dev.helmet.protocols.helmet.HelmetAccounting;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code helmet privacy}: the Gaussian accountant and calibration on their own. */
@Command(
    name = "privacy",
    mixinStandardHelpOptions = true,
    description = "Privacy arithmetic of K_comp Gaussian releases (tight: Sommer et al. 2019 Thm 5, the analytic "
        + "Gaussian).",
    subcommands = {PrivacyCommand.Epsilon.class, PrivacyCommand.Noise.class})
final class PrivacyCommand extends GroupCommand {

  /** eps from sigma. */
  @Command(name = "epsilon", mixinStandardHelpOptions = true,
      description = "The epsilon of K_comp Gaussian releases with noise multiplier S at delta D (JSON key epsilon).")
  static final class Epsilon implements Callable<Integer> {
    @Option(names = "--noise-multiplier", paramLabel = "S", required = true,
        description = "Noise standard deviation divided by the L2 sensitivity.")
    double sigma;

    @Mixin Releases releases;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Checks.positive("noise multiplier", sigma);
      releases.check();
      double eps = HelmetAccounting.epsilon(sigma / releases.groupSize, releases.compositions, releases.delta);
      if (releases.json) {
        ObjectNode j = releases.json();
        Json.put(j, "epsilon", eps);
        j.put("noise_multiplier", sigma);
        spec.commandLine().getOut().println(Json.print(j));
      } else {
        spec.commandLine().getOut().printf("epsilon = %.6f at delta = %s for %s with noise multiplier %s%n", eps,
            Trainer.fmt(releases.delta), releases.describe(), Trainer.fmt(sigma));
      }
      return Main.OK;
    }
  }

  /** sigma from eps. */
  @Command(name = "noise", mixinStandardHelpOptions = true,
      description = "The smallest noise multiplier (rounded up: the epsilon it gives never exceeds the target) "
          + "for K_comp Gaussian releases at (E, D) (JSON key noise_multiplier).")
  static final class Noise implements Callable<Integer> {
    @Option(names = "--epsilon", paramLabel = "E", required = true, description = "Target epsilon.")
    double epsilon;

    @Mixin Releases releases;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Checks.positive("epsilon", epsilon);
      releases.check();
      double sigma = releases.groupSize
          * HelmetAccounting.noiseMultiplier(epsilon, releases.delta, releases.compositions);
      if (releases.json) {
        ObjectNode j = releases.json();
        j.put("noise_multiplier", sigma);
        j.put("epsilon", epsilon);
        spec.commandLine().getOut().println(Json.print(j));
      } else {
        spec.commandLine().getOut().printf("noise multiplier = %.6f for epsilon = %s, delta = %s over %s%n", sigma,
            Trainer.fmt(epsilon), Trainer.fmt(releases.delta), releases.describe());
      }
      return Main.OK;
    }
  }

  /** The options both subcommands share: what is released and the target delta. */
  static final class Releases {
    @Option(names = "--compositions", paramLabel = "K", defaultValue = "1",
        description = "Number of Gaussian releases K_comp (K for one-vs-rest, 1 for softmax). Default: ${DEFAULT-VALUE}.")
    int compositions;

    @Option(names = "--delta", paramLabel = "D", required = true, description = "Target delta.")
    double delta;

    @Option(names = "--group-size", paramLabel = "G", defaultValue = "1",
        description = "Protect groups of G records: the same formula with sensitivity G, i.e. noise multiplier "
            + "S/G; delta is not multiplied (Helmet Cor. 5.4). Default: ${DEFAULT-VALUE}.")
    int groupSize;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    void check() {
      Checks.positive("compositions", compositions);
      Checks.openUnit("delta", delta);
      Checks.positive("group size", groupSize);
    }

    ObjectNode json() {
      ObjectNode j = Json.object();
      j.put("delta", delta);
      j.put("compositions", compositions);
      j.put("group_size", groupSize);
      j.put("accountant", "gaussian-exact");
      return j;
    }

    String describe() {
      return compositions + " Gaussian release(s)" + (groupSize > 1 ? " (groups of " + groupSize + ")" : "");
    }
  }
}
