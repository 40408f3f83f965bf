package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.audit.Canaries;
import dev.helmet.protocols.audit.Canary;
import dev.helmet.protocols.audit.ReleaseAudit;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code helmet audit}: an empirical lower bound on a configured algorithm's epsilon, from
 * neighbouring data sets built to be told apart ({@link Canaries}), beside the epsilon its ledger
 * prints. The work is {@link ReleaseAudit}'s; this parses options and prints.
 */
@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Audit the printed epsilon of an algorithm with its settings: build neighbouring data sets D and D' from the "
          + "data (one per canary: `--canary` names them, default every one that applies to the algorithm's "
          + "neighbouring relation), run the whole release on each --trials times with fresh noise through the "
          + "in-process simulation, fix a test on pilot runs, choose its threshold on one half of the trials and "
          + "count its errors on the other, and report eps_lb = log((1 - delta - FNR_upper) / FPR_upper) with "
          + "Clopper-Pearson bounds at --confidence beside the printed eps. eps_lb is a lower bound on the true eps: "
          + "below the printed eps it is evidence, not proof; above it, the printed eps is false (exit code 5: a "
          + "bug report). The audit's adversary holds the released model and knows the noise shares of the "
          + "coalition the printed guarantee names (--coalition). The output is for the data holder: it names rows "
          + "and sizes of the data.",
      "--json prints one object: audit (true), noise, algorithm, epsilon (printed), delta, guarantee (in words: "
          + "unit, relation, whom it protects against), confidence, confidence_per_canary (Bonferroni over the "
          + "canaries, so the verdict holds at --confidence), trials, coalition, refuted, and audits, one per canary "
          + "with canary, description, "
          + "pair, statistic, epsilon_lower_bound, printed_epsilon, ratio, refuted, separation, threshold, "
          + "false_positives, false_negatives, fpr_upper, fnr_upper, trials, pilot, seconds; with --artifacts also "
          + "artifacts: pair, compared, release_differences, findings, holder_only, timing, control_problems (each "
          + "a list of path, on_d, on_neighbour), note."
    })
final class AuditCommand implements Callable<Integer> {
  @Mixin DataOptions data;
  @Mixin PartitionOptions partition;
  @Mixin AlgorithmOptions algorithm;
  @Mixin PrivacyOptions privacy;
  @Mixin RunOptions run;

  @Option(names = "--trials", paramLabel = "N", defaultValue = "2000",
      description = "Scored releases on each of D and D' (half choose the threshold, half are counted); 10^4 to "
          + "10^6 make the bound tighter. Default: ${DEFAULT-VALUE}.")
  int trials;

  @Option(names = "--pilot", paramLabel = "P", defaultValue = "4",
      description = "Pairs of releases on D and D' with shared noise that fix the test before any scored trial; "
          + "never scored. Default: ${DEFAULT-VALUE}.")
  int pilot;

  @Option(names = "--confidence", paramLabel = "C", defaultValue = "0.95",
      description = "The probability, over the trials, that the reported lower bound holds. Default: "
          + "${DEFAULT-VALUE}.")
  double confidence;

  @Option(names = "--coalition", paramLabel = "K",
      description = "The audit plays K participants (the last K parties; never party 0, whose record differs) that "
          + "know their own noise shares and other random choices and subtract them, as the printed guarantee's "
          + "coalition does. Default: the parties the guarantee names as colluding, floor((1 - t) w) for "
          + "--honest-fraction t; helmet's noise also covers one participant at t = 1 (its guarantee says so), "
          + "audited with --coalition 1. A K above what the guarantee names tests a stronger adversary than claimed.")
  Integer coalition;

  @Option(names = "--canary", paramLabel = "NAME", split = ",",
      description = "The canaries to run (comma-separated); default every registered one that applies.")
  List<String> canaries;

  @Option(names = "--artifacts",
      description = "Also run the artifact diff: train's whole pipeline on D and on D' (party 0's first record "
          + "mirrored under replace-one, removed under add-or-remove) with the same seed and the same noise, and "
          + "every field of the model file, --json and report compared; a field that differs beyond the DP release "
          + "is a finding (exit code 5), printed with its path; a control run on D shows the runs reproducible.")
  boolean artifacts;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    if (trials < 4) {
      throw new IllegalArgumentException("--trials must be at least 4 (half choose the threshold, half are "
          + "counted). Provided value: " + trials);
    }
    if (pilot < 1) {
      throw new IllegalArgumentException("--pilot must be at least 1. Provided value: " + pilot);
    }
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("--confidence must be in (0, 1). Provided value: " + confidence);
    }
    if (run.distributed()) {
      throw new IllegalArgumentException("the audit runs every release in this process (--engine local): on --engine "
          + run.engine + " the parties draw their own noise, which the audit cannot seed per trial");
    }
    Trainer.Spec s = TrainCommand.trainerSpec(spec, data, partition, algorithm, privacy, run);
    var a = s.algorithm();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    ConsoleProgress progress = new ConsoleProgress(System.err, !run.quiet);
    if (!run.quiet) {
      err.println("loading " + data.dataset + " ...");
      err.flush();
    }
    DataOptions.Loaded loaded = data.load(run.seed, run.threads(), progress);
    Dataset train = loaded.data().train();
    AlgorithmSpec algorithmSpec = Trainer.configure(s, train);
    // The settings are checked (configure refused a bad one) and every canary chosen before any
    // release runs.
    List<Canary> chosen = new ArrayList<>();
    if (canaries == null || canaries.isEmpty()) {
      chosen.addAll(Canaries.applicable(algorithmSpec));
      if (chosen.isEmpty()) {
        throw new IllegalArgumentException("no registered canary applies to " + a.id() + " with these settings; "
            + "known: " + String.join(", ", Canaries.all().stream().map(c -> c.id() + " (" + c.notApplicable(
                algorithmSpec) + ")").toList()));
      }
    } else {
      for (String name : canaries) {
        chosen.add(Canaries.named(name.trim(), algorithmSpec));
      }
    }
    Partition split = s.partition().split(train, new SplittableRandom(run.seed).split());
    int w = split.count();
    int fewest = privacy.minContributors(w, run.dropout);
    if (coalition != null && (coalition < 0 || coalition >= w)) {
      throw new IllegalArgumentException("--coalition must be in [0, " + (w - 1) + "] (party 0 holds the differing "
          + "record; there are " + w + " parties). Provided value: " + coalition);
    }
    int known = coalition == null ? ReleaseAudit.PRINTED_COLLUDERS : coalition;
    // Every canary's bound holds at --confidence on its own; the verdict is a union over the
    // canaries, so each runs at 1 - (1 - c) / k (Bonferroni) and the verdict holds at c.
    double each = 1 - (1 - confidence) / chosen.size();
    List<ReleaseAudit.Outcome> outcomes = new ArrayList<>();
    for (Canary c : chosen) {
      outcomes.add(ReleaseAudit.run(algorithmSpec, c, train, split, fewest, known, trials, pilot, each, run.seed,
          run.threads(), progress));
    }
    ArtifactAudit.Outcome diff = artifacts ? ArtifactAudit.run(s, ArtifactAudit.neighbours(s, train, run.seed),
        loaded.data().test(), loaded.stage(), progress) : null;
    boolean refuted = exitCode(outcomes) == Main.AUDIT_REFUTED;
    if (run.json) {
      ObjectNode o = json(a.id(), chosen, outcomes, refuted);
      if (diff != null) {
        o.set("artifacts", diff.toJson());
      }
      out.println(Json.print(o));
    } else {
      print(out, a.id(), chosen, outcomes, refuted);
      if (diff != null) {
        diff.print(out);
      }
    }
    out.flush();
    if (diff != null && !diff.controlProblems().isEmpty()) {
      throw new IllegalStateException("the artifact diff's control run on D differs from the first beyond clock "
          + "readings, so D against D' cannot be read: " + diff.controlProblems());
    }
    return diff != null && !diff.findings().isEmpty() ? Main.AUDIT_REFUTED : exitCode(outcomes);
  }

  /** {@link Main#AUDIT_REFUTED} when any audit's lower bound is above its printed eps, else {@link Main#OK}. */
  static int exitCode(List<ReleaseAudit.Outcome> outcomes) {
    return outcomes.stream().anyMatch(ReleaseAudit.Outcome::refutes) ? Main.AUDIT_REFUTED : Main.OK;
  }

  private ObjectNode json(String id, List<Canary> chosen, List<ReleaseAudit.Outcome> outcomes, boolean refuted) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    ReleaseAudit.Outcome first = outcomes.get(0);
    // Marks the object as an audit's, never a training run's: its epsilon is the printed one audited,
    // and its releases used seeded noise and were never released.
    o.put("audit", true);
    o.put("noise", "seeded per trial, not secure (nothing was released)");
    o.put("algorithm", id);
    o.put("epsilon", first.printedEpsilon());
    o.put("delta", first.delta());
    o.put("guarantee", first.guarantee());
    o.put("confidence", confidence);
    o.put("confidence_per_canary", outcomes.get(0).confidence());
    o.put("trials", trials);
    o.put("coalition", first.coalition());
    o.put("refuted", refuted);
    ArrayNode audits = o.putArray("audits");
    for (int i = 0; i < outcomes.size(); i++) {
      ReleaseAudit.Outcome r = outcomes.get(i);
      ObjectNode x = audits.addObject();
      x.put("canary", chosen.get(i).id());
      x.put("description", chosen.get(i).description());
      x.put("pair", r.pair());
      x.put("statistic", r.statistic());
      x.put("epsilon_lower_bound", r.bound().epsilon());
      x.put("printed_epsilon", r.printedEpsilon());
      x.put("ratio", r.ratio());
      x.put("refuted", r.refutes());
      x.put("separation", r.separation());
      x.put("threshold", r.bound().threshold());
      x.put("false_positives", r.bound().falsePositives());
      x.put("false_negatives", r.bound().falseNegatives());
      x.put("fpr_upper", r.bound().fprUpper());
      x.put("fnr_upper", r.bound().fnrUpper());
      x.put("trials", r.trials());
      x.put("pilot", r.pilot());
      x.put("seconds", r.seconds());
    }
    return o;
  }

  private void print(PrintWriter out, String id, List<Canary> chosen, List<ReleaseAudit.Outcome> outcomes,
      boolean refuted) {
    ReleaseAudit.Outcome first = outcomes.get(0);
    out.println("audit of " + id + ": printed " + first.guarantee());
    out.printf(Locale.ROOT, "  %d trials on each of D and D', lower bounds at confidence %s; the audit knew the noise "
        + "of %d part%s (--coalition)%n", trials, Trainer.fmt(confidence), first.coalition(),
        first.coalition() == 1 ? "y" : "ies");
    out.printf(Locale.ROOT, "  %-16s %9s %9s %7s %10s %8s  %s%n", "canary", "eps_lb", "printed", "ratio",
        "separation", "seconds", "verdict");
    for (int i = 0; i < outcomes.size(); i++) {
      ReleaseAudit.Outcome r = outcomes.get(i);
      out.printf(Locale.ROOT, "  %-16s %9.4f %9.4f %7.3f %10.4f %8.1f  %s%n", chosen.get(i).id(), r.bound().epsilon(),
          r.printedEpsilon(), r.ratio(), r.separation(), r.seconds(),
          r.refutes() ? "REFUTED: the printed eps is false" : "not refuted");
    }
    out.println(refuted
        ? "helmet: the audit refutes the printed epsilon at confidence " + Trainer.fmt(confidence) + ": please report "
            + "the command line and the settings (this output names rows and sizes of your data: share it only where "
            + "the data may be seen)"
        : "  eps_lb below the printed eps is a lower bound, not a proof of privacy; more --trials tighten it");
    out.println("  this output is for the data holder: it names rows and sizes of the data and statistics of "
        + "releases that were never noised for publication");
  }
}
