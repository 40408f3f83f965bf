package dev.helmet.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.ImageShape;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import java.awt.image.BufferedImage;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExperimentTest {
  /** The 8x8 digits split 70/30 stand in for MNIST, so the tests need no download. */
  private static final BuiltinDataset.TrainTest DIGITS = GridFixtures.DIGITS;

  private static final String SMALL = String.join("\n",
      "name: small",
      "dataset: mnist",
      "parties: [5, 20]",
      "per_party: 30",
      "epsilons: [0.5, 5]",
      "repeats: 2",
      "variants:",
      "  - {name: helmet-softmax, algorithm: helmet, settings: {learner: {kind: softmax, lambda: [0.5, 1], epochs: 5}}}",
      "  - {name: helmet-svm, algorithm: helmet, settings: {learner: {kind: svm, epochs: [5]}}}",
      "  - name: dp-fl",
      "    algorithm: dp-fl",
      "    summation: simulated",
      "    settings: {dpfl: {learning_rate: 2, grad_clip: 1, epochs: 2, sampling_rate: 'min(1, 30 / records)'}}",
      "");

  private static ExperimentConfig parse(String yaml) throws Exception {
    JsonNode j = new ObjectMapper(new YAMLFactory()).readTree(yaml);
    return ExperimentConfig.parse(j, "test.yaml");
  }

  private static ExperimentRunner.Settings settings(Path out) {
    return new ExperimentRunner.Settings(out, out, 2, Progress.NONE, id -> DIGITS);
  }

  @Test
  void configurationErrorsNameTheKey() {
    String[][] cases = {
        {SMALL + "parites: 3\n", "unknown key parites"},
        {SMALL.replace("per_party: 30", "per_party: -1"), "per_party must be in [1, 1000000]. Provided value: -1"},
        {SMALL.replace("epsilons: [0.5, 5]", "epsilons: [0.5, big]"), "epsilons must be a number. Provided value: big"},
        {SMALL.replace("kind: svm", "kind: tree"), "variant helmet-svm: learner.kind"},
        {SMALL.replace("kind: svm, epochs: [5]", "kind: svm, epoch: [5]"), "unknown key learner.epoch"},
        {SMALL.replace("algorithm: dp-fl", "algorithm: dpfl"), "variants[2].algorithm names an unknown algorithm 'dpfl'"},
        {SMALL.replace("summation: simulated", "summation: secagg"), "variants[2].summation must be plain or"},
        {SMALL.replace("settings: {dpfl:", "settings: {noise: gaussian, dpfl:"), "unknown key variants[2].settings.noise"},
        {SMALL.replace("'min(1, 30 / records)'", "'min(1, 30 / recs)'"), "dpfl.sampling_rate must be a number"},
        {SMALL.replace("'min(1, 30 / records)'", "'min(1, 30 / records'"), "the expression 'min(1,30/records' needs ')'"},
        {SMALL.replace("dataset: mnist", "dataset: cifar"), "dataset must name a built-in data set"},
        {SMALL.replace("parties: [5, 20]", "parties: []"), "parties must list at least one value"},
        {SMALL + "partitions: [iid, skewed]\n", "partitions must list iid, one-class, dirichlet or uneven-uR"},
        {SMALL + "partitions: [uneven-u0.5]\n", "partitions must list iid, one-class, dirichlet or uneven-uR"},
        {SMALL + "partitions: [uneven-ux]\n", "Provided value: uneven-ux"},
        {SMALL + "validation_from: elsewhere\n", "validation_from must be train or test"},
        {"name: x\ndataset: mnist\nparties: [5]\nepsilons: [1]\n", "variants is required"},
        {SMALL.replace("'min(1, 30 / records)'", "'600 / records'"), "variant dp-fl: dpfl.sampling_rate must be in"},
        {SMALL + "features: sift\n", "features must be one of raw, scatter, hog. Provided value: sift"},
        {SMALL + "features: [hog]\n", "features must be a non-empty text"},
        {SMALL + "features: hog\nimage_shape: 8\n", "image_shape must be HEIGHTxWIDTH"},
        {SMALL + "features: hog\nimage_shape: 0x8\n", "image_shape must be HEIGHTxWIDTH with positive sides"},
    };
    for (String[] c : cases) {
      var e = assertThrows(ExperimentConfig.ConfigException.class, () -> parse(c[0]), c[1]);
      assertTrue(e.getMessage().startsWith("test.yaml: "), e.getMessage());
      assertTrue(e.getMessage().contains(c[1]), c[1] + " not in: " + e.getMessage());
    }
  }

  /**
   * Experiment files written before variants keep working: each algorithm reads its old section
   * (helmet: one variant per learner; dpfl: one per noise split, q = 0 meaning 1024 / N).
   */
  @Test
  void oldExperimentFilesStillRead() throws Exception {
    ExperimentConfig old = parse(String.join("\n",
        "dataset: mnist",
        "parties: [5, 20]",
        "per_party: 30",
        "epsilons: [0.5, 5]",
        "repeats: 2",
        "helmet:",
        "  learners: [softmax, svm]",
        "  grid:",
        "    softmax: {lambda: [0.5, 1], epochs: [5]}",
        "    svm: {epochs: [5]}",
        "dpfl:",
        "  noise_split: [honest, sqrt-w-penalty]",
        "  grid: {learning_rate: [2], clip: [1], epochs: [2], sampling_rate: [0, 0.2]}",
        ""));
    assertEquals(List.of("helmet-softmax", "helmet-svm", "dp-fl", "dp-fl-sqrt-w-penalty"),
        old.variants().stream().map(ExperimentConfig.Variant::name).toList());
    assertEquals(List.of(2, 1, 2, 2), old.variants().stream().map(v -> v.points().size()).toList());
    // 2 party counts x 2 repeats x 7 points
    assertEquals(28, ExperimentRunner.cells(old).size());
    var e = assertThrows(ExperimentConfig.ConfigException.class, () -> parse(String.join("\n",
        "dataset: mnist", "parties: [5]", "epsilons: [1]", "helmet: {learners: [tree]}", "")));
    assertTrue(e.getMessage().contains("helmet.learners"), e.getMessage());
  }

  /**
   * {@code features} defaults to raw and is recorded in the canonical JSON either way (so a change
   * of feature set is a different experiment); {@code image_shape} only when given. A preset on
   * another feature set says so in its name.
   */
  @Test
  void featureKeysParseAndAreRecorded() throws Exception {
    ExperimentConfig raw = parse(SMALL);
    assertEquals("raw", raw.features());
    assertEquals(null, raw.imageShape());
    assertEquals("raw", raw.toJson().get("features").asText());
    assertFalse(raw.toJson().has("image_shape"));
    assertEquals(raw.toJson(), parse(SMALL + "features: raw\n").toJson(), "features: raw is the default");
    ExperimentConfig hog = parse(SMALL + "features: HOG\nimage_shape: 8x8\n");
    assertEquals("hog", hog.features());
    assertEquals(new ImageShape(8, 8), hog.imageShape());
    assertEquals("hog", hog.toJson().get("features").asText());
    assertEquals("8x8", hog.toJson().get("image_shape").asText());
    assertEquals("scatter", parse(SMALL + "features: scatter\n").features(), "the data may carry its shape");

    assertEquals("fig5-mnist-quick", Presets.get("fig5", "mnist", true).name());
    assertEquals(Presets.get("fig5", "mnist", true).toJson(), Presets.get("fig5", "mnist", true, "raw").toJson());
    ExperimentConfig scatter = Presets.get("fig5", "mnist", false, "scatter");
    assertEquals("fig5-mnist-scatter", scatter.name());
    assertEquals("scatter", scatter.features());
    assertEquals("fig6-fashion-mnist-hog-quick", Presets.get("fig6", "fashion-mnist", true, "hog").name());
    var e = assertThrows(ExperimentConfig.ConfigException.class, () -> Presets.get("fig5", "mnist", true, "sift"));
    assertTrue(e.getMessage().contains("features must be one of raw, scatter, hog"), e.getMessage());
  }

  /**
   * A folder written before the feature stage (config.json without {@code features}, rows without
   * a {@code features} field) is still this experiment for a file that does not set features, or
   * sets raw: its cells are kept and read as raw. A hog run is refused there before any feature is
   * computed.
   */
  /**
   * smm's paper subsampling bound is unproven for SMM (privacy review turn 3, finding 5): a grid row
   * accounted with it says so beside its relation (the `neighbours` column of results.csv) and so in
   * the report's sentence on relations; the general bound's row does not.
   */
  @Test
  void aGridRowAccountedWithThePapersSubsamplingBoundIsLabelledUnproven(@TempDir Path out) throws Exception {
    String smm = "{learner: {kind: mlp, hidden: [4]}, smm: {sampling_rate: 0.1, expected_batch: 6, rounds: 2, bits: 12, "
        + "subsampling: %s}}";
    String yaml = String.join("\n",
        "dataset: mnist",
        "parties: [2]",
        "per_party: 30",
        "epsilons: [3]",
        "variants:",
        "  - {name: paper, algorithm: smm, summation: simulated, settings: " + String.format(smm, "paper") + "}",
        "  - {name: general, algorithm: smm, summation: simulated, settings: " + String.format(smm, "general") + "}",
        "");
    ExperimentRunner.Summary s = ExperimentRunner.run(parse(yaml), settings(out));
    Map<String, String> relation = new HashMap<>();
    s.rows().forEach(r -> relation.put(r.variant(), r.neighbours()));
    assertTrue(relation.get("paper").contains("UNPROVEN"), relation.toString());
    assertFalse(relation.get("general").contains("UNPROVEN"), relation.toString());
    assertTrue(Report.relations(s.rows()).contains("UNPROVEN"), Report.relations(s.rows()));
  }

  @Test
  void aFolderFromBeforeFeatureStagesStillResumes(@TempDir Path out) throws Exception {
    String yaml = String.join("\n",
        "dataset: mnist",
        "parties: [5]",
        "per_party: 30",
        "epsilons: [1000]",
        "variants: [{name: helmet-softmax, algorithm: helmet, settings: {learner: {epochs: 5}}}]",
        "");
    ExperimentConfig c = parse(yaml);
    ExperimentRunner.Summary first = ExperimentRunner.run(c, settings(out));
    assertEquals(1, first.ran());
    // Make the folder what the previous version wrote: no features anywhere.
    ObjectMapper json = new ObjectMapper();
    Path config = out.resolve(ExperimentFolder.CONFIG);
    ObjectNode recorded = (ObjectNode) json.readTree(config.toFile());
    assertEquals("raw", recorded.remove("features").asText());
    Files.writeString(config, json.writerWithDefaultPrettyPrinter().writeValueAsString(recorded));
    Path cells = out.resolve(ExperimentFolder.CELLS);
    List<String> old = new ArrayList<>();
    for (String line : Files.readAllLines(cells)) {
      ObjectNode l = (ObjectNode) json.readTree(line);
      l.get("rows").forEach(r -> assertEquals("raw", ((ObjectNode) r).remove("features").asText()));
      old.add(json.writeValueAsString(l));
    }
    Files.write(cells, old);

    for (String same : List.of(yaml, yaml + "features: raw\n")) {
      ExperimentRunner.Summary again = ExperimentRunner.run(parse(same), settings(out));
      assertEquals(0, again.ran(), same);
      assertEquals(first.rows(), again.rows());
      assertTrue(again.rows().stream().allMatch(r -> r.features().equals("raw")));
    }
    assertFalse(json.readTree(config.toFile()).has("features"), "an accepted folder's record is left as it was");
    // Another feature set is another experiment, refused before any feature is computed (had it got
    // that far, the stand-in digits without image_shape would have been the error).
    var e = assertThrows(IllegalArgumentException.class, () -> ExperimentRunner.run(parse(yaml + "features: hog\n"),
        settings(out)));
    assertTrue(e.getMessage().contains("holds the results of a different experiment"), e.getMessage());
  }

  /**
   * An experiment on HOG features of the raw 8x8 digits in a CSV file: the features are computed
   * once into the cache, every row and results.csv say hog, and so do config.json and the report.
   * Without image_shape the error names the key and leaves no config.json behind.
   */
  @Test
  void runsOnHogFeaturesOfADataFile(@TempDir Path dir) throws Exception {
    Path yaml = dir.resolve("digits.yaml");
    String text = String.join("\n",
        "name: digits-hog",
        "dataset: " + TestData.path("digits.csv.gz"),
        "features: hog",
        "image_shape: 8x8",
        "parties: [4]",
        "per_party: 100",
        "epsilons: [1000]",
        "variants: [{name: helmet-softmax, algorithm: helmet, settings: {learner: {epochs: 10}}}]",
        "");
    Files.writeString(yaml, text);
    Path out = dir.resolve("o");
    Path cache = dir.resolve("cache");
    ExperimentConfig c = ExperimentConfig.read(yaml);
    ExperimentRunner.Summary s = ExperimentRunner.run(c, new ExperimentRunner.Settings(out, cache, 2,
        Progress.NONE));
    assertEquals(1, s.ran());
    Row r = s.rows().get(0);
    assertEquals("hog", r.features());
    assertTrue(r.testAcc() > 0.5, "hog features of digits at eps 1000: " + r.testAcc());
    Report.Outputs o = Report.write(c, s.rows(), out, "test", s.seconds());
    try (Reader rd = Files.newBufferedReader(o.csv(), StandardCharsets.UTF_8);
        CSVParser p = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).build().parse(rd)) {
      // features comes right after neighbours; the regression and objective columns follow it
      assertEquals(p.getHeaderNames().indexOf("neighbours") + 1, p.getHeaderNames().indexOf("features"));
      assertTrue(p.getRecords().stream().allMatch(rec -> rec.get("features").equals("hog")));
    }
    assertEquals("hog", new ObjectMapper().readTree(out.resolve(ExperimentFolder.CONFIG).toFile()).get("features")
        .asText());
    assertTrue(Files.readString(o.report()).contains("(hog features, images 8x8)"), Files.readString(o.report()));
    try (var files = Files.list(cache.resolve("features"))) {
      assertEquals(2, files.filter(f -> f.getFileName().toString().startsWith("hog-")).count(),
          "the training and the test features are cached");
    }

    Files.writeString(yaml, text.replace("image_shape: 8x8\n", ""));
    Path fresh = dir.resolve("fresh");
    var e = assertThrows(ExperimentConfig.ConfigException.class, () -> ExperimentRunner.run(ExperimentConfig.read(yaml),
        new ExperimentRunner.Settings(fresh, cache, 2, Progress.NONE)));
    assertTrue(e.getMessage().contains("features: hog needs images of a known shape")
        && e.getMessage().contains("image_shape: HxW"), e.getMessage());
    assertFalse(Files.exists(fresh.resolve(ExperimentFolder.CONFIG)), "nothing recorded for a run that did not start");
    Files.writeString(yaml, text.replace("image_shape: 8x8", "image_shape: 28x28"));
    e = assertThrows(ExperimentConfig.ConfigException.class, () -> ExperimentRunner.run(ExperimentConfig.read(yaml),
        new ExperimentRunner.Settings(fresh, cache, 2, Progress.NONE)));
    assertTrue(e.getMessage().startsWith("image_shape: ") && e.getMessage().contains("28x28"), e.getMessage());
  }

  @Test
  void everyPresetParses() {
    for (String p : Presets.NAMES) {
      if (p.equals("wd-dp-pl")) {
        continue; // a regression preset: checked below on regression sets
      }
      for (String d : List.of("mnist", "fashion-mnist")) {
        for (boolean quick : new boolean[] {true, false}) {
          ExperimentConfig c = Presets.get(p, d, quick);
          assertEquals(d, c.dataset());
          assertTrue(ExperimentRunner.cells(c).size() > 0);
        }
      }
    }
    for (String d : List.of("boston-housing", "diabetes")) {
      ExperimentConfig c = Presets.get("wd-dp-pl", d, false);
      assertEquals(d, c.dataset());
      assertTrue(ExperimentRunner.cells(c).size() > 0);
    }
    var pl = assertThrows(IllegalArgumentException.class, () -> Presets.get("wd-dp-pl", "mnist", true));
    assertTrue(pl.getMessage().contains("classification set"), pl.getMessage());
    var e = assertThrows(IllegalArgumentException.class, () -> Presets.get("fig7", "mnist", true));
    assertTrue(e.getMessage().contains("fig5, fig6, table2"), e.getMessage());
    assertTrue(e.getMessage().contains("crosssilo-eps") && e.getMessage().contains("crosssilo-sampling"),
        e.getMessage());
    var sampling = assertThrows(IllegalArgumentException.class, () -> Presets.get("crosssilo-sampling", "mnist", true));
    assertTrue(sampling.getMessage().contains("is not an experiment grid"), sampling.getMessage());
  }

  /**
   * crosssilo-eps is Heikkila et al.'s Fig. 2 setting (design note 2.6): 32 silos holding MNIST's
   * 60,000 training images, eps 1.07 / 2.5 / 13.8, five repeats, q = 400/60,000 for 1,500 steps
   * (local: the authors' q_i = 0.049), the MLP with hidden [256], and the four noise splits.
   */
  @Test
  void crossSiloEpsPresetIsThePapersSetting() {
    ExperimentConfig c = Presets.get("crosssilo-eps", "fashion-mnist", false);
    assertEquals("crosssilo-eps-fashion-mnist", c.name());
    assertEquals(List.of(32), c.parties());
    assertEquals(60_000, 32 * c.perParty());
    assertEquals(List.of(1.07, 2.5, 13.8), c.epsilons());
    assertEquals(5, c.repeats());
    Map<String, JsonNode> settings = new HashMap<>();
    for (ExperimentConfig.Variant v : c.variants()) {
      assertEquals("cross-silo", v.algorithm().id());
      assertEquals("simulated", v.summation());
      settings.put(v.name(), v.points().get(0));
    }
    assertEquals(List.of("colluders-t0", "colluders-t3", "colluders-t3-swor", "trusted-hardware", "local"),
        c.variants().stream().map(ExperimentConfig.Variant::name).toList());
    assertEquals(3, settings.get("colluders-t3").at("/crosssilo/colluders").asInt());
    assertEquals("local", settings.get("local").at("/crosssilo/noise_split").asText());
    assertEquals(0.049, settings.get("local").at("/crosssilo/sampling_rate").asDouble());
    for (JsonNode n : settings.values()) {
      assertEquals(256, n.at("/learner/hidden").asInt());
      assertEquals(1500, n.at("/crosssilo/rounds").asInt());
      assertEquals(9e-4, n.at("/crosssilo/learning_rate").asDouble());
      assertEquals(2.5, n.at("/crosssilo/grad_clip").asDouble());
      assertEquals("replace-one", n.at("/crosssilo/neighbours").asText());
    }
    assertEquals(400.0 / 60_000, settings.get("trusted-hardware").at("/crosssilo/sampling_rate").asDouble());
    JsonNode swor = settings.get("colluders-t3-swor").at("/crosssilo");
    assertEquals("swor", swor.get("sampling").asText());
    assertEquals(400, swor.get("batch").asInt());
    assertEquals("exact", swor.get("swor_analysis").asText());
  }

  /**
   * results.csv has the documented columns; every run appears once as "grid"; every (variant,
   * parties, eps, repeat) group has exactly one "test" and one "validation" pick, the test pick
   * has the group's best test accuracy and the validation pick its best validation accuracy; the
   * plots are written as PNG (decodable, 1560 x 920) and SVG, and the report embeds them.
   */
  @Test
  void csvSchemaSelectionAndPlots(@TempDir Path out) throws Exception {
    ExperimentConfig c = parse(SMALL);
    ExperimentRunner.Summary s = ExperimentRunner.run(c, settings(out));
    // 2 party counts x 2 repeats x (2 + 1 Helmet points + 1 DP-FL point)
    assertEquals(16, s.cells());
    assertEquals(16, s.ran());
    Report.Outputs o = Report.write(c, s.rows(), out, "test", s.seconds());
    List<CSVRecord> records;
    try (Reader r = Files.newBufferedReader(o.csv(), StandardCharsets.UTF_8);
        CSVParser p = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).build().parse(r)) {
      assertEquals(Row.COLUMNS, p.getHeaderNames());
      records = p.getRecords();
    }
    List<CSVRecord> grid = records.stream().filter(r -> r.get("selection").equals("grid")).toList();
    assertEquals(16 * 2, grid.size()); // every cell has one row per eps
    Map<String, List<CSVRecord>> groups = new HashMap<>();
    for (CSVRecord r : grid) {
      double acc = Double.parseDouble(r.get("test_acc"));
      assertTrue(acc >= 0 && acc <= 1, r.toString());
      assertTrue(Double.parseDouble(r.get("dp_eps")) <= Double.parseDouble(r.get("target_eps")), r.toString());
      groups.computeIfAbsent(group(r), k -> new ArrayList<>()).add(r);
    }
    for (String how : List.of("test", "validation")) {
      List<CSVRecord> picked = records.stream().filter(r -> r.get("selection").equals(how)).toList();
      assertEquals(groups.size(), picked.size(), how);
      String column = how.equals("test") ? "test_acc" : "val_acc";
      for (CSVRecord r : picked) {
        double best = groups.get(group(r)).stream().mapToDouble(g -> Double.parseDouble(g.get(column))).max()
            .orElseThrow();
        assertEquals(best, Double.parseDouble(r.get(column)), how + " pick of " + group(r));
        // Choosing among k candidates costs the composition of their k releases: more than one
        // candidate's eps when k > 1, exactly it when k = 1 (release 0.1 did not account selection).
        double selection = Double.parseDouble(r.get("selection_eps"));
        double one = Double.parseDouble(r.get("dp_eps"));
        if (groups.get(group(r)).size() > 1) {
          assertTrue(selection > 1.2 * one, "selecting among " + groups.get(group(r)).size() + ": " + r);
        } else {
          assertEquals(one, selection, 1e-9 * one, r.toString());
        }
      }
    }
    // Every variant is accounted under the same relation, so they compare.
    assertTrue(records.stream().allMatch(r -> r.get("neighbours").equals("replace one record")),
        () -> records.stream().map(r -> r.get("variant") + ": " + r.get("neighbours")).distinct().toList().toString());
    assertTrue(Files.readString(o.report()).contains("eps total"), "the report shows the selection's cost");
    for (String plot : List.of("accuracy-vs-eps-validation", "accuracy-vs-eps-test", "accuracy-vs-parties")) {
      BufferedImage png = ImageIO.read(out.resolve(plot + ".png").toFile());
      assertEquals(1560, png.getWidth());
      assertEquals(920, png.getHeight());
      String svg = Files.readString(out.resolve(plot + ".svg"));
      assertTrue(svg.startsWith("<svg") && svg.contains("helmet-softmax") && svg.contains("dp-fl"), plot);
      assertTrue(Files.readString(o.report()).contains("](" + plot + ".png)"), plot);
    }
  }

  private static String group(CSVRecord r) {
    return r.get("variant") + "|" + r.get("parties") + "|" + r.get("target_eps") + "|" + r.get("seed") + "|"
        + r.get("fold");
  }

  /**
   * A rerun keeps the finished cells (and their rows, unchanged), a cell whose line was cut off by
   * an interruption is run again, and a different experiment in the same folder is refused.
   */
  @Test
  void resumesWhereItStoppedAndRefusesAnotherExperiment(@TempDir Path out) throws Exception {
    ExperimentConfig c = parse(SMALL);
    ExperimentRunner.Summary first = ExperimentRunner.run(c, settings(out));
    ExperimentRunner.Summary again = ExperimentRunner.run(c, settings(out));
    assertEquals(0, again.ran());
    assertEquals(first.cells(), again.skipped());
    assertEquals(first.rows(), again.rows());
    // Interrupted while writing the last cell: its line is cut in half.
    Path cells = out.resolve(ExperimentFolder.CELLS);
    List<String> lines = Files.readAllLines(cells);
    String last = lines.get(lines.size() - 1);
    lines.set(lines.size() - 1, last.substring(0, last.length() / 2));
    Files.writeString(cells, String.join("\n", lines) + "\n");
    ExperimentRunner.Summary resumed = ExperimentRunner.run(c, settings(out));
    assertEquals(1, resumed.ran());
    assertEquals(first.rows().size(), resumed.rows().size());
    // A corrupt line in the middle is an error that names the line, not silently dropped results.
    lines.set(0, "{not json");
    Files.writeString(cells, String.join("\n", lines) + "\n");
    var corrupt = assertThrows(IllegalArgumentException.class, () -> ExperimentRunner.run(c, settings(out)));
    assertTrue(corrupt.getMessage().contains("line 1 is corrupt"), corrupt.getMessage());
    ExperimentConfig other = parse(SMALL.replace("epsilons: [0.5, 5]", "epsilons: [0.5, 3]"));
    var e = assertThrows(IllegalArgumentException.class, () -> ExperimentRunner.run(other, settings(out)));
    assertTrue(e.getMessage().contains("holds the results of a different experiment"), e.getMessage());
  }

  /**
   * Raising {@code repeats} extends a finished experiment: the recorded cells are kept unchanged and
   * only the new repeat runs; fewer repeats, or more repeats with another change, are refused.
   */
  @Test
  void moreRepeatsExtendAnExperiment(@TempDir Path out) throws Exception {
    assertTrue(SMALL.contains("repeats: 2"), "the fixture changed: " + SMALL);
    ExperimentConfig two = parse(SMALL);
    ExperimentRunner.Summary first = ExperimentRunner.run(two, settings(out));
    ExperimentConfig three = parse(SMALL.replace("repeats: 2", "repeats: 3"));
    ExperimentRunner.Summary more = ExperimentRunner.run(three, settings(out));
    assertEquals(first.cells(), more.skipped());
    assertEquals(first.cells() / 2, more.ran());
    assertEquals(first.rows(), more.rows().subList(0, first.rows().size()));
    assertEquals(3, new com.fasterxml.jackson.databind.ObjectMapper().readTree(out.resolve(ExperimentFolder.CONFIG)
        .toFile()).path("repeats").asInt());
    for (String other : List.of(SMALL, SMALL.replace("repeats: 2", "repeats: 4").replace("epsilons: [0.5, 5]",
        "epsilons: [0.5, 3]"))) {
      var e = assertThrows(IllegalArgumentException.class, () -> ExperimentRunner.run(parse(other), settings(out)));
      assertTrue(e.getMessage().contains("holds the results of a different experiment"), e.getMessage());
    }
  }

  /**
   * Adding a variant extends a finished experiment (a grid gains a baseline): the recorded cells are
   * kept and only the new variant's run; a changed or removed variant is refused.
   */
  @Test
  void addedVariantsExtendAnExperiment(@TempDir Path out) throws Exception {
    String svm = "  - {name: helmet-svm, algorithm: helmet, settings: {learner: {kind: svm, epochs: [5]}}}\n";
    assertTrue(SMALL.contains(svm), "the fixture changed: " + SMALL);
    String without = SMALL.replace(svm, "");
    ExperimentRunner.Summary first = ExperimentRunner.run(parse(without), settings(out));
    ExperimentRunner.Summary more = ExperimentRunner.run(parse(SMALL), settings(out));
    assertEquals(first.cells(), more.skipped());
    assertEquals(first.cells() / 3, more.ran(), "the new variant has one point; the two before it, three together");
    assertEquals(first.rows(), more.rows().stream().filter(r -> !r.variant().equals("helmet-svm")).toList());
    assertTrue(Files.readString(out.resolve(ExperimentFolder.CONFIG)).contains("helmet-svm"));
    for (String other : List.of(without, SMALL.replace("epochs: [5]", "epochs: [6]"))) {
      var e = assertThrows(IllegalArgumentException.class, () -> ExperimentRunner.run(parse(other), settings(out)));
      assertTrue(e.getMessage().contains("holds the results of a different experiment"), e.getMessage());
    }
  }

  /** Any data file works as the data set: iris from CSV, its test rows a fixed stratified holdout. */
  @Test
  void runsOnADataFile(@TempDir Path out) throws Exception {
    Path iris = TestData.path("iris.csv");
    Path yaml = out.resolve("iris.yaml");
    Files.writeString(yaml, String.join("\n",
        "dataset: " + iris,
        "data: {skip_rows: 1, test_fraction: 0.3}",
        "parties: [3]",
        "per_party: 20",
        "epsilons: [1000]",
        "validation_fraction: 0.2",
        "variants: [{name: helmet-softmax, algorithm: helmet, settings: {learner: {epochs: 20}}}]",
        ""));
    ExperimentConfig c = ExperimentConfig.read(yaml);
    ExperimentRunner.Summary s = ExperimentRunner.run(c, new ExperimentRunner.Settings(out.resolve("o"), out, 2,
        Progress.NONE));
    assertEquals(1, s.ran());
    Row r = s.rows().get(0);
    // Above chance (1/3), not a fixed accuracy: 3 parties of 20 rows train a borderline softmax whose
    // test accuracy varies from run to run with the fresh noise (40 runs: 0.64 to 0.96, and 0.53 once
    // in CI), so a bound of 0.6 failed now and then.
    assertTrue(r.testAcc() > 0.4, "iris at eps 1000: " + r.testAcc());
    Files.writeString(yaml, Files.readString(yaml).replace(iris.toString(), "no-such.csv"));
    var e = assertThrows(ExperimentConfig.ConfigException.class, () -> ExperimentConfig.read(yaml));
    assertTrue(e.getMessage().contains("dataset must name a built-in data set") && e.getMessage().contains(
        "no-such.csv"), e.getMessage());
  }

  /** Partitions side by side: IID, one class per party and Dirichlet label skew, with the bar chart. */
  @Test
  void comparesPartitions(@TempDir Path out) throws Exception {
    ExperimentConfig c = parse(String.join("\n",
        "dataset: mnist",
        "parties: [10]",
        "per_party: 30",
        "epsilons: [1000]",
        "partitions: [iid, one-class, dirichlet]",
        "dirichlet_alpha: 0.1",
        "variants: [{name: helmet-softmax, algorithm: helmet, settings: {learner: {epochs: 10}}}]",
        ""));
    ExperimentRunner.Summary s = ExperimentRunner.run(c, settings(out));
    assertEquals(3, s.ran());
    assertEquals(List.of("iid", "one-class", "dirichlet"), s.rows().stream().map(Row::partition).toList());
    Report.write(c, s.rows(), out, "test", s.seconds());
    String svg = Files.readString(out.resolve("partitions.svg"));
    assertTrue(svg.contains(">dirichlet<") && svg.contains(">one-class<") && svg.contains(">iid<"), svg);
    assertTrue(ImageIO.read(out.resolve("partitions.png").toFile()).getWidth() > 0);
  }
}
