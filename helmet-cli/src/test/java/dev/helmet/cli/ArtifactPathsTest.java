package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.helmet.protocols.audit.ArtifactDiff;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The artifact audit's declarations ({@link ArtifactPaths}): which differences are the release,
 * which a clock reading or the data holder's own statistic, and that anything else stays a finding.
 */
class ArtifactPathsTest {
  private static final Trainer.Spec ONE_DRAW = ArtifactAuditTest.spec();
  private static final Trainer.Spec VALIDATION = ArtifactAuditTest.spec("--validation-fraction", "0.2");

  private static List<String> kinds(ArtifactDiff diff, Trainer.Spec spec) {
    return diff.findings().stream().map(d -> d.path() + " " + ArtifactPaths.kind(d, spec)).toList();
  }

  private static ArtifactDiff summaries(Trainer.Spec spec, String onD, String onN) {
    return new ArtifactDiff().json(ArtifactPaths.SUMMARY, onD, onN, ArtifactPaths.summaryReleased(spec));
  }

  @Test
  void theModelFilesParametersAreTheReleaseItsCreationTimeAClockReadingAndAnythingElseAFinding() {
    ArtifactDiff diff = new ArtifactDiff().json(ArtifactPaths.MODEL,
        "{\"weights\": {\"rows\": 3, \"values\": [0.5, 1]}, \"provenance\": {\"created\": \"t1\", \"records\": 120}}",
        "{\"weights\": {\"rows\": 3, \"values\": [0.25, 1]}, \"provenance\": {\"created\": \"t2\", \"records\": 119}}",
        ArtifactPaths.modelReleased());
    assertEquals(3, diff.differences().size());
    assertEquals(List.of("model.json:/provenance/created TIMING", "model.json:/provenance/records FINDING"),
        kinds(diff, ONE_DRAW));
  }

  @Test
  void anEvaluationOnTheFixedTestDataIsTheReleaseButOnAValidationHoldoutTheHoldersOwn() {
    String onD = "{\"test_accuracy\": 0.9, \"confusion_matrix\": [[9, 1]], \"reference_accuracy\": 0.95, "
        + "\"timings\": {\"release\": 0.4}, \"per_party\": 60.0}";
    String onN = "{\"test_accuracy\": 0.8, \"confusion_matrix\": [[8, 2]], \"reference_accuracy\": 0.9, "
        + "\"timings\": {\"release\": 0.1}, \"per_party\": 59.5}";
    assertEquals(List.of("--json:/reference_accuracy HOLDER", "--json:/timings/release TIMING",
        "--json:/per_party FINDING"), kinds(summaries(ONE_DRAW, onD, onN), ONE_DRAW));
    assertEquals(List.of("--json:/test_accuracy HOLDER", "--json:/confusion_matrix/0/0 HOLDER",
        "--json:/confusion_matrix/0/1 HOLDER", "--json:/reference_accuracy HOLDER", "--json:/timings/release TIMING",
        "--json:/per_party FINDING"), kinds(summaries(VALIDATION, onD, onN), VALIDATION));
  }

  @Test
  void aReportLineIsAClockReadingOnlyWhenItsSecondsAloneDiffer() {
    String onD = String.join("\n", "  test accuracy     90.00 %  (macro-F1 0.900)",
        "  protocol          secagg+; server 0.02 s, 0.003 s per party; 2853 B per party",
        "  protocol          secagg+; server 0.02 s, 0.003 s per party; 2853 B per party",
        "  reference         95.00 %  non-private centralized",
        "  wall time         0.4 s (local work before the rounds 0.0 s, rounds 0.4 s, reference 0.0 s)");
    String onN = String.join("\n", "  test accuracy     80.00 %  (macro-F1 0.800)",
        "  protocol          secagg+; server 0.01 s, 0.002 s per party; 2853 B per party",
        "  protocol          secagg+; server 0.01 s, 0.002 s per party; 2673 B per party",
        "  reference         90.00 %  non-private centralized",
        "  wall time         0.1 s (local work before the rounds 0.0 s, rounds 0.1 s, reference 0.0 s)");
    ArtifactDiff diff = new ArtifactDiff().text(ArtifactPaths.REPORT, onD, onN, ArtifactPaths.reportReleased(ONE_DRAW));
    assertEquals(5, diff.differences().size());
    assertEquals(List.of("report.txt:2 TIMING", "report.txt:3 FINDING", "report.txt:4 HOLDER", "report.txt:5 TIMING"),
        kinds(diff, ONE_DRAW));
  }
}
