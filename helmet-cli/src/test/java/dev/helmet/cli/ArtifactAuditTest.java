package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.testdata.TestData;
import dev.helmet.protocols.audit.ArtifactDiff;
import dev.helmet.protocols.audit.NeighbourPair;
import dev.helmet.protocols.simulation.LocalSession;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The artifact diff of {@code helmet train} ({@link ArtifactAudit}): for each algorithm and
 * neighbouring relation the pipeline is run on D, on D again and on D' with the same seed and noise,
 * and nothing in the model file, the --json or the report differs beyond the DP release, clock
 * readings and the statistics the artifacts label as the data holder's own.
 *
 * <p>Iris (the bundled copy: 120 training rows after train's 20 % holdout), a few quick rounds each.
 */
@Tag("integration")
class ArtifactAuditTest {
  /** {@code helmet train ARGS} on iris as the command line parses it. */
  static Trainer.Spec spec(String... args) {
    List<String> all = new ArrayList<>(List.of("train", "--dataset", TestData.path("iris.csv").toString(),
        "--skip-rows", "1", "--quiet", "--threads", "2", "--seed", "3", "--honest-fraction", "1"));
    all.addAll(List.of(args));
    CommandLine cl = Main.newCommandLine();
    cl.parseArgs(all.toArray(String[]::new));
    TrainCommand cmd = cl.getSubcommands().get("train").getCommand();
    return cmd.trainerSpec();
  }

  static ArtifactAudit.Outcome audit(Trainer.Spec spec) {
    long start = System.nanoTime();
    ArtifactAudit.Outcome o = ArtifactAudit.run(spec, new ConsoleProgress(System.err, false));
    StringWriter text = new StringWriter();
    try (PrintWriter out = new PrintWriter(text)) {
      o.print(out);
    }
    System.out.printf("%s (%.1f s)%n%s", spec.title(), (System.nanoTime() - start) / 1e9, text);
    return o;
  }

  /**
   * What every sound outcome shows: the pair moved the release (so the diff ran on data that differ),
   * the control run reproduced everything but clock readings, and nothing outside the release and
   * the declared classes differs.
   */
  static void assertNoFinding(ArtifactAudit.Outcome o) {
    assertEquals(java.util.Set.of("model.json", "--json", "report.txt"), o.diff().compared());
    assertTrue(o.diff().differences().stream().anyMatch(d -> d.released() && d.path().startsWith("model.json:"
        + "/weights/values/")), "the pair must move the released parameters: " + o.diff().differences());
    assertEquals(List.of(), o.controlProblems(), "two runs on D with the same seed and noise differ");
    assertEquals(List.of(), o.findings(), "artifacts tell D from D' beyond the DP release");
  }

  /** The holder-only differences are the reference's (trained on the pooled private data), and only in the --json and the report. */
  static void assertHolderOnlyIsTheReference(ArtifactAudit.Outcome o) {
    for (ArtifactDiff.Difference d : o.of(ArtifactPaths.Kind.HOLDER)) {
      assertTrue(d.path().startsWith("--json:/reference") || d.path().startsWith("report.txt:")
          && d.onD().startsWith("  reference "), d.toString());
    }
  }

  @Test
  void helmetUnderReplaceOneReleasesNothingBeyondTheModelAndItsTestEvaluation() {
    ArtifactAudit.Outcome o = audit(spec("--epochs", "5", "--parties", "4", "--epsilon", "1"));
    assertNoFinding(o);
    assertHolderOnlyIsTheReference(o);
    assertTrue(o.pair().startsWith("replace-one"), o.pair());
    // What `helmet audit --artifacts --json` would print: the same outcome.
    var json = o.toJson();
    assertEquals(3, json.get("compared").size());
    assertTrue(json.get("findings").isEmpty() && json.get("control_problems").isEmpty(), json.toString());
    assertEquals(o.of(ArtifactPaths.Kind.TIMING).size(), json.get("timing").size());
  }

  /**
   * The audit's fixed noise is the seeded test-only sampler, and its model file says so; a run as
   * {@code train} makes it (no {@link Trainer.Fixed}) draws from SecureRandom on the same spec.
   */
  @Test
  void theAuditsSeededNoiseIsNamedInItsModelFileAndATrainRunsNoiseIsSecure() throws IOException {
    Trainer.Spec spec = spec("--epochs", "2", "--parties", "4", "--no-reference");
    ConsoleProgress quiet = new ConsoleProgress(System.err, false);
    DataOptions.Loaded loaded = spec.data().load(spec.run().seed, 2, quiet);
    NeighbourPair pair = ArtifactAudit.neighbours(spec, loaded.data().train(), spec.run().seed);
    ArtifactAudit.Artifacts audited = ArtifactAudit.artifacts(spec, pair.data(), pair.partition(), null,
        loaded.data().test(), loaded.stage(), spec.run().seed, quiet);
    String sampler = new ObjectMapper().readTree(audited.model()).at("/privacy/details/noise_sampler").asText();
    assertTrue(sampler.contains("SEEDED, NOT SECURE"), sampler);
    LocalSession.Outcome train = Trainer.run(spec, loaded.data().train(), loaded.data().test(), loaded.stage(),
        spec.run().seed, quiet);
    String secure = String.valueOf(train.model().privacy().details().get("noise_sampler"));
    assertTrue(secure.contains("SecureRandom") && !secure.contains("SEEDED"), secure);
  }

  @Test
  void dpFlUnderReplaceOneReleasesNothingBeyondTheModelAndItsTestEvaluation() {
    ArtifactAudit.Outcome o = audit(spec("--algorithm", "dp-fl", "--parties", "4", "--rounds", "3",
        "--sampling-rate", "0.5", "--epsilon", "2", "--no-reference"));
    assertNoFinding(o);
    assertEquals(List.of(), o.of(ArtifactPaths.Kind.HOLDER), "no reference, no holder-only statistic");
  }

  @Test
  void dpFlUnderAddOrRemoveWithAFixedPerPartyReleasesNoCount() {
    ArtifactAudit.Outcome o = audit(spec("--algorithm", "dp-fl", "--neighbours", "add-remove", "--parties", "2",
        "--per-party", "50", "--expected-batch", "20", "--rounds", "3", "--sampling-rate", "0.2", "--epsilon", "2",
        "--no-reference"));
    assertTrue(o.pair().startsWith("add-or-remove") && o.pair().contains("49 records in D' and 50 in D"), o.pair());
    assertNoFinding(o);
  }

  @Test
  void dpFlsRingIsSizedFromPublicSizesWhenTheRemovedRecordIsTheLargestPartys() {
    // Party 0 is the only large party (80 records, the other 20): removing one of its records moved
    // dp-fl's ring from 64 to 32 bits when the plan was derived from D''s private sizes (ring_bits,
    // fractional_bits, bytes_per_party, server_bytes and the report's protocol line differed; found by
    // this diff). The plans are now derived from a public bound both neighbours share.
    Trainer.Spec spec = spec("--algorithm", "dp-fl", "--neighbours", "add-remove", "--parties", "2", "--partition",
        "uneven", "--per-party", "20", "--uneven-ratio", "4", "--large-fraction", "0.5", "--expected-batch", "20",
        "--rounds", "3", "--sampling-rate", "0.2", "--epsilon", "2", "--no-reference", "--grad-clip", "168");
    assertNoFinding(audit(spec));
  }

  @Test
  void smmUnderAddOrRemoveWithAFixedPerPartyReleasesNoCount() {
    ArtifactAudit.Outcome o = audit(spec("--algorithm", "smm", "--parties", "2", "--per-party", "50", "--bits", "10",
        "--hidden", "4", "--expected-batch", "20", "--rounds", "3", "--sampling-rate", "0.2", "--epsilon", "4"));
    assertTrue(o.pair().startsWith("add-or-remove"), o.pair());
    assertNoFinding(o);
    assertHolderOnlyIsTheReference(o);
  }

  /**
   * The power check: the model file and --json of a5230d4, which under add-or-remove neighbours
   * stated the record count ({@code provenance.partition} "iid, all 120 points over 2 parties", and
   * {@code per_party} the mean local size; privacy review turn 3, finding 3, fixed in aa7384c), are
   * reported with their paths. Built from this run's own artifacts on D and D' (smm, no --per-party,
   * as in the review), with the fields rewritten as that commit's PartitionStrategy.Iid and
   * Trainer.summary wrote them.
   */
  @Test
  void theOldModelFileThatStatedTheRecordCountUnderAddOrRemoveIsReportedWithItsPath() throws IOException {
    Trainer.Spec spec = spec("--algorithm", "smm", "--parties", "2", "--bits", "10", "--hidden", "4",
        "--expected-batch", "20", "--rounds", "3", "--sampling-rate", "0.2", "--epsilon", "4", "--no-reference");
    ConsoleProgress quiet = new ConsoleProgress(System.err, false);
    DataOptions.Loaded loaded = spec.data().load(spec.run().seed, 2, quiet);
    NeighbourPair pair = ArtifactAudit.neighbours(spec, loaded.data().train(), spec.run().seed);
    int[] sizes = dev.helmet.protocols.audit.ReleaseAudit.publicSizes(pair);
    ArtifactAudit.Artifacts onD = ArtifactAudit.artifacts(spec, pair.data(), pair.partition(), sizes,
        loaded.data().test(), loaded.stage(), spec.run().seed, quiet);
    ArtifactAudit.Artifacts onN = ArtifactAudit.artifacts(spec, pair.neighbour(), pair.neighbourPartition(), sizes,
        loaded.data().test(), loaded.stage(), spec.run().seed, quiet);
    assertEquals(List.of(), ArtifactPaths.of(ArtifactAudit.compare(spec, onD, onN), ArtifactPaths.Kind.FINDING,
        spec), "today's artifacts state no count");
    assertEquals(120, pair.partition().totalSize());
    assertEquals(119, pair.neighbourPartition().totalSize());

    List<ArtifactDiff.Difference> found = ArtifactPaths.of(ArtifactAudit.compare(spec, oldShape(onD, 120),
        oldShape(onN, 119)), ArtifactPaths.Kind.FINDING, spec);
    System.out.println("a5230d4's shape: " + found);
    assertEquals(List.of("model.json:/provenance/partition", "--json:/per_party", "--json:/partition"),
        found.stream().map(ArtifactDiff.Difference::path).toList());
    assertEquals("\"iid, all 120 points over 2 parties\"", found.get(0).onD());
    assertEquals("\"iid, all 119 points over 2 parties\"", found.get(0).onNeighbour());
    assertEquals("60.0", found.get(1).onD());
    assertEquals("59.5", found.get(1).onNeighbour());
  }

  /** {@code a} with the count-stating fields of a5230d4 for a training set of {@code records} rows over 2 parties. */
  private static ArtifactAudit.Artifacts oldShape(ArtifactAudit.Artifacts a, int records) throws IOException {
    ObjectMapper json = new ObjectMapper();
    String partition = "iid, all " + records + " points over 2 parties";
    ObjectNode model = (ObjectNode) json.readTree(a.model());
    ((ObjectNode) model.get("provenance")).put("partition", partition);
    ObjectNode summary = (ObjectNode) json.readTree(a.summary());
    summary.put("partition", partition);
    summary.put("per_party", records / 2.0);
    return new ArtifactAudit.Artifacts(json.writeValueAsString(model), json.writeValueAsString(summary), a.report());
  }
}
