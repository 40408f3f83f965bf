package dev.helmet.cli;

import dev.helmet.protocols.audit.ArtifactDiff;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * What the artifact audit ({@link ArtifactAudit}) declares about the paths of {@code helmet train}'s
 * artifacts: which are the DP release (or computed from it and the public evaluation data alone),
 * and which of the other differences fall into a declared class that is reported on its own line
 * rather than as a finding. Each declaration is a claim the diff cannot check; its argument is
 * beside it. Anything not declared here that differs between D and D' is a finding.
 */
final class ArtifactPaths {
  private ArtifactPaths() {}

  /** The model file's name in the diff's paths. */
  static final String MODEL = "model.json";
  /** The {@code --json} summary's. */
  static final String SUMMARY = "--json";
  /** The printed report's. */
  static final String REPORT = "report.txt";

  /** How a difference outside the release is reported. */
  enum Kind {
    /**
     * A wall-clock reading: it differs between two runs on the same data with the same seeds and
     * noise (the audit's control run shows it), so the diff cannot tell a data dependence from
     * jitter. Reported, neither cleared nor counted as a finding: how long local work takes grows
     * with a party's records, a timing channel this diff cannot decide (docs/privacy.md, known limits).
     */
    TIMING,
    /**
     * A statistic of the private training data that the artifact itself labels as not covered by
     * the guarantee (the non-private centralized reference, an optimality gap, an evaluation on a
     * holdout of the training data or over several noise draws) and that the model file never
     * carries: for the person who holds the data. Reported with its path: publishing it is a
     * release no guarantee covers.
     */
    HOLDER,
    /** Anything else: a field that tells D from D' beyond the DP release. */
    FINDING
  }

  /**
   * Whether the evaluation figures are computed from the written release and public data alone:
   * the audit holds the evaluation data fixed across D and D' (it is public to the pair), and one
   * noise draw is the written release. With a validation holdout the evaluation data is part of
   * the training file, and with several draws the figures are over other releases as well; the
   * artifacts then label them as not covered, and so does the audit ({@link Kind#HOLDER}).
   */
  static boolean evaluationReleased(Trainer.Spec spec) {
    return spec.data().validationFraction == 0 && spec.run().noiseDraws == 1;
  }

  /** The model file's release: its parameters, the DP release itself. Shapes and everything else must match. */
  static Predicate<String> modelReleased() {
    return p -> p.startsWith("/weights/values/");
  }

  /**
   * The --json's release: the model's evaluation on the public data, a function of the release
   * and that data alone (post-processing), when {@link #evaluationReleased}.
   */
  static Predicate<String> summaryReleased(Trainer.Spec spec) {
    boolean released = evaluationReleased(spec);
    return p -> released && isEvaluation(p);
  }

  /** The report's release: its evaluation line (accuracy and macro-F1, or the errors), when {@link #evaluationReleased}. */
  static Predicate<String> reportReleased(Trainer.Spec spec) {
    boolean released = evaluationReleased(spec);
    return numberedLine -> released && isEvaluationLine(numberedLine.substring(numberedLine.indexOf(':') + 1));
  }

  /** The --json keys of the evaluation (on the data {@code evaluated_on} names). */
  private static final Set<String> EVALUATION = Set.of("/test_accuracy", "/test_macro_f1", "/test_mse", "/test_rmse",
      "/test_r2", "/test_accuracy_sd", "/test_accuracy_min");

  private static boolean isEvaluation(String p) {
    return EVALUATION.contains(p) || p.startsWith("/test_accuracy_draws/") || p.startsWith("/test_mse_draws/")
        || p.startsWith("/confusion_matrix/");
  }

  private static boolean isEvaluationLine(String line) {
    return line.startsWith("  test accuracy ") || line.startsWith("  test error ")
        || line.startsWith("  valid. accuracy ") || line.startsWith("  valid. error ");
  }

  /**
   * Clock readings: the model's creation time, and the --json's wall, summation, server and party
   * seconds and the timings of each phase (including a summation's setup time). None is computed
   * from the values of the data; each is a reading of this machine's clock.
   */
  private static final Set<String> SUMMARY_TIMING = Set.of("/wall_seconds", "/secagg_seconds", "/server_seconds",
      "/party_seconds", "/summation_parameters/setup_seconds");

  /**
   * The non-private reference and the optimality gap: trained and computed on the pooled private
   * data, and labelled so in the --json ({@code optimality_gap_note}, the reference's description).
   */
  private static final Set<String> SUMMARY_HOLDER = Set.of("/reference_accuracy", "/reference_macro_f1",
      "/reference_mse", "/reference_r2", "/reference_epochs", "/reference", "/optimality_gap",
      "/reference_optimality_gap", "/optimum", "/optimality_gap_skipped");

  /** A figure in seconds as the report prints it ("1.2 s", "0.003 s per party"). */
  private static final Pattern SECONDS = Pattern.compile("\\d+(\\.\\d+)? s\\b");

  /** How a difference the diff found outside the release is reported. */
  static Kind kind(ArtifactDiff.Difference d, Trainer.Spec spec) {
    String path = d.path();
    if (path.startsWith(MODEL + ":")) {
      String p = path.substring(MODEL.length() + 1);
      return p.equals("/provenance/created") ? Kind.TIMING : Kind.FINDING;
    }
    if (path.startsWith(SUMMARY + ":")) {
      String p = path.substring(SUMMARY.length() + 1);
      if (SUMMARY_TIMING.contains(p) || p.startsWith("/timings/")) {
        return Kind.TIMING;
      }
      if (SUMMARY_HOLDER.contains(p) || !evaluationReleased(spec) && isEvaluation(p)) {
        return Kind.HOLDER;
      }
      return Kind.FINDING;
    }
    if (path.startsWith(REPORT + ":")) {
      // A line is a clock reading when it is the same on both sides with every figure in seconds
      // masked: the wall-time line, and the protocol line's server and party seconds. Any other
      // change on such a line (a count beside the seconds) keeps it a finding.
      if (mask(d.onD()).equals(mask(d.onNeighbour()))) {
        return Kind.TIMING;
      }
      String line = d.onD().equals("<absent>") ? d.onNeighbour() : d.onD();
      if (line.startsWith("  reference ") || line.startsWith("  optimality gap ")
          || !evaluationReleased(spec) && isEvaluationLine(line)) {
        return Kind.HOLDER;
      }
    }
    return Kind.FINDING;
  }

  /** The differences of {@code diff}'s findings that are of {@code kind}. */
  static List<ArtifactDiff.Difference> of(ArtifactDiff diff, Kind kind, Trainer.Spec spec) {
    return diff.findings().stream().filter(d -> kind(d, spec) == kind).toList();
  }

  private static String mask(String line) {
    return SECONDS.matcher(line).replaceAll("# s");
  }
}
