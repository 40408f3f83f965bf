package dev.helmet.protocols.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.TabularData;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.partition.PartitionStrategy;
import dev.helmet.core.testdata.TestData;
import dev.helmet.core.util.Progress;
import dev.helmet.core.util.Version;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.PlainSummation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes the model-file fixtures of this release: tiny models of every algorithm, trained in process
 * with seeded (test-only) noise on iris (4 features) or a small synthetic regression set, each
 * written by {@link ModelFile#write} into {@code fixtures/models/VERSION/}, with the predictions it
 * makes for a handful of fixed inputs in that directory's {@code predictions.json}.
 * {@link ModelFixturesTest} reads them in every later release.
 *
 * <p>Run it once per release, from the release's build so the directory is named by the released
 * version (the first set is 0.1.0-SNAPSHOT's, the only version so far), and when an algorithm is
 * added; from the repository's root:
 *
 * <pre>
 * mvn -o -q -pl helmet-protocols -am test -Dtest=ModelFixtures -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dhelmet.fixtures.out=$PWD/helmet-protocols/src/test/resources/fixtures/models
 *     [-Dhelmet.fixtures.dir=0.1.0-SNAPSHOT-format4]
 * </pre>
 *
 * <p>It adds what the version's directory lacks and refuses to replace a fixture already there: a fixture stands for files that releases
 * wrote and users keep, so a format change must keep reading it (add a reader for the old form),
 * never regenerate it. Without the property this class does nothing, and no build runs it (its
 * name is not a test's).
 */
class ModelFixtures {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  /** The training seed of every fixture (its parties' shuffles) and the seed of their test-only noise. */
  private static final long SEED = 11;
  private static final long NOISE = 5;

  /**
   * The eps every fixture is trained at: large, since a fixture needs a model that tells the classes
   * of 120 rows apart (so that a reader misreading the weights predicts otherwise), not privacy.
   */
  private static final double EPSILON = 100;

  /**
   * One fixture: a model of {@code algorithm} with {@code settings} (JSON, as in a session file), on
   * iris, or on the synthetic regression set where {@code regression}.
   */
  record Recipe(String file, String algorithm, String settings, boolean regression) {}

  /** Every fixture of this release, small models that still tell the classes apart. */
  static final List<Recipe> RECIPES = List.of(
      // Raw features and Helmet's learner: written as format version 1.
      new Recipe("helmet.json", "helmet", "{}", false),
      // Public feature bounds: format version 2.
      new Recipe("helmet-feature-bounds.json", "helmet",
          "{\"learner\": {\"feature_bounds\": {\"lower\": 0, \"upper\": 8}}}", false),
      new Recipe("dp-fl.json", "dp-fl", "{\"dpfl\": {\"rounds\": 20, \"sampling_rate\": 0.5}}", false),
      new Recipe("wd-dp.json", "wd-dp", "{\"wddp\": {\"steps\": 50}}", false),
      // Linear regression: public target bounds, predictions in the target's units.
      new Recipe("wd-dp-regression.json", "wd-dp", "{\"learner\": {\"kind\": \"linreg\", \"target_bounds\": "
          + "{\"lower\": 0, \"upper\": 20}, \"feature_bounds\": {\"lower\": -1, \"upper\": 1}}, "
          + "\"wddp\": {\"steps\": 50}}", true),
      // MLPs (format version 3's widths), of 4 x 8 x 3.
      new Recipe("smm.json", "smm", "{\"learner\": {\"hidden\": \"8\", \"feature_bounds\": {\"lower\": 0, \"upper\": 8}}, "
          + "\"smm\": {\"bits\": 16, \"rounds\": 50, \"sampling_rate\": 0.5, \"expected_batch\": 60, "
          + "\"optimizer\": \"sgd\", \"learning_rate\": 1}}", false),
      new Recipe("cross-silo.json", "cross-silo", "{\"learner\": {\"hidden\": \"8\"}, \"crosssilo\": {\"rounds\": 50, "
          + "\"sampling_rate\": 0.5, \"learning_rate\": 0.2}}", false));

  /** The rows of the iris fixtures whose predictions are recorded: some of each class. */
  private static final int[] IRIS_ROWS = {0, 20, 45, 55, 75, 95, 105, 125, 145};
  /**
   * Points spread over iris's range whose predictions are recorded besides its rows: some fall near
   * a decision boundary, where a reader that misplaces even one weight predicts another class.
   */
  private static final int PROBES = 41;

  @Test
  @EnabledIfSystemProperty(named = "helmet.fixtures.out", matches = ".+")
  void writeThisReleasesFixtures() throws IOException {
    write(Path.of(System.getProperty("helmet.fixtures.out")));
  }

  /**
   * Writes the fixtures missing from {@code root/VERSION/} and their predictions.
   *
   * @throws IllegalStateException if an algorithm that is registered has no recipe
   */
  static void write(Path root) throws IOException {
    for (Algorithm a : Algorithms.all()) {
      if (RECIPES.stream().noneMatch(r -> r.algorithm().equals(a.id()))) {
        throw new IllegalStateException(a.id() + " has no fixture recipe: add one to ModelFixtures.RECIPES");
      }
    }
    // The release's version names the directory; -Dhelmet.fixtures.dir names another when the format
    // changes within one release (0.1.0-SNAPSHOT-format4: the first files of format version 4).
    Path dir = Files.createDirectories(root.resolve(System.getProperty("helmet.fixtures.dir", Version.get())));
    Path predictionsFile = dir.resolve(ModelFixturesTest.PREDICTIONS);
    ObjectNode predictions = Files.exists(predictionsFile) ? (ObjectNode) JSON.readTree(predictionsFile.toFile())
        : JSON.createObjectNode().put("written_by", Version.get());
    ObjectNode models = predictions.has("models") ? (ObjectNode) predictions.get("models")
        : predictions.putObject("models");
    // Every missing fixture is trained and checked before any is written, so a recipe that fails
    // leaves no model file without its predictions.
    Map<Path, ReleasedModel> written = new LinkedHashMap<>();
    for (Recipe r : RECIPES) {
      Path file = dir.resolve(r.file());
      if (Files.exists(file) != models.has(r.file())) {
        throw new IllegalStateException(file + " and its predictions must both be there or neither");
      }
      if (Files.exists(file)) {
        System.out.println("kept " + file + " (a fixture is never replaced)");
        continue;
      }
      Dataset data = r.regression() ? regressionRows() : TestData.iris();
      ReleasedModel m = train(r, data);
      Dataset inputs = r.regression() ? regressionRows().subset(new int[] {0, 1, 2, 3, 4, 5}, "inputs")
          : withProbes(data.subset(IRIS_ROWS, "inputs"));
      ObjectNode entry = JSON.createObjectNode();
      ArrayNode rows = entry.putArray("inputs");
      double[] row = new double[inputs.dimension()];
      for (int i = 0; i < inputs.size(); i++) {
        ArrayNode a = rows.addArray();
        inputs.copyRow(i, row, 0);
        for (double v : row) {
          a.add(v);
        }
      }
      if (m.regression()) {
        ArrayNode values = entry.putArray("values");
        for (double v : m.values(inputs)) {
          values.add(v);
        }
      } else {
        ArrayNode labels = entry.putArray("labels");
        int[] predicted = m.predict(inputs);
        for (int k : predicted) {
          labels.add(m.labels().name(k));
        }
        if (m.weights() instanceof dev.helmet.core.learn.LinearModel w) {
          // A linear model's scores too, which move with every weight (a label moves only near a boundary).
          entry.set("scores", scores(m, w, inputs));
        }
        if (java.util.Arrays.stream(predicted).distinct().count() < 2) {
          throw new IllegalStateException(r.file() + " predicts one class for every input: a fixture that would not "
              + "show a reader that misreads the weights; train it longer or at a larger eps");
        }
      }
      models.set(r.file(), entry);
      written.put(file, m);
    }
    for (Map.Entry<Path, ReleasedModel> e : written.entrySet()) {
      ModelFile.write(e.getValue(), e.getKey());
      System.out.println("wrote " + e.getKey());
    }
    if (!written.isEmpty()) {
      JSON.writeValue(predictionsFile.toFile(), predictions);
    }
  }

  /** The recipe's model as {@code helmet train} releases it: plain summation, three parties of 40 rows. */
  private static ReleasedModel train(Recipe r, Dataset data) throws IOException {
    Algorithm a = Algorithms.named(r.algorithm());
    Common common = new Common(EPSILON, 1e-5, 0.5, Protection.record(), 0, data.dimension(),
        data.isRegression() ? 1 : data.numClasses());
    AlgorithmSpec spec = a.configure(new StrictNode(r.file(), JSON.readTree(r.settings()),
        IllegalArgumentException::new), common);
    Partition partition = new PartitionStrategy.Iid(3, 40).split(data, new SplittableRandom(SEED));
    Simulation.Prepared p = Simulation.prepare(spec, data, partition, SEED, 1, Progress.NONE);
    Simulation.Result result = Simulation.run(p, 3, new PlainSummation(), NoiseFactory.seededForTesting(NOISE), 1,
        Progress.NONE);
    Map<String, Object> provenance = new LinkedHashMap<>();
    provenance.put("helmet_version", Version.get());
    provenance.put("created", Instant.now().toString());
    provenance.put("dataset", data.name());
    provenance.put("partition", partition.description(spec.sizesPrivate()));
    provenance.put("parties", partition.count());
    provenance.put("seed", SEED);
    provenance.put("protocol", "plain");
    provenance.put("algorithm", a.id());
    provenance.put("rounds", result.rounds());
    provenance.put("algorithm_config", spec.toConfig());
    provenance.put("features", "raw");
    provenance.put("fixture", "written by ModelFixtures with seeded test-only noise: not a private release");
    return ReleasedModel.of(spec, result.model(), data.labelSet(), data.dimension(), result.ledger(), provenance,
        null);
  }

  /** Every input's class scores {@code w_k . x} (x: the preprocessed row with its intercept). */
  static ArrayNode scores(ReleasedModel m, dev.helmet.core.learn.LinearModel w, Dataset inputs) {
    ArrayNode out = JSON.createArrayNode();
    dev.helmet.core.preprocess.DesignMatrix x = m.design(inputs);
    for (int i = 0; i < x.rows(); i++) {
      ArrayNode row = out.addArray();
      for (int k = 0; k < w.rows(); k++) {
        row.add(x.dot(i, w.weights(), k * w.cols()));
      }
    }
    return out;
  }

  /**
   * {@code rows} and {@link #PROBES} points drawn uniformly (seeded) from the box of iris's
   * features, each coordinate a multiple of 1/8 so that it is written exactly and briefly.
   */
  private static Dataset withProbes(Dataset rows) {
    double[] lo = {4, 2, 1, 0};
    double[] hi = {8, 4.5, 7, 2.5};
    int d = rows.dimension();
    int n = rows.size() + PROBES;
    float[] x = new float[n * d];
    float[] row = new float[d];
    for (int i = 0; i < rows.size(); i++) {
      rows.copyRow(i, row, 0);
      System.arraycopy(row, 0, x, i * d, d);
    }
    SplittableRandom rng = new SplittableRandom(SEED);
    for (int i = rows.size(); i < n; i++) {
      for (int j = 0; j < d; j++) {
        x[i * d + j] = (float) (Math.round(8 * (lo[j] + (hi[j] - lo[j]) * rng.nextDouble())) / 8.0);
      }
    }
    return new Dataset("inputs", x, new int[n], d, rows.labelSet(), null);
  }

  /** 150 rows of 3 features in [-1, 1] with targets 10 + 5 (a - b) plus a little noise, all in [0, 20]. */
  private static Dataset regressionRows() {
    SplittableRandom rng = new SplittableRandom(1);
    int n = 150;
    float[] x = new float[3 * n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < 3; j++) {
        x[3 * i + j] = (float) (2 * rng.nextDouble() - 1);
      }
      y[i] = Math.max(0, Math.min(20, 10 + 5 * (x[3 * i] - x[3 * i + 1]) + 0.3 * rng.nextGaussian()));
    }
    return new Dataset("synthetic regression", x, new int[n], 3, TabularData.NO_CLASSES, null).withTargets(y);
  }

  static JsonNode read(Path file) throws IOException {
    return JSON.readTree(file.toFile());
  }
}
