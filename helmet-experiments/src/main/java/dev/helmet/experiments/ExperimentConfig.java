package dev.helmet.experiments;

import dev.helmet.protocols.shared.CommonDefaults;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.ImageShape;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.config.StrictNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * An experiment: a sweep over party counts, partitions, privacy levels and variants (any registered
 * algorithm with a grid of its settings), repeated over seeds and validation folds.
 * Read from YAML or JSON ({@link #read}) or a built-in preset ({@link Presets}); every key is
 * checked, and an unknown key, a missing required key or an out-of-range value is an error that
 * names the key. docs/experiments.md lists the keys.
 *
 * @param name a label (also the report's title)
 * @param dataset a built-in data set id (mnist, fashion-mnist) or a data file (absolute path)
 * @param data how to read a data file: its test file (or null: a stratified holdout of
 *     {@code testFraction}) and reader options; null for a built-in data set
 * @param parties the party counts W
 * @param perParty records per party
 * @param epsilons the privacy levels; Helmet trains once per grid point and adds noise per eps
 * @param delta delta
 * @param honestFraction t
 * @param partitions iid, one-class (party i holds class i mod K only) or dirichlet
 * @param dirichletAlpha the Dirichlet concentration for "dirichlet"
 * @param repeats independent repetitions (seeds 1..repeats: partition, local shuffles, noise)
 * @param folds validation folds: 1 = a stratified holdout of {@code validationFraction} of the
 *     training data; K > 1 = K-fold (fold k validates, the rest is dealt to the parties)
 * @param validationFraction the holdout's share when {@code folds == 1}
 * @param validationFrom where the validation split comes from: "train" (held out of the training
 *     data, which the parties then do not get) or "test" (the official test set is split: the
 *     validation part chooses hyperparameters, accuracy is reported on the rest; lets the parties
 *     have every training record, e.g. MNIST's 60,000 as 1000 x 60)
 * @param variants what runs: each an algorithm with its settings, some of them grids
 * @param fixedEpsilon the eps of the accuracy-vs-parties and partition plots (the closest in the list)
 * @param features the feature stage applied to the training and test data before anything else:
 *     raw, scatter or hog ({@link dev.helmet.core.features.FeatureStage}); raw when the file does
 *     not say, which is what every experiment before the feature stage ran on
 * @param imageShape the rows' image shape for scatter and hog when the data does not carry one
 *     (CSV, LIBSVM); null: the data's own (IDX files and 3-D .npy arrays carry it)
 */
public record ExperimentConfig(
    String name,
    String dataset,
    DataFile data,
    List<Integer> parties,
    int perParty,
    List<Double> epsilons,
    double delta,
    double honestFraction,
    List<String> partitions,
    double dirichletAlpha,
    int repeats,
    int folds,
    double validationFraction,
    String validationFrom,
    List<Variant> variants,
    double fixedEpsilon,
    String features,
    ImageShape imageShape,
    String sweepLabel,
    Portable portable) {

  /**
   * The tree a configuration was parsed from, as JSON text, with the folder its relative data paths
   * resolve against: what an engine ships to its workers, which parse it again ({@link #parse()}).
   */
  public record Portable(String json, String source, String base) implements java.io.Serializable {
    /** The configuration again. */
    public ExperimentConfig parse() {
      try {
        return ExperimentConfig.parse(new ObjectMapper().readTree(json), source, Path.of(base));
      } catch (JsonProcessingException e) {
        throw new ConfigException(source + ": " + e.getOriginalMessage());
      }
    }
  }

  /** Thrown for a configuration that does not parse or validate; the message names the key. */
  public static final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
      super(message);
    }
  }

  /** A data file: its test file (null: hold out {@code testFraction}) and how to read both. */
  public record DataFile(Path test, double testFraction, String format, String labelColumn, Boolean header,
      int skipRows) {}

  /**
   * One variant: an algorithm, the summation its rows are taken with, and its grid points. Each
   * point is a configuration mapping for the algorithm (as in a session file); a value may be an
   * expression in the cell's number of records ({@link Expression}), evaluated per cell.
   *
   * @param name the label in results.csv, the plots and the report
   * @param summation plain (in the clear) or simulated (the algorithm's aggregate simulation); both
   *     release the same distribution as a secure summation, which sums exactly
   */
  public record Variant(String name, Algorithm algorithm, String summation, List<ObjectNode> points,
      boolean centralized) {
    /** A variant run by the parties as they are. */
    public Variant(String name, Algorithm algorithm, String summation, List<ObjectNode> points) {
      this(name, algorithm, summation, points, false);
    }
  }

  /** Reads a YAML or JSON file. */
  public static ExperimentConfig read(Path path) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(path));
    } catch (JsonProcessingException e) {
      throw new ConfigException(path + ": not valid YAML or JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new ConfigException(path + ": cannot read: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new ConfigException(path + ": expected a mapping of keys to values");
    }
    return parse(root, path.toString(), path.toAbsolutePath().getParent());
  }

  /** Parses a configuration tree whose file paths are relative to the working directory. */
  public static ExperimentConfig parse(JsonNode root, String source) {
    return parse(root, source, Path.of("").toAbsolutePath());
  }

  /**
   * Parses a configuration tree; {@code source} names it in errors, {@code base} resolves relative
   * data paths.
   */
  public static ExperimentConfig parse(JsonNode root, String source, Path base) {
    StrictNode n = new StrictNode(source, root, ConfigException::new);
    List<String> keys = new ArrayList<>(List.of("name", "dataset", "data", "parties", "per_party", "epsilons", "delta",
        "honest_fraction", "partitions", "dirichlet_alpha", "repeats", "folds", "validation_fraction",
        "validation_from", "variants", "plots", "features", "image_shape",
        ExperimentFeatures.SENSITIVITY_BOUNDS));
    keys.addAll(Variants.legacySections());
    n.allow(keys.toArray(String[]::new));
    ExperimentFeatures.checkSensitivityBounds(n);
    String dataset = n.string("dataset", null);
    DataFile data = null;
    StrictNode df = n.child("data");
    df.allow("test", "test_fraction", "format", "label_column", "header", "skip_rows");
    if (BuiltinDataset.byId(dataset) != null) {
      dataset = BuiltinDataset.byId(dataset).id();
      if (n.has("data")) {
        throw n.error("data", "applies to data files, not to the built-in data set " + dataset);
      }
    } else {
      Path file = base.resolve(dataset).normalize();
      if (!Files.isRegularFile(file)) {
        throw n.error("dataset", "must name a built-in data set ("
            + java.util.Arrays.stream(BuiltinDataset.values()).map(BuiltinDataset::id).toList()
            + ") or a readable data file. Provided value: " + dataset + " (no file " + file + ")");
      }
      dataset = file.toString();
      Path test = null;
      if (df.has("test")) {
        test = base.resolve(df.string("test", null)).normalize();
        if (!Files.isRegularFile(test)) {
          throw df.error("test", "must name a readable data file. Provided value: " + test);
        }
      }
      Boolean h;
      try {
        h = dev.helmet.core.data.ReadOptions.header(df.string("header", "auto"));
      } catch (IllegalArgumentException e) {
        throw df.error("header", e.getMessage());
      }
      data = new DataFile(test, df.number("test_fraction", 0.2, 1e-6, 0.9),
          df.has("format") ? df.string("format", null) : null,
          df.has("label_column") ? df.string("label_column", null) : null, h,
          df.integer("skip_rows", 0, 0, 1_000_000));
    }
    List<Integer> parties = n.integers("parties", 1, 1_000_000);
    List<Double> epsilons = n.numbers("epsilons", 1e-6, 1e6);
    List<String> partitions = n.has("partitions") ? lower(n.strings("partitions")) : List.of("iid");
    for (String p : partitions) {
      if (!Set.of("iid", "one-class", "dirichlet").contains(p) && unevenRatio(p) < 1) {
        throw n.error("partitions", "must list iid, one-class, dirichlet or uneven-uR (R >= 1: half the parties hold "
            + "R times as many records as the others). Provided value: " + p);
      }
    }
    List<Variant> variants = Variants.parse(n);
    StrictNode plots = n.child("plots");
    plots.allow("fixed_epsilon", "sweep");
    int folds = n.integer("folds", 1, 1, 20);
    ExperimentConfig c = new ExperimentConfig(
        n.string("name", "experiment"),
        dataset,
        data,
        parties,
        n.integer("per_party", 60, 1, 1_000_000),
        epsilons,
        n.number("delta", 1e-5, 1e-300, 0.5),
        n.number("honest_fraction", CommonDefaults.HONEST_FRACTION, 1e-9, 1),
        List.copyOf(partitions),
        n.number("dirichlet_alpha", 0.5, 1e-6, 1e6),
        n.integer("repeats", 1, 1, 1000),
        folds,
        n.number("validation_fraction", 0.1, 1e-6, 0.9),
        validationFrom(n),
        variants,
        plots.number("fixed_epsilon", epsilons.get(0), 1e-6, 1e6),
        ExperimentFeatures.features(n),
        ExperimentFeatures.imageShape(n),
        plots.has("sweep") ? plots.string("sweep", null) : null,
        new Portable(root.toString(), source, base.toString()));
    if (c.sweepLabel() != null && variants.stream().noneMatch(v -> Report.sweepPoint(v.name()) != null)) {
      throw plots.error("sweep", "names the x axis of variants called SERIES@X (e.g. smm-b8@240); no variant is "
          + "named so");
    }
    dev.helmet.core.data.BuiltinDataset builtin = dataset == null ? null : dev.helmet.core.data.BuiltinDataset.byId(dataset);
    if (builtin != null && builtin.isTabular() && c.features().equals(ExperimentFeatures.RAW)) {
      Variants.check(source, variants, parties, c.perParty(), epsilons.get(0), c.delta(), c.honestFraction(),
          builtin.features(), builtin.numClasses());
    } else {
      Variants.check(source, variants, parties, c.perParty(), epsilons.get(0), c.delta(), c.honestFraction());
    }
    return c;
  }

  private static List<String> lower(List<String> values) {
    return values.stream().map(v -> v.toLowerCase(Locale.ROOT)).toList();
  }

  private static String validationFrom(StrictNode n) {
    String v = n.string("validation_from", "train").toLowerCase(Locale.ROOT);
    if (!v.equals("train") && !v.equals("test")) {
      throw n.error("validation_from", "must be train or test. Provided value: " + v);
    }
    return v;
  }

  /** The configuration as a JSON tree (for the report and for checking that a resumed run matches). */
  public ObjectNode toJson() {
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = m.createObjectNode();
    j.put("name", name);
    j.put("dataset", dataset);
    if (data != null) {
      ObjectNode d = j.putObject("data");
      if (data.test() != null) {
        d.put("test", data.test().toString());
      } else {
        d.put("test_fraction", data.testFraction());
      }
      d.put("format", data.format());
      d.put("label_column", data.labelColumn());
      d.put("header", data.header() == null ? "auto" : data.header() ? "yes" : "no");
      d.put("skip_rows", data.skipRows());
    }
    ExperimentFeatures.toJson(j, features, imageShape);
    j.set("parties", m.valueToTree(parties));
    j.put("per_party", perParty);
    j.set("epsilons", m.valueToTree(epsilons));
    j.put("delta", delta);
    j.put("honest_fraction", honestFraction);
    j.set("partitions", m.valueToTree(partitions));
    j.put("dirichlet_alpha", dirichletAlpha);
    j.put("repeats", repeats);
    j.put("folds", folds);
    j.put("validation_fraction", validationFraction);
    j.put("validation_from", validationFrom);
    j.set("variants", Variants.toJson(variants));
    ObjectNode plots = j.putObject("plots").put("fixed_epsilon", fixedEpsilon);
    if (sweepLabel != null) {
      plots.put("sweep", sweepLabel); // written only when set: old experiment folders compare equal
    }
    return j;
  }

  /** The eps in the list closest to {@link #fixedEpsilon} (on a log scale). */
  public double plotEpsilon() {
    double best = epsilons.get(0);
    for (double e : epsilons) {
      if (Math.abs(Math.log(e / fixedEpsilon)) < Math.abs(Math.log(best / fixedEpsilon))) {
        best = e;
      }
    }
    return best;
  }

  /**
   * The imbalance u of a partition named {@code uneven-uR} (half the parties hold R times as many
   * records as the others, the WD-DP paper's two groups), or -1 for any other name.
   */
  static double unevenRatio(String partition) {
    if (!partition.startsWith("uneven-u")) {
      return -1;
    }
    try {
      double r = Double.parseDouble(partition.substring("uneven-u".length()));
      return Double.isFinite(r) && r >= 1 ? r : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
