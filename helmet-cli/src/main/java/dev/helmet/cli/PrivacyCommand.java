package dev.helmet.cli;

import dev.helmet.privacy.accounting.GaussianReleases;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.GaussianAccountant;
import dev.helmet.privacy.accounting.PldAccountant;
import dev.helmet.privacy.accounting.PrivacyAccountant;
import dev.helmet.privacy.accounting.RdpAccountant;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code helmet privacy}: the Gaussian accountant and calibration on their own. */
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
      releases.check();
      if (releases.accountant.equals("smm")) {
        return releases.smm.epsilon(releases, spec.commandLine().getOut());
      }
      if (releases.accountant.equals("cpsgd")) {
        return releases.cpsgd.epsilon(releases, spec.commandLine().getOut());
      }
      if (sigma == null) {
        throw new IllegalArgumentException("--noise-multiplier is required (or --accountant smm with --skellam-lambda)");
      }
      Checks.positive("noise multiplier", sigma);
      double eps = releases.sampled() || !releases.accountant.equals("gaussian")
          ? Calibration.epsilon(releases.event(sigma), releases::accountant, releases.delta)
          : GaussianReleases.epsilon(sigma / releases.groupSize, releases.compositions, releases.delta);
      if (releases.json) {
        ObjectNode j = releases.json();
        Json.put(j, "epsilon", eps);
        j.put("noise_multiplier", sigma);
        spec.commandLine().getOut().println(Json.print(j));
      } else {
        spec.commandLine().getOut().printf("epsilon = %.6f at delta = %s for %s with noise multiplier %s, against "
            + "%s, for neighbours that %s (sensitivity 1 per release)%n", eps, Trainer.fmt(releases.delta),
            releases.describe(), Trainer.fmt(sigma), Releases.AGAINST, releases.relationWords());
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
      if (releases.accountant.equals("smm")) {
        return releases.smm.noise(releases, epsilon, spec.commandLine().getOut());
      }
      if (releases.accountant.equals("cpsgd")) {
        return releases.cpsgd.noise(releases, epsilon, spec.commandLine().getOut());
      }
      double sigma = releases.sampled() || !releases.accountant.equals("gaussian")
          ? Calibration.noiseMultiplier(releases::event, releases::accountant, epsilon, releases.delta,
              releases.accountant.equals("pld") ? 1e-4 : 1e-8)
          : releases.groupSize * GaussianReleases.noiseMultiplier(epsilon, releases.delta, releases.compositions);
      if (releases.json) {
        ObjectNode j = releases.json();
        j.put("noise_multiplier", sigma);
        j.put("epsilon", epsilon);
        spec.commandLine().getOut().println(Json.print(j));
      } else {
        spec.commandLine().getOut().printf("noise multiplier = %.6f for epsilon = %s, delta = %s over %s, against %s; "
            + "neighbours: %s%n", sigma, Trainer.fmt(epsilon), Trainer.fmt(releases.delta), releases.describe(),
            Releases.AGAINST, releases.relationWords());
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

    /** Resolved by {@link #check}. */
    String accountant;
    NeighbourRelation relation;

    void check() {
      Checks.positive("compositions", compositions);
      Checks.openUnit("delta", delta);
      Checks.positive("group size", groupSize);
      relation = switch (neighbours.toLowerCase(java.util.Locale.ROOT)) {
        case "add-remove" -> NeighbourRelation.ADD_OR_REMOVE_ONE;
        case "replace-one" -> NeighbourRelation.REPLACE_ONE;
        default -> throw new IllegalArgumentException("--neighbours must be add-remove or replace-one. Provided value: "
            + neighbours);
      };
      accountant = accountantName != null ? accountantName.toLowerCase(java.util.Locale.ROOT)
          : sampled() ? "rdp" : "gaussian";
      if (!List.of("gaussian", "rdp", "pld", "smm", "cpsgd").contains(accountant)) {
        throw new IllegalArgumentException("--accountant must be gaussian, rdp, pld, smm or cpsgd. Provided value: "
            + accountantName);
      }
      Checks.require(!accountant.equals("pld") || !(delta < PldAccountant.SMALLEST_DELTA), "--accountant pld resolves"
          + " delta down to " + PldAccountant.SMALLEST_DELTA + "; use --accountant rdp for --delta " + delta);
      smm.check(accountant.equals("smm"));
      cpsgd.check(accountant.equals("cpsgd"));
      if (accountant.equals("smm") || accountant.equals("cpsgd")) {
        Checks.require(compositions == 1 && groupSize == 1, "--compositions and --group-size do not apply to "
            + "--accountant " + accountant + " (give --steps, with --sampling-rate 1 for unsampled releases)");
        Checks.require(relation == NeighbourRelation.ADD_OR_REMOVE_ONE, "--accountant " + accountant + " bounds "
            + "add-remove neighbours (one client more or less) only");
        if (samplingRate == null && steps == null) {
          samplingRate = 1.0;
          steps = 1;
        }
      }
      if (samplingRate != null) {
        Checks.require(samplingRate > 0 && samplingRate <= 1,
            "--sampling-rate must be in (0, 1]. Provided value: " + samplingRate);
        if (steps == null) {
          throw new IllegalArgumentException("--sampling-rate needs --steps (the number of sampled steps)");
        }
        Checks.positive("steps", steps);
        Checks.require(compositions == 1 && groupSize == 1,
            "--compositions and --group-size apply to unsampled releases; with --sampling-rate give --steps");
        Checks.require(!accountant.equals("gaussian"),
            "the exact Gaussian accountant has no subsampling; use --accountant rdp or pld");
        Checks.require(!accountant.equals("smm") || compositions == 1, "--compositions does not apply to smm");
        Checks.require(relation == NeighbourRelation.ADD_OR_REMOVE_ONE || accountant.equals("pld"),
            "replace-one neighbours need --accountant pld (the RDP bound here is for add-remove)");
      } else if (steps != null) {
        throw new IllegalArgumentException(accountant.equals("smm") || accountant.equals("cpsgd")
            ? "--steps goes with --sampling-rate; for rounds without sampling give --sampling-rate 1"
            : "--steps goes with --sampling-rate; for unsampled releases use --compositions");
      }
    }

    boolean sampled() {
      return samplingRate != null;
    }

    /** The event for noise multiplier {@code sigma}. */
    DpEvent event(double sigma) {
      if (sampled()) {
        return new SelfComposedDpEvent(new PoissonSampledDpEvent(samplingRate, new GaussianDpEvent(sigma), relation),
            steps);
      }
      return new SelfComposedDpEvent(new GaussianDpEvent(sigma / groupSize), compositions);
    }

    PrivacyAccountant accountant() {
      return switch (accountant) {
        case "pld" -> new PldAccountant();
        case "rdp" -> new RdpAccountant();
        default -> new GaussianAccountant();
      };
    }

    ObjectNode json() {
      ObjectNode j = Json.object();
      j.put("delta", delta);
      j.put("compositions", compositions);
      j.put("group_size", groupSize);
      j.put("accountant", accountant.equals("gaussian") ? "gaussian-exact" : accountant);
      if (sampled()) {
        j.put("sampling_rate", samplingRate);
        j.put("steps", steps);
        j.put("neighbours", neighbours);
      }
      j.put("against", AGAINST);
      j.put("relation", relationWords());
      return j;
    }

    /** Who the printed epsilon protects against (JSON key {@code against}). */
    static final String AGAINST = "anyone who sees what is released";

    /** The neighbouring relation in words (sampled releases name theirs; Gaussian releases hold for either). */
    String relationWords() {
      if (sampled()) {
        return dev.helmet.privacy.event.NeighbourRelation.parse(neighbours).describe();
      }
      return "change the released value by at most the sensitivity (replace one record for Helmet's learners)";
    }

    String describe() {
      if (sampled()) {
        return steps + " steps of the Poisson-subsampled Gaussian (q = " + Trainer.fmt(samplingRate) + ", " + neighbours
            + ", " + accountant + " accountant)";
      }
      return compositions + " Gaussian release(s)" + (groupSize > 1 ? " (groups of " + groupSize + ")" : "")
          + (accountant.equals("gaussian") ? "" : " (" + accountant + " accountant)");
    }
  }
}
