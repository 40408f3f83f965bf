package dev.helmet.cli;

import static dev.helmet.cli.CliAssertions.assertInvalid;
import static dev.helmet.cli.CliAssertions.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.testdata.TestData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private Path iris() {
    return TestData.path("iris.csv");
  }

  private String[] irisTrain(String... extra) {
    String[] base = {"train", "--dataset", iris().toString(), "--skip-rows", "1", "--parties", "4", "--epochs", "5",
        "--quiet", "--threads", "1"};
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return all;
  }

  /** As {@link #irisTrain} without Helmet's --epochs (a DP-FL run refuses another algorithm's options). */
  private String[] irisDpFl(String... extra) {
    String[] base = {"train", "--dataset", iris().toString(), "--skip-rows", "1", "--parties", "4", "--quiet",
        "--threads", "1"};
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return all;
  }

  /** Federated DP-SGD on the same data: accounted within its target, through secure aggregation by default. */
  @Test
  void trainDpFlReportsPrivacyRoundsAndBytes() throws IOException {
    JsonNode j = json(Cli.run(irisDpFl("--protocol", "dp-fl", "--epsilon", "2", "--sampling-rate", "0.2", "--rounds",
        "10", "--json")));
    assertEquals("dp-fl", j.get("algorithm").asText());
    JsonNode helmet = json(Cli.run(irisTrain("--epsilon", "2", "--json")));
    assertEquals(1, helmet.get("rounds").asInt(), "Helmet: one summation");
    assertTrue(j.get("bytes_per_party").asLong() > 5 * helmet.get("bytes_per_party").asLong(),
        "ten rounds of DP-FL cost more than one Helmet release: " + j.get("bytes_per_party") + " vs "
            + helmet.get("bytes_per_party"));
    assertEquals("secagg+", j.get("summation").asText());
    assertEquals(10, j.get("rounds").asInt());
    assertTrue(j.get("epsilon").asDouble() <= 2, j.toString());
    assertTrue(j.get("bytes_per_party").asLong() > 10 * 15 * 4, j.toString());
    assertInvalid(Cli.run(irisDpFl("--algorithm", "dp-fl", "--learner", "svm")), "--learner must be softmax or mlp");
    assertInvalid(Cli.run(irisDpFl("--algorithm", "dp-fl", "--lambda", "0.5")),
        "--lambda is a parameter of helmet; it does not apply to --algorithm dp-fl");
    assertInvalid(Cli.run(irisDpFl("--algorithm", "dp-fl", "--noise-split", "some")), "noise split must be");
    assertInvalid(Cli.run(irisDpFl("--algorithm", "dp-fl", "--sampling-rate", "2")), "--sampling-rate must be in");
    assertInvalid(Cli.run(irisDpFl("--algorithm", "nonesuch")), "unknown algorithm 'nonesuch'; known: helmet, dp-fl");
  }

  /**
   * DP-FL trains an MLP from the command line (--learner mlp, --hidden, --optimizer: flags shared
   * with smm): the released model is the MLP, accounted within its target; MLP-only settings on the
   * softmax model and an unknown optimizer are refused naming the flag.
   */
  @Test
  void trainDpFlWithTheMlpLearner() throws IOException {
    Path model = dir.resolve("mlp.json");
    JsonNode j = json(Cli.run(irisDpFl("--algorithm", "dp-fl", "--learner", "mlp", "--hidden", "8",
        "--optimizer", "adam", "--learning-rate", "0.05", "--epsilon", "4", "--sampling-rate", "0.2", "--rounds",
        "30", "-o", model.toString(), "--json")));
    assertEquals("dp-fl", j.get("algorithm").asText());
    assertEquals("mlp", j.get("learner").asText());
    assertEquals(30, j.get("rounds").asInt());
    assertTrue(j.get("epsilon").asDouble() <= 4, j.toString());
    JsonNode file = JSON.readTree(Files.readString(model));
    assertEquals("mlp", file.get("provenance").get("algorithm_config").get("learner").get("kind").asText(),
        file.toString());
    assertInvalid(Cli.run(irisDpFl("--algorithm", "dp-fl", "--hidden", "8")),
        "--hidden applies to the mlp learner only");
    assertInvalid(Cli.run(irisDpFl("--algorithm", "dp-fl", "--learner", "mlp", "--optimizer", "rmsprop")),
        "--optimizer must be sgd or adam");
  }

  @Test
  void trainPrintsTheContractedJsonKeys() throws IOException {
    JsonNode j = json(Cli.run(irisTrain("--json", "--epsilon", "2")));
    for (String key : new String[] {"test_accuracy", "epsilon", "delta", "noise_multiplier", "parties", "per_party",
        "learner", "sensitivity", "protocol", "bytes_per_party", "server_bytes", "secagg_seconds", "reference_accuracy",
        "privacy", "wall_seconds"}) {
      assertTrue(j.has(key), "missing key " + key + " in " + j);
    }
    assertEquals(4, j.get("parties").asInt());
    assertEquals("softmax", j.get("learner").asText());
    // Calibrated to the target; the discrete noise's variance is rounded up to an integer number of
    // grid units (556,009 here), which leaves eps a hair below it.
    assertEquals(2.0, j.get("epsilon").asDouble(), 1e-5);
    assertTrue(j.get("epsilon").asDouble() <= 2.0, "never more than asked");
    // epsilon names whom it protects against and for which neighbours (the model file's ledger too)
    assertTrue(j.get("epsilon_against").asText().startsWith("anyone holding the released model"), j.toString());
    assertEquals(j.get("privacy").get("guarantees").get(0).get("against").asText(), j.get("epsilon_against").asText());
    assertEquals(j.get("epsilon_against").asText(), j.get("privacy").get("against").asText());
    assertEquals(j.get("privacy").get("neighbours").asText(), j.get("epsilon_neighbours").asText());
    assertEquals("secagg+", j.get("protocol").asText(), "secure aggregation by default");
    assertFalse(j.get("in_the_clear").asBoolean());
    assertEquals("discrete-gaussian", j.get("noise").asText());
    JsonNode plain = json(Cli.run(irisTrain("--json", "--protocol", "plain")));
    assertTrue(plain.get("in_the_clear").asBoolean());
    // The exact discrete Gaussian whatever the summation; the papers' continuous one on request.
    assertEquals("discrete-gaussian", plain.get("noise").asText());
    JsonNode continuous = json(Cli.run(irisTrain("--json", "--summation", "plain", "--noise", "gaussian")));
    assertEquals("gaussian", continuous.get("noise").asText());
    assertEquals("plain", continuous.get("summation").asText());
  }

  @Test
  void everyProtocolTrainsAndDropoutsAreReported() throws IOException {
    // dca's old name, compute-servers, is still accepted; the run reports the summation as dca.
    for (String p : new String[] {"secagg", "secagg+", "compute-servers", "dca"}) {
      JsonNode j = json(Cli.run("train", "--dataset", iris().toString(), "--skip-rows", "1", "--parties", "20",
          "--epochs", "3", "-q", "--json", "--protocol", p, "--dropout", "0.2", "--epsilon", "3"));
      assertEquals(p.equals("compute-servers") ? "dca" : p, j.get("protocol").asText());
      assertTrue(j.get("contributors").asInt() >= 16, j.toString());
      assertTrue(j.get("dropped").asInt() <= 4, j.toString());
      assertTrue(j.get("epsilon").asDouble() <= 3 + 1e-9, "calibrated for the (1 - F) W who remain");
    }
    assertInvalid(Cli.run(irisTrain("--protocol", "plain", "--dropout", "0.2")), "--dropout needs a secure protocol");
    assertInvalid(Cli.run(irisTrain("--dropout", "0.7")), "dropout must be in [0, 0.5)");
  }

  @Test
  void trainWritesAModelThatPredictReplays() throws IOException {
    Path model = dir.resolve("iris-model.json");
    // eps = 1e6 makes the (fresh, unseeded) noise negligible, so the accuracy below does not depend
    // on the draw: at eps = 50 with 4 parties it fell to 0.5 or below in 6 of 25 runs.
    Cli t = Cli.run(irisTrain("--epsilon", "1e6", "--learner", "logreg", "-o", model.toString()));
    assertEquals(0, t.exit, t.toString());
    assertTrue(t.out.contains("test accuracy"), t.out);
    JsonNode p = json(Cli.run("predict", "--model", model.toString(), "--data", iris().toString(), "--skip-rows", "1",
        "--json"));
    assertEquals(150, p.get("rows").asInt());
    assertTrue(p.get("accuracy").asDouble() > 0.5, p.toString());
    assertEquals(150, p.get("predictions").size());
    Path unlabelled = dir.resolve("x.csv");
    Files.writeString(unlabelled, "5.1,3.5,1.4,0.2\n6.7,3.0,5.2,2.3\n");
    Cli u = Cli.run("predict", "--model", model.toString(), "--data", unlabelled.toString(), "--label-column", "none");
    assertEquals(0, u.exit, u.toString());
    assertEquals(2, u.out.lines().count());
  }

  @Test
  void crossValidationReportsEveryFold() throws IOException {
    JsonNode j = json(Cli.run(irisTrain("--folds", "3", "--repeats", "2", "--json", "--no-reference")));
    assertEquals(6, j.get("fold_accuracies").size());
    assertTrue(j.has("test_accuracy_std"));
  }

  @Test
  void unreadableFilesAreReported() {
    assertInvalid(Cli.run("train", "--dataset", dir.resolve("missing.csv").toString(), "-q"), "no such file");
    assertInvalid(Cli.run("train", "--dataset", dir.toString(), "-q"), "is a directory");
  }

  @Test
  void raggedRowsAreReported() throws IOException {
    Path p = dir.resolve("ragged.csv");
    Files.writeString(p, "1,2,a\n3,4,b\n5,c\n");
    assertInvalid(Cli.run("train", "--dataset", p.toString(), "--parties", "1", "-q"), "ragged.csv line 3");
  }

  @Test
  void nanAndInfinityAreReported() throws IOException {
    Path p = dir.resolve("nan.csv");
    Files.writeString(p, "1,2,a\n3,NaN,b\n");
    assertInvalid(Cli.run("train", "--dataset", p.toString(), "--parties", "1", "-q"), "not a finite number");
    Path q = dir.resolve("inf.svm");
    Files.writeString(q, "1 1:inf\n");
    assertInvalid(Cli.run("train", "--dataset", q.toString(), "--parties", "1", "-q"), "not a finite number");
  }

  @Test
  void wrongDimensionsAreReported() throws IOException {
    Path model = dir.resolve("m.json");
    assertEquals(0, Cli.run(irisTrain("-o", model.toString())).exit);
    Path wide = dir.resolve("wide.csv");
    Files.writeString(wide, "1,2,3,4,5,0\n");
    assertInvalid(Cli.run("predict", "--model", model.toString(), "--data", wide.toString()),
        "rows have 5 features but the model expects 4");
    Path test = dir.resolve("test.csv");
    Files.writeString(test, "1,2,a,b,c\n1,2,0\n"); // --skip-rows 1 applies to the test file too
    assertInvalid(Cli.run(irisTrain("--test", test.toString())), "expected 4");
  }

  @Test
  void unknownLabelsAreReported() throws IOException {
    Path test = dir.resolve("test.csv");
    Files.writeString(test, "2,4,a,b,c\n5.1,3.5,1.4,0.2,0\n5.1,3.5,1.4,0.2,7\n");
    assertInvalid(Cli.run(irisTrain("--test", test.toString())), "unknown label '7'");
    Path model = dir.resolve("m.json");
    assertEquals(0, Cli.run(irisTrain("-o", model.toString())).exit);
    assertInvalid(Cli.run("predict", "--model", model.toString(), "--data", test.toString(), "--skip-rows", "1"),
        "unknown label '7'");
  }

  @Test
  void outOfRangeParametersAreReported() {
    assertInvalid(Cli.run(irisTrain("--epsilon", "0")), "epsilon must be > 0");
    assertInvalid(Cli.run(irisTrain("--epsilon", "-1")), "epsilon must be > 0");
    assertInvalid(Cli.run(irisTrain("--honest-fraction", "0")), "honest fraction must be in (0, 1]");
    assertInvalid(Cli.run(irisTrain("--honest-fraction", "1.5")), "honest fraction must be in (0, 1]");
    assertInvalid(Cli.run(irisTrain("--delta", "0")), "delta must be in (0, 1)");
    assertInvalid(Cli.run(irisTrain("--lambda", "0")), "--lambda must be in [1.0E-12");
    assertInvalid(Cli.run(irisTrain("--learner", "forest")), "learner must be one of softmax, svm, logreg");
    assertInvalid(Cli.run(irisTrain("--batch-size", "0")), "--batch-size must be in [1, 1000000]");
    assertInvalid(Cli.run(irisTrain("--protocol", "carrier-pigeon")), "summation must be");
    assertInvalid(Cli.run(irisTrain("--summation", "carrier-pigeon")), "summation must be");
    assertInvalid(Cli.run(irisTrain("--noise", "uniform")), "noise");
    assertInvalid(Cli.run(irisTrain("--partition", "random")), "partition must be one of");
    assertInvalid(Cli.run("train", "--dataset", iris().toString(), "--skip-rows", "1", "--parties", "1000", "-q"),
        "1000 parties need at least one row each");
    assertInvalid(Cli.run(irisTrain("--epsilon", "lots")), "lots");
  }

  @Test
  void malformedModelFilesAreReported() throws IOException {
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, "{\"format\": \"helmet-model\"}");
    assertInvalid(Cli.run("predict", "--model", bad.toString(), "--data", iris().toString()), "missing field 'version'");
  }

  @Test
  void dataFetchNamesUnknownDataSets() {
    assertInvalid(Cli.run("data", "fetch", "cifar10"), "data set must be one of [mnist, fashion-mnist, breast-cancer,");
  }

  @Test
  void dataListShowsEveryBuiltinSetWithTaskShapeClassesAndLicence() {
    Cli c = Cli.run("data", "list");
    assertEquals(0, c.exit, c.toString());
    assertTrue(c.out.lines().anyMatch(l -> l.startsWith("breast-cancer") && l.contains("classification")
        && l.contains("683 x 9") && l.contains("benign/malignant") && l.contains("GPL-2")), c.out);
    assertTrue(c.out.lines().anyMatch(l -> l.startsWith("boston-housing") && l.contains("regression")), c.out);
    assertTrue(c.out.contains("16 rows with a missing Bare.nuclei dropped"), c.out);
    Cli j = Cli.run("data", "list", "--json");
    assertEquals(0, j.exit, j.toString());
    assertTrue(j.out.contains("\"id\" : \"credit-g\"") && j.out.contains("\"features\" : 63"), j.out);
  }

  @Test
  void helpAndVersionSucceed() {
    Cli help = Cli.run("train", "--help");
    assertEquals(0, help.exit);
    assertTrue(help.out.contains("--honest-fraction"));
    assertTrue(help.out.contains("Default: 0.5"));
    assertEquals(0, Cli.run("--version").exit);
  }

  /**
   * Every command's help renders as written: a bare "%" in a description makes picocli warn on
   * stderr and print the raw text (it formats descriptions; "80 % (" once did this to the demo's).
   */
  @Test
  void everyCommandsHelpRendersWithoutFormatWarnings() {
    java.io.PrintStream old = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    java.util.List<String> commands = new java.util.ArrayList<>();
    try {
      java.util.ArrayDeque<picocli.CommandLine> todo = new java.util.ArrayDeque<>(java.util.List.of(Main.newCommandLine()));
      while (!todo.isEmpty()) {
        picocli.CommandLine c = todo.pop();
        commands.add(c.getCommandSpec().qualifiedName());
        c.getUsageMessage();
        todo.addAll(c.getSubcommands().values());
      }
    } finally {
      System.setErr(old);
    }
    String err = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(commands.size() > 10, "commands rendered: " + commands);
    assertFalse(err.contains("picocli WARN"), err);
  }

  /**
   * What no data can change is refused before any party trains: contributors that guarantee no
   * honest party (with both fixes), a dropout that leaves fewer than the minimum contributors (with
   * the valid range), secure aggregation that no parameters make safe for the colluders and
   * dropouts asked for, and secure aggregation of one party (with the fix).
   */
  @Test
  void plansThatCannotWorkAreRefusedBeforeTraining() {
    Cli honest = Cli.run("train", "--dataset", "breast-cancer", "--parties", "4", "--min-contributors", "2",
        "--honest-fraction", "0.5");
    assertEquals(Main.INVALID_INPUT, honest.exit, honest.toString());
    assertTrue(honest.errorLine().contains("raise min_contributors to at least 3"), honest.err);
    assertFalse(honest.err.contains("preparing"), "it trained first: " + honest.err);
    Cli dropout = Cli.run("train", "--dataset", "breast-cancer", "--parties", "10", "--dropout", "0.3",
        "--min-contributors", "9");
    assertEquals(Main.INVALID_INPUT, dropout.exit, dropout.toString());
    assertTrue(dropout.errorLine().contains("leaving 7, fewer than --min-contributors 9")
        && dropout.errorLine().contains("--dropout at most 0.1"), dropout.err);
    assertFalse(dropout.err.contains("preparing"), "it trained first: " + dropout.err);
    // Secure aggregation that cannot be sized (20 % of 10 parties may drop while half may collude).
    Cli sizing = Cli.run("train", "--dataset", "breast-cancer", "--parties", "10", "--dropout", "0.2",
        "--min-contributors", "8");
    assertEquals(Main.INVALID_INPUT, sizing.exit, sizing.toString());
    assertTrue(sizing.errorLine().contains("cannot tolerate 20 % dropouts") && sizing.errorLine().contains(
        "--honest-fraction"), sizing.err);
    assertFalse(sizing.err.contains("preparing"), "it trained first: " + sizing.err);
    Cli one = Cli.run("train", "--dataset", "breast-cancer", "--parties", "1");
    assertEquals(Main.INVALID_INPUT, one.exit, one.toString());
    assertTrue(one.errorLine().contains("--summation plain"), one.err);
    assertFalse(one.err.contains("preparing"), "it trained first: " + one.err);
  }

  /**
   * --engine: a summation other than plain is refused before any work (the engines other than local
   * sum in the clear), and without module helmet-spark on the class path (as in this module's
   * tests; the launcher adds it) the error says where the engine is.
   */
  @Test
  void anEngineIsCheckedBeforeAnyWork() {
    Cli secure = Cli.run("train", "--dataset", "breast-cancer", "--parties", "10", "--engine", "spark", "--summation",
        "secagg+");
    assertEquals(Main.INVALID_INPUT, secure.exit, secure.toString());
    assertTrue(secure.errorLine().contains("--engine spark sums the parties' inputs in the clear"), secure.err);
    assertFalse(secure.err.contains("loading"), secure.err);
    Cli missing = Cli.run("train", "--dataset", "breast-cancer", "--parties", "10", "--engine", "spark");
    assertEquals(Main.INVALID_INPUT, missing.exit, missing.toString());
    assertTrue(missing.errorLine().contains("no engine 'spark' on the class path")
        && missing.errorLine().contains("helmet-spark"), missing.err);
    assertFalse(missing.err.contains("loading"), missing.err);
    Cli stray = Cli.run("train", "--dataset", "breast-cancer", "--parties", "10", "--engine-conf",
        "spark.executor.memory=2g");
    assertEquals(Main.INVALID_INPUT, stray.exit, stray.toString());
    assertTrue(stray.errorLine().contains("--engine-conf goes with --engine spark"), stray.err);
    assertFalse(stray.err.contains("loading"), stray.err);
    Cli strayGrid = Cli.run("experiment", "run", "--preset", "fig6", "--quick", "--master", "local[2]", "--out",
        System.getProperty("java.io.tmpdir") + "/helmet-stray-master");
    assertEquals(Main.INVALID_INPUT, strayGrid.exit, strayGrid.toString());
    assertTrue(strayGrid.errorLine().contains("--master goes with --engine spark"), strayGrid.err);
  }

  /**
   * predict takes what train takes (a built-in data set's name: its public test split), and a file
   * whose last column is not a label gets pointed to --label-column none.
   */
  @Test
  void predictTakesBuiltinNamesAndHintsAtUnlabelledFiles(@TempDir Path dir) throws IOException {
    Path model = dir.resolve("bc.json");
    Cli train = Cli.run("train", "--dataset", "breast-cancer", "--parties", "10", "-o", model.toString());
    assertEquals(0, train.exit, train.toString());
    Cli builtin = Cli.run("predict", "--model", model.toString(), "--data", "breast-cancer");
    assertEquals(0, builtin.exit, builtin.toString());
    assertTrue(builtin.err.contains("predicted 137 rows; accuracy"), builtin.err);
    Path unlabelled = dir.resolve("u.csv");
    Files.writeString(unlabelled, "1,2,3,4,5,6,7,8,9\n2,3,4,5,6,7,8,9,1\n");
    Cli hint = Cli.run("predict", "--model", model.toString(), "--data", unlabelled.toString());
    assertEquals(Main.INVALID_INPUT, hint.exit, hint.toString());
    assertTrue(hint.errorLine().contains("pass --label-column none"), hint.err);
    Cli none = Cli.run("predict", "--model", model.toString(), "--data", unlabelled.toString(), "--label-column",
        "none");
    assertEquals(0, none.exit, none.toString());
  }

  /** A participant's own ledger: shown, and a stale reservation settled by the operator with a reason. */
  @Test
  void ledgerShowsAndSettlesAParticipantsOwnLedger(@TempDir Path dir) throws IOException {
    Path ledger = dir.resolve("ledger.json");
    Files.writeString(ledger, "[{\"session\": \"aa\", \"epsilon\": 0.5, \"delta\": 1e-5, \"status\": \"reserved\", "
        + "\"rounds\": 0, \"updated\": \"2026-11-26T00:00:00Z\"}]");
    Cli show = Cli.run("ledger", "show", "--ledger", ledger.toString());
    assertEquals(0, show.exit, show.toString());
    assertTrue(show.out.contains("left eps = 0.5") && show.out.contains("helmet ledger settle"), show.out);
    Cli noReason = Cli.run("ledger", "settle", "--ledger", ledger.toString(), "--session", "aa");
    assertEquals(Main.INVALID_INPUT, noReason.exit, noReason.toString());
    Cli settle = Cli.run("ledger", "settle", "--ledger", ledger.toString(), "--session", "aa", "--reason",
        "coordinator crashed", "--json");
    assertEquals(0, settle.exit, settle.toString());
    assertEquals("refunded", JSON.readTree(settle.out).get("status").asText());
    Cli after = Cli.run("ledger", "show", "--ledger", ledger.toString(), "--json");
    assertEquals(1.0, JSON.readTree(after.out).get("left_epsilon").asDouble(), 1e-12);
    Cli missing = Cli.run("ledger", "settle", "--ledger", ledger.toString(), "--session", "zz", "--reason", "x");
    assertEquals(Main.INVALID_INPUT, missing.exit, missing.toString());
    assertTrue(missing.errorLine().contains("no open entry"), missing.err);
  }
}
