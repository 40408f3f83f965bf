package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.privacy.calculator.CalculatorInput;
import dev.helmet.privacy.calculator.PrivacyCalculators;
import dev.helmet.privacy.calculator.Report;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet privacy}: the privacy calculators on their own. {@code epsilon} and {@code noise}
 * parse the options and delegate to {@link PrivacyCalculators} (the calculator named by
 * --accountant maps them to a DP event and its accountant; one calibration routine serves all).
 */
@Command(
    name = "privacy",
    mixinStandardHelpOptions = true,
    description = "Privacy arithmetic: K_comp Gaussian releases (tight: Sommer et al. 2019 Thm 5, the analytic "
        + "Gaussian), T steps of the Poisson-subsampled Gaussian (DP-SGD) with the RDP or PLD accountant, or T rounds "
        + "of the Skellam mixture mechanism (--accountant smm) or of cpSGD (--accountant cpsgd); cross-silo pieces: a projection's clip ratio "
        + "(projection) and SWOR sampling fractions (swor).",
    subcommands = {PrivacyCommand.Epsilon.class, PrivacyCommand.Noise.class, CrossSiloPrivacy.Projection.class,
        CrossSiloPrivacy.Swor.class})
final class PrivacyCommand extends GroupCommand {

  /** eps from sigma. */
  @Command(name = "epsilon", mixinStandardHelpOptions = true,
      description = "The epsilon of K_comp Gaussian releases with noise multiplier S at delta D (JSON key epsilon).")
  static final class Epsilon implements Callable<Integer> {
    @Option(names = "--noise-multiplier", paramLabel = "S",
        description = "Noise standard deviation divided by the L2 sensitivity (required except with --accountant smm, "
            + "which takes --skellam-lambda).")
    Double sigma;

    @Mixin Releases releases;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Map<String, Object> options = new LinkedHashMap<>();
      options.put("--noise-multiplier", sigma);
      releases.print(PrivacyCalculators.epsilon(releases.accountantName, releases.input(options)),
          spec.commandLine().getOut());
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
      releases.print(PrivacyCalculators.noise(releases.accountantName, releases.input(new LinkedHashMap<>()), epsilon),
          spec.commandLine().getOut());
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

    @Option(names = "--sampling-rate", paramLabel = "Q",
        description = "Poisson sampling probability of each record per step (DP-SGD); needs --steps.")
    Double samplingRate;

    @Option(names = "--steps", paramLabel = "T", description = "Number of sampled steps (with --sampling-rate).")
    Integer steps;

    @Option(names = "--accountant", paramLabel = "A",
        description = "gaussian (exact, unsampled releases only), rdp, pld, smm (the Skellam mixture mechanism; "
            + "see --skellam-lambda) or cpsgd (cpSGD's binomial mechanism, (eps, delta) accounting; see "
            + "--binomial-trials). Default: gaussian without sampling, rdp with it.")
    String accountantName;

    @Mixin SmmPrivacy smm;

    @Mixin CpSgdPrivacy cpsgd;

    @Option(names = "--neighbours", paramLabel = "N", defaultValue = "add-remove",
        description = "add-remove or replace-one (the cross-silo paper's bounded DP; pld only). Default: "
            + "${DEFAULT-VALUE}.")
    String neighbours;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    /** The options as the calculators read them: these, the mechanisms' and {@code options}. */
    CalculatorInput input(Map<String, Object> options) {
      smm.putInto(options);
      cpsgd.putInto(options);
      return new CalculatorInput(delta, compositions, groupSize, samplingRate, steps, neighbours, options);
    }

    /** Prints a calculator's report: its JSON fields with --json, else its sentence. */
    void print(Report report, PrintWriter out) {
      if (json) {
        ObjectNode j = Json.object();
        report.fields().forEach((key, value) -> {
          if (value instanceof Double d) {
            Json.put(j, key, d);
          } else if (value instanceof Integer i) {
            j.put(key, i);
          } else if (value instanceof Long l) {
            j.put(key, l);
          } else {
            j.put(key, String.valueOf(value));
          }
        });
        out.println(Json.print(j));
      } else {
        out.println(report.text());
      }
      out.flush();
    }
  }
}
