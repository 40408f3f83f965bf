package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.ProjectionSensitivity;
import dev.helmet.privacy.accounting.SworAmplification;
import dev.helmet.privacy.event.NeighbourRelation;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet privacy projection} and {@code helmet privacy swor}: the cross-silo accounting
 * pieces of Heikkila et al. on their own (docs/design/cross-silo.md 1.4, 1.5 and 2.5). Both print
 * pure computations and exit {@link Main#OK}; bad parameters exit {@link Main#INVALID_INPUT}.
 */
final class CrossSiloPrivacy {
  private CrossSiloPrivacy() {}

  /** The clip ratio of a k-dimensional Gaussian projection and its slack. */
  @Command(name = "projection", mixinStandardHelpOptions = true,
      description = "The clip growth C~/C = sqrt(chi2_K.isf(D')/K) of a K-dimensional Gaussian projection (Theorem 2, "
          + "eq. (8)) and the delta it costs: D' per step (2 D' for replace-one neighbours), 1 - (1 - per step)^N over "
          + "N steps with a fresh projection each (JSON keys dimension, slack, neighbours, clip_ratio, per_step_slack, "
          + "steps, total_slack).")
  static final class Projection implements Callable<Integer> {
    @Option(names = "--dimension", paramLabel = "K", required = true, description = "Projection dimension k.")
    int dimension;

    @Option(names = "--slack", paramLabel = "D'", required = true,
        description = "Probability delta' that a projected vector exceeds the grown clip.")
    double slack;

    @Option(names = "--steps", paramLabel = "N", defaultValue = "1",
        description = "Releases, each with a fresh projection. Default: ${DEFAULT-VALUE}.")
    int steps;

    @Option(names = "--neighbours", paramLabel = "R", defaultValue = "add-remove",
        description = "add-remove (slack D' per step) or replace-one (2 D': both vectors' projections must be bounded). "
            + "Default: ${DEFAULT-VALUE}.")
    String neighbours;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Checks.require(dimension >= 1, "--dimension must be >= 1. Provided value: " + dimension);
      Checks.require(slack > 0 && slack < 1, "--slack must be in (0, 1). Provided value: " + slack);
      Checks.require(steps >= 1, "--steps must be >= 1. Provided value: " + steps);
      NeighbourRelation relation = NeighbourRelation.parse(neighbours);
      double ratio = ProjectionSensitivity.clipRatio(dimension, slack);
      double perStep = ProjectionSensitivity.perStepSlack(relation, slack);
      double total = ProjectionSensitivity.totalSlack(perStep, steps);
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        ObjectNode j = Json.object();
        j.put("dimension", dimension);
        j.put("slack", slack);
        j.put("neighbours", relation.id());
        j.put("clip_ratio", ratio);
        j.put("per_step_slack", perStep);
        j.put("steps", steps);
        j.put("total_slack", total);
        out.println(Json.print(j));
      } else {
        out.printf("clip ratio C~/C = %.6f for a %d-dimensional projection at delta' = %s%n", ratio, dimension,
            Trainer.fmt(slack));
        out.printf("slack: %s per step (%s), %s over %d step(s): the chance that a record's projection exceeds "
            + "C~ (cross-silo clips each projection to C~ and charges no slack)%n",
            Trainer.fmtBound(perStep), relation.describe(), Trainer.fmtBound(total), steps);
      }
      return Main.OK;
    }
  }

  /** Fig. 1's effective sampling fractions, and optionally the exact mixture's epsilon. */
  @Command(name = "swor", mixinStandardHelpOptions = true,
      description = "Effective sampling fractions of sampling without replacement when malicious parties hold X of the "
          + "n records (Heikkila et al. Fig. 1): Poisson b/n, worst case b/n_H, and with slack s (b - k*)/n_H, "
          + "k* = hypergeom.ppf(s, n, X, b). With --noise-multiplier, also the epsilon of the exact hypergeometric "
          + "mixture and of the worst case over --steps replace-one steps at --delta, and the equivalent Poisson "
          + "fraction (JSON keys records, batch, malicious_records, honest_records, poisson, worst_case, slack[], and "
          + "noise_multiplier, steps, delta, epsilon_exact, epsilon_worst_case, equivalent_fraction).")
  static final class Swor implements Callable<Integer> {
    @Option(names = "--records", paramLabel = "n", required = true, description = "Records on the token list.")
    int records;

    @Option(names = {"--batch-size", "--batch"}, paramLabel = "b", required = true,
        description = "Tokens drawn per step, b (--batch is its old name, kept as an alias).")
    int batch;

    @Option(names = "--malicious-records", paramLabel = "X", required = true,
        description = "Records held by the coalition (colluders plus the observing party).")
    int malicious;

    @Option(names = "--slack", paramLabel = "s", split = ",", defaultValue = "1e-5,1e-10,1e-15",
        description = "Per-step slack delta_s (repeat or comma-separate). Default: ${DEFAULT-VALUE}.")
    List<Double> slacks;

    @Option(names = "--noise-multiplier", paramLabel = "S",
        description = "Honest noise multiplier: also print epsilons and the equivalent fraction (needs --steps, "
            + "--delta; takes a few PLD accountings).")
    Double sigma;

    @Option(names = "--steps", paramLabel = "K", description = "Steps, with --noise-multiplier.")
    Integer steps;

    @Option(names = "--delta", paramLabel = "D", description = "Target delta, with --noise-multiplier.")
    Double delta;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Checks.require(records >= 1, "--records must be >= 1. Provided value: " + records);
      Checks.require(malicious >= 0 && malicious < records,
          "--malicious-records must be in [0, records). Provided value: " + malicious);
      Checks.require(batch >= 1 && batch <= records, "--batch-size must be in [1, records]. Provided value: " + batch);
      for (double s : slacks) {
        Checks.require(s > 0 && s < 1, "--slack must be in (0, 1). Provided value: " + s);
      }
      boolean accounted = sigma != null || steps != null || delta != null;
      if (accounted) {
        Checks.require(sigma != null && steps != null && delta != null,
            "--noise-multiplier, --steps and --delta go together");
        Checks.require(sigma > 0 && Double.isFinite(sigma), "--noise-multiplier must be positive. Provided value: "
            + sigma);
        Checks.require(steps >= 1, "--steps must be >= 1. Provided value: " + steps);
        Checks.require(delta > 0 && delta < 1, "--delta must be in (0, 1). Provided value: " + delta);
      }
      SworAmplification swor = new SworAmplification(records, malicious, batch);
      ObjectNode j = Json.object();
      j.put("records", records);
      j.put("batch", batch);
      j.put("malicious_records", malicious);
      j.put("honest_records", swor.honestRecords());
      j.put("poisson", swor.poissonFraction());
      j.put("worst_case", swor.worstCaseFraction());
      ArrayNode rows = j.putArray("slack");
      for (double s : slacks) {
        ObjectNode r = rows.addObject();
        r.put("slack", s);
        r.put("quantile", swor.maliciousQuantile(s));
        r.put("fraction", swor.slackFraction(s));
      }
      double exact = Double.NaN;
      double worst = Double.NaN;
      double equivalent = Double.NaN;
      if (accounted) {
        exact = swor.epsilon(sigma, new SworAmplification.Exact(), steps, delta);
        worst = swor.epsilon(sigma, new SworAmplification.WorstCase(), steps, delta);
        equivalent = swor.fractionAtEpsilon(exact, sigma, steps, delta);
        j.put("noise_multiplier", sigma);
        j.put("steps", steps);
        j.put("delta", delta);
        Json.put(j, "epsilon_exact", exact);
        Json.put(j, "epsilon_worst_case", worst);
        Json.put(j, "equivalent_fraction", equivalent);
        j.put("bound", "each step given m: Dong, Roth and Su's C_q for a fixed-size sample under replace-one, "
            + "composed as f-DP (docs/design/cross-silo.md, doubt 21)");
        // "caveat" (stop 54) said the per-direction composition was not proven; the bound above is, so the key
        // stays with what the analysis still assumes.
        j.put("caveat", "assumes the coalition learns no more than how many of its own tokens each step draws "
            + "(the mixnet hides which honest tokens)");
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(Json.print(j));
        return Main.OK;
      }
      out.printf("n = %d records, batch b = %d, coalition holds %d (n_H = %d honest)%n", records, batch, malicious,
          swor.honestRecords());
      out.printf("Poisson sampling:  %.6f%nSWOR, worst case:  %.6f%n", swor.poissonFraction(),
          swor.worstCaseFraction());
      for (double s : slacks) {
        out.printf("SWOR, slack %-7s %.6f (k* = %d; the slack is paid every step)%n", Trainer.fmt(s) + ":",
            swor.slackFraction(s), swor.maliciousQuantile(s));
      }
      if (accounted) {
        out.printf("noise multiplier %s, %d replace-one steps, delta %s: epsilon %s (exact mixture), %s (worst case); "
            + "equivalent Poisson fraction %.6f%n", Trainer.fmt(sigma), steps, Trainer.fmt(delta), Trainer.fmtBound(exact),
            Trainer.fmtBound(worst), equivalent);
        out.println("each step given m is accounted with Dong, Roth and Su's C_q (a fixed-size sample under "
            + "replace-one), composed as f-DP; docs/design/cross-silo.md, doubt 21");
      }
      return Main.OK;
    }
  }
}
