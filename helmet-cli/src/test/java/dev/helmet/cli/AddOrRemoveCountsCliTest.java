package dev.helmet.cli;

import static dev.helmet.cli.CliAssertions.assertInvalid;
import static dev.helmet.cli.CliAssertions.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under an add-or-remove guarantee the neighbouring data sets differ in size, so the number of
 * records is private: a run on D (200 records) and one on D' (D minus its last record) must release
 * nothing that tells them apart other than the DP release itself (the weights). The model files'
 * provenance and ledger and the --json summaries, apart from measurements on data the user holds and
 * timings, are identical; under replace-one the sizes stay public and are still reported.
 */
class AddOrRemoveCountsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /**
   * --json keys that may differ between the two runs: the data's path and the model's, timings,
   * and measurements on data the user holds (the evaluation, and the non-private reference trained
   * on the pooled data: labelled as not covered by the guarantee and never written to the model
   * file). Every other key, including any count, must be equal.
   */
  private static final Set<String> MEASUREMENTS = Set.of("dataset", "model", "timings", "wall_seconds",
      "secagg_seconds", "server_seconds", "party_seconds", "test_accuracy", "test_macro_f1", "confusion_matrix",
      "reference_accuracy", "reference_macro_f1", "reference_epochs", "reference");

  @TempDir Path dir;

  /** Two CSV files, the second the first minus its last row, and a separate test file. */
  private Path[] neighbours() throws IOException {
    SplittableRandom rng = new SplittableRandom(7);
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      int y = rng.nextInt(2);
      StringBuilder row = new StringBuilder();
      for (int j = 0; j < 4; j++) {
        row.append(String.format(Locale.ROOT, "%.4f,", (y == 1 ? 0.8 : -0.8) + rng.nextGaussian()));
      }
      rows.add(row.append(y).toString());
    }
    String header = "a,b,c,d,label\n";
    Path d200 = dir.resolve("d200.csv");
    Path d199 = dir.resolve("d199.csv");
    Path test = dir.resolve("test.csv");
    Files.writeString(d200, header + String.join("\n", rows.subList(0, 200)) + "\n");
    Files.writeString(d199, header + String.join("\n", rows.subList(0, 199)) + "\n");
    Files.writeString(test, header + String.join("\n", rows.subList(200, 300)) + "\n");
    return new Path[] {d200, d199, test};
  }

  private static String[] train(Path data, Path test, Path model, String... more) {
    List<String> a = new ArrayList<>(List.of("train", "--dataset", data.toString(), "--test", test.toString(),
        "--classes", "0,1", "--parties", "2", "--epsilon", "4", "--rounds", "5", "--sampling-rate", "0.05",
        "--honest-fraction", "1", "--json", "--quiet", "-o", model.toString()));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  /** The summary without the keys allowed to differ. */
  private static JsonNode released(JsonNode summary) {
    ObjectNode o = summary.deepCopy();
    o.remove(MEASUREMENTS);
    return o;
  }

  /** The model file without its weights (the DP release), its creation time and the data's path. */
  private static JsonNode releasedFile(Path model) throws IOException {
    ObjectNode o = (ObjectNode) JSON.readTree(Files.readString(model));
    o.remove("weights");
    ((ObjectNode) o.get("provenance")).remove(List.of("created", "dataset"));
    return o;
  }

  private JsonNode assertNeighboursReleaseNoCount(String... algorithm) throws IOException {
    Path[] d = neighbours();
    Path m200 = dir.resolve("m200.json");
    Path m199 = dir.resolve("m199.json");
    JsonNode j200 = json(Cli.run(train(d[0], d[2], m200, algorithm)));
    JsonNode j199 = json(Cli.run(train(d[1], d[2], m199, algorithm)));
    assertEquals("add or remove one record", j200.get("epsilon_neighbours").asText(), j200.toString());
    assertEquals(released(j200), released(j199), "the --json of D and D' differ beyond the release");
    assertEquals(releasedFile(m200), releasedFile(m199), "the model files of D and D' differ beyond the weights");
    assertEquals("iid over 2 parties", j200.get("partition").asText());
    assertEquals("iid over 2 parties", JSON.readTree(Files.readString(m200)).get("provenance").get("partition")
        .asText());
    // documented key, null when the count is private
    assertTrue(j200.has("per_party") && j200.get("per_party").isNull(), j200.toString());
    for (Path m : new Path[] {m200, m199}) {
      String file = Files.readString(m);
      assertFalse(file.contains("200 points") || file.contains("199 points"), file);
    }
    return j200;
  }

  /**
   * The review's pair: SMM on D and D' (with a public normaliser) releases the same provenance,
   * ledger, partition and count keys; only the weights and the user's own measurements differ.
   */
  @Test
  void smmOnNeighbouringDataSetsReleasesNoCountOfTheRecords() throws IOException {
    JsonNode j = assertNeighboursReleaseNoCount("--algorithm", "smm", "--bits", "10", "--hidden", "4",
        "--expected-batch", "7");
    // the reference's batch is the public |B| too, not q x the 200 pooled records (10)
    assertTrue(j.get("reference").asText().contains("5 steps of 7 records"), j.get("reference").asText());
  }

  /**
   * DP-FL under --neighbours add-remove sizes its ring encoding from the largest party's clipped
   * sum, n_i C: without a configured --per-party that would be a function of the private count, so
   * the run is refused (exit 2) naming the fix; with it, D and D' release the same ledger,
   * provenance and partition (the configured size is public).
   */
  @Test
  void dpFlUnderAddRemoveOnNeighbouringDataSetsReleasesNoCountOfTheRecords() throws IOException {
    Path[] d = neighbours();
    Cli c = Cli.run(train(d[0], d[2], dir.resolve("m.json"), "--algorithm", "dp-fl", "--neighbours", "add-remove",
        "--expected-batch", "10"));
    assertInvalid(c, "give --per-party N");
    assertFalse(Files.exists(dir.resolve("m.json")), "nothing is released");
    Path m200 = dir.resolve("m200.json");
    Path m199 = dir.resolve("m199.json");
    String[] dpfl = {"--algorithm", "dp-fl", "--neighbours", "add-remove", "--expected-batch", "10", "--per-party",
        "99"};
    JsonNode j200 = json(Cli.run(train(d[0], d[2], m200, dpfl)));
    JsonNode j199 = json(Cli.run(train(d[1], d[2], m199, dpfl)));
    assertEquals(released(j200), released(j199), "the --json of D and D' differ beyond the release");
    assertEquals(releasedFile(m200), releasedFile(m199), "the model files of D and D' differ beyond the weights");
  }

  /**
   * Under replace-one the neighbours keep their sizes, which are public: the partition and per_party
   * still state them (the keys and their values are unchanged for such runs).
   */
  @Test
  void aReplaceOneRunStillReportsItsPublicSizes() throws IOException {
    Path[] d = neighbours();
    JsonNode j = json(Cli.run(train(d[0], d[2], dir.resolve("m.json"), "--algorithm", "dp-fl")));
    assertEquals("replace one record", j.get("epsilon_neighbours").asText());
    assertEquals("iid, all 200 points over 2 parties", j.get("partition").asText());
    assertEquals(100.0, j.get("per_party").asDouble(), 0);
  }

  /** Points per party given on the command line are public configuration, reported under either relation. */
  @Test
  void aConfiguredPerPartyIsReportedUnderAddRemoveToo() throws IOException {
    Path[] d = neighbours();
    JsonNode j = json(Cli.run(train(d[0], d[2], dir.resolve("m.json"), "--algorithm", "smm", "--bits", "10",
        "--hidden", "4", "--per-party", "50")));
    assertEquals(50, j.get("per_party").asInt());
    assertEquals("iid, 2 parties x 50 points", j.get("partition").asText());
    // its default normaliser is q x the configured 100 records
    JsonNode file = JSON.readTree(Files.readString(dir.resolve("m.json")));
    assertEquals(0.05 * 2 * 50, file.get("provenance").get("algorithm_config").get("smm").get("expected_batch")
        .asDouble(), 1e-12);
  }

  /**
   * --partition natural takes the number of parties from the data's party column, so removing a
   * party's only record removes the party, and W is in every artifact (the attacker's read of the
   * fix: "natural, 3 parties" against "natural, 2 parties"). Under add-or-remove it is refused
   * (exit 2), naming the fix, and nothing is released.
   */
  @Test
  void aPartitionWhosePartyCountTheDataDecidesIsRefusedUnderAddRemove() throws IOException {
    StringBuilder rows = new StringBuilder("a,b,party,label\n");
    for (int i = 0; i < 41; i++) {
      rows.append(i % 2 == 0 ? "0.5,-0.2," : "-0.5,0.3,").append(i == 40 ? "c" : i < 20 ? "p" : "q").append(',')
          .append(i % 2).append('\n');
    }
    Path data = dir.resolve("natural.csv");
    Files.writeString(data, rows.toString());
    Path model = dir.resolve("m.json");
    Cli c = Cli.run("train", "--dataset", data.toString(), "--test", data.toString(), "--label-column", "label",
        "--classes", "0,1", "--partition", "natural", "--party-column", "party", "--algorithm", "smm", "--bits", "10",
        "--hidden", "4", "--expected-batch", "5", "--epsilon", "4", "--rounds", "2", "--sampling-rate", "0.05",
        "--honest-fraction", "1", "--json", "--quiet", "-o", model.toString());
    assertInvalid(c, "--partition natural takes it from the party column");
    assertFalse(Files.exists(model), "nothing is released");
  }

  /**
   * SMM on one's own file without --expected-batch is refused (exit 2), naming the flag and the
   * value of the standard setting, instead of dividing every step by q times the private count.
   */
  @Test
  void smmWithoutAPublicNormaliserIsRefusedNamingExpectedBatch() throws IOException {
    Path[] d = neighbours();
    Cli c = Cli.run(train(d[0], d[2], dir.resolve("m.json"), "--algorithm", "smm", "--bits", "10", "--hidden", "4"));
    assertInvalid(c, "--expected-batch is required");
    assertTrue(c.errorLine().contains("240 for q 0.004 on MNIST's 60,000"), c.err);
    assertFalse(Files.exists(dir.resolve("m.json")), "nothing is released");
  }

  /**
   * The public record count smm's default normaliser may use is a constant of the catalogue (MNIST's
   * published 60,000-record training split, less a configured holdout), never the rows of a file.
   */
  @Test
  void thePublicRecordCountComesFromTheCatalogueNeverFromAFile() throws IOException {
    DataOptions o = new DataOptions();
    o.dataset = "mnist";
    assertEquals(60_000, o.publicTrainRecords());
    o.validationFraction = 0.2;
    assertEquals(48_000, o.publicTrainRecords());
    o.dataset = neighbours()[0].toString();
    assertEquals(0, o.publicTrainRecords());
  }
}
