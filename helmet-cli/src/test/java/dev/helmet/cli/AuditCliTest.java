package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.testdata.TestData;
import dev.helmet.privacy.audit.EpsilonLowerBound;
import dev.helmet.protocols.audit.ReleaseAudit;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code helmet audit} end to end on iris: its --json keys as documented, its exit codes, and its
 * refusals of bad settings before any release runs.
 */
@Tag("integration")
class AuditCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static String[] audit(String... extra) {
    String[] base = {"audit", "--dataset", TestData.path("iris.csv").toString(), "--skip-rows", "1", "--parties", "5",
        "--learner", "svm", "--clip", "3", "--lambda", "20", "--radius", "0.16", "--honest-fraction", "1", "--quiet",
        "--threads", "2"};
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return all;
  }

  @Test
  void jsonHasTheDocumentedKeysAndAnHonestRunIsNotRefuted() throws Exception {
    Cli r = Cli.run(audit("--epsilon", "1", "--trials", "400", "--json"));
    assertEquals(Main.OK, r.exit, r.toString());
    JsonNode o = JSON.readTree(r.out);
    for (String k : new String[] {"algorithm", "epsilon", "delta", "guarantee", "confidence", "trials", "refuted",
        "audits"}) {
      assertTrue(o.has(k), k + " missing: " + r.out);
    }
    assertEquals("helmet", o.get("algorithm").asText());
    assertEquals(1, o.get("epsilon").asDouble(), 1e-6);
    assertTrue(o.get("guarantee").asText().contains("neighbours: "), o.get("guarantee").asText());
    assertFalse(o.get("refuted").asBoolean());
    JsonNode a = o.get("audits").get(0);
    for (String k : new String[] {"canary", "description", "pair", "statistic", "epsilon_lower_bound",
        "printed_epsilon", "ratio", "refuted", "separation", "threshold", "false_positives", "false_negatives",
        "fpr_upper", "fnr_upper", "trials", "pilot", "seconds"}) {
      assertTrue(a.has(k), k + " missing: " + a);
    }
    assertEquals("input-mirror", a.get("canary").asText());
    assertTrue(a.get("epsilon_lower_bound").asDouble() <= 1, a.toString());
    assertEquals(400, a.get("trials").asInt());
  }

  @Test
  void aLowerBoundAboveThePrintedEpsilonExitsFive() {
    // No option makes a release print a false eps (the power of the audit itself is shown in
    // ReleaseAuditTest.underScaledNoiseIsCaught), so the mapping is checked on outcomes: one refuted
    // audit among several makes the command a bug report.
    EpsilonLowerBound.Result high = new EpsilonLowerBound.Result(1.5, 0, true, 0, 0, 100, 100, 0.01, 0.01);
    EpsilonLowerBound.Result low = new EpsilonLowerBound.Result(0.2, 0, true, 0, 0, 100, 100, 0.01, 0.01);
    ReleaseAudit.Outcome refuted = outcome(high, 1);
    ReleaseAudit.Outcome held = outcome(low, 1);
    assertEquals(Main.AUDIT_REFUTED, AuditCommand.exitCode(List.of(held, refuted)));
    assertEquals(Main.OK, AuditCommand.exitCode(List.of(held, outcome(high, 1.5))));
    assertEquals(5, Main.AUDIT_REFUTED, "exit code 5 is documented in the help footer");
    assertTrue(Cli.run("--help").out.replaceAll("\\s+", " ").contains("5 an audit refuted the printed epsilon"));
  }

  private static ReleaseAudit.Outcome outcome(EpsilonLowerBound.Result bound, double printed) {
    return new ReleaseAudit.Outcome(bound, printed, 1e-5, 100, 4, "pair", 0.95, 1, 0, "guarantee", "projection", 0);
  }

  @Test
  void theArtifactDiffRunsBesideTheAuditAndFindsNothingBeyondTheRelease() throws Exception {
    Cli r = Cli.run(audit("--epsilon", "1", "--trials", "100", "--artifacts", "--json"));
    assertEquals(Main.OK, r.exit, r.toString());
    JsonNode a = JSON.readTree(r.out).get("artifacts");
    assertTrue(a != null && a.get("findings").isArray() && a.get("findings").isEmpty(), r.out);
    assertTrue(a.get("control_problems").isEmpty(), r.out);
    assertTrue(a.get("release_differences").asInt() > 0, "the mirrored record moved no released field: " + a);
    for (String k : new String[] {"pair", "compared", "holder_only", "timing", "note"}) {
      assertTrue(a.has(k), k + " missing: " + a);
    }
  }

  @Test
  void badSettingsAreRefusedNamingThem() {
    Cli trials = Cli.run(audit("--trials", "2"));
    assertEquals(Main.INVALID_INPUT, trials.exit, trials.toString());
    assertTrue(trials.errorLine().contains("--trials"), trials.toString());
    Cli confidence = Cli.run(audit("--confidence", "1"));
    assertEquals(Main.INVALID_INPUT, confidence.exit, confidence.toString());
    assertTrue(confidence.errorLine().contains("--confidence"), confidence.toString());
    Cli canary = Cli.run(audit("--canary", "no-such"));
    assertEquals(Main.INVALID_INPUT, canary.exit, canary.toString());
    assertTrue(canary.errorLine().contains("no-such") && canary.errorLine().contains("input-mirror"),
        canary.toString());
  }
}
