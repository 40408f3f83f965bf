package dev.helmet.cli;

import dev.helmet.core.eval.Evaluation;
import dev.helmet.protocols.simulation.CentralizedReference;
import dev.helmet.protocols.simulation.LocalSession;
import dev.helmet.secagg.summation.SummationOutcome;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/** The human summary of a {@code train} or {@code demo} run. */
final class TrainerReport {
  private TrainerReport() {}

  /**
   * The private run's lines: everything but the non-private reference and the wall time ({@link
   * #printReference}), so they are out before the reference is trained.
   */
  static void printRun(Trainer.Spec spec, LocalSession.Outcome r, PrintWriter out) {
    Map<String, Object> d = r.model().privacy().details();
    var res = r.result();
    SummationOutcome so = res.last();
    String name = String.valueOf(r.model().provenance().get("protocol"));
    String protocol;
    if (spec.run().distributed()) {
      protocol = "plain summation on the " + spec.run().engine + " engine, a tree aggregation of the parties' ring "
          + "vectors (IN THE CLEAR: the server sees the sum of every party's input; the engine's workers see partial "
          + "sums; for simulations)";
    } else if (so == null) {
      protocol = "none: " + res.rounds() + " round(s) simulated in aggregate (no messages; for experiments only)";
    } else if (Boolean.TRUE.equals(d.get("summation_reveals_inputs"))) {
      protocol = name + " summation (IN THE CLEAR: the server sees every party's input; for comparison only)";
    } else {
      protocol = name + Trainer.describe(so.parameters()) + String.format(
          "; server %.2f s, %.3f s per party", so.serverSeconds(), so.partySeconds());
    }
    out.println(spec.title());
    out.printf("  data              %s; %s%n", spec.data().dataset, r.partition().description(r.spec().sizesPrivate()));
    if (!r.model().featureStage().isRaw()) {
      out.printf("  features          %s%n", r.model().featureStage().describe());
    }
    out.printf("  %-17s %s%n", r.spec().algorithm().id(), r.spec().describe());
    List<Double> drawAcc = r.draws().stream().map(Evaluation::accuracy).toList();
    String label = spec.data().validationFraction > 0 ? "valid. accuracy" : "test accuracy";
    if (r.test().isRegression()) {
      label = spec.data().validationFraction > 0 ? "valid. error" : "test error";
      out.printf("  %-17s %s%s; in the target's units%n", label, r.test().headline(), drawAcc.size() == 1 ? ""
          : String.format(" (first of %d noise draws; MSE mean %.4g)", drawAcc.size(),
              Trainer.mean(r.draws().stream().map(e -> e.regression().mse()).toList())));
    } else if (drawAcc.size() == 1) {
      out.printf("  %-17s %.2f %%  (macro-F1 %.3f)%n", label, 100 * r.test().accuracy(), r.test().macroF1());
    } else {
      out.printf("  %-17s %.2f %%  mean of %d noise draws (sd %.2f, min %.2f); each draw is a separate release%n",
          label, 100 * Trainer.mean(drawAcc), drawAcc.size(), 100 * Trainer.std(drawAcc),
          100 * drawAcc.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN));
    }
    Trainer.printPrivacy(out, r.model().privacy());
    Object sensitivity = res.plan().summary().get("sensitivity");
    out.printf("  noise multiplier  %.4f %s%s%n", res.plan().noiseMultiplier(),
        noiseMultiplierMeaning(res.plan().summary(), res.rounds()),
        sensitivity instanceof Number n ? String.format("; sensitivity %.4g per party and release", n.doubleValue())
            : "");
    out.printf("  protocol          %s; %d B per party%n", protocol, res.bytesPerParty());
    if (so != null && !so.dropped().isEmpty()) {
      // A party that drops after its masked input is still in the sum: say so, so the counts add up.
      java.util.Set<Integer> in = new java.util.HashSet<>(so.contributors());
      long late = so.dropped().stream().filter(x -> in.contains(x.party())).count();
      int parties = so.contributors().size() + (int) (so.dropped().size() - late);
      out.printf("  dropouts          %d of %d parties dropped out%s; %d contributed (noise calibrated for at least "
          + "%d)%n", so.dropped().size(), parties, late == 0 ? "" : " (" + late + " after sending their input, so "
          + "they are still in the sum)", so.contributors().size(), res.plan().minContributors());
    }
    Object sampler = d.get("noise_sampler");
    if (sampler != null) {
      out.printf("  noise             %s%n", sampler);
    }
    if (spec.run().modelOut != null) {
      out.printf("  model             %s%n", spec.run().modelOut);
    }
  }

  /** The reference's lines (when it was trained) and the wall time, after {@link #printRun}. */
  static void printReference(LocalSession.Outcome r, double wall, PrintWriter out) {
    printReference(r.reference(), out);
    // "rounds": each party's input (wd-dp's noisy descent runs there), its noise and the summation.
    out.printf("  wall time         %.1f s (local work before the rounds %.1f s, rounds %.1f s, reference %.1f s)%n",
        wall, r.trainingSeconds(), r.releaseSeconds(), r.referenceSeconds());
  }

  /** The reference's accuracy (or error) and optimality gap, or nothing when there is none. */
  static void printReference(CentralizedReference.Outcome reference, PrintWriter out) {
    if (reference == null) {
      return;
    }
    out.printf("  reference         %s  %s%n", reference.evaluation().isRegression()
        ? reference.evaluation().headline()
        : String.format("%.2f %%", 100 * reference.evaluation().accuracy()), reference.description());
    if (reference.optimum() != null) {
      out.printf("  optimality gap    %.4g (reference %.3g); L_D(theta) - L_D(theta*) on the pooled training data, "
          + "%s%n", reference.gap(), reference.referenceGap(), reference.optimum());
    } else if (reference.gapSkipped() != null) {
      out.printf("  optimality gap    %s%n", reference.gapSkipped());
    }
  }

  /**
   * What the noise multiplier is per, in words: the plan's own {@code noise_multiplier_meaning}
   * where it gives one (wd-dp: "per step; T steps compose", its noise is added on every local step),
   * else per round over the run's summations.
   */
  static String noiseMultiplierMeaning(Map<String, Object> summary, int rounds) {
    Object meaning = summary.get("noise_multiplier_meaning");
    if (meaning != null) {
      return meaning + "; " + rounds + (rounds == 1 ? " summation" : " summations");
    }
    return "over " + rounds + " round(s)";
  }
}
