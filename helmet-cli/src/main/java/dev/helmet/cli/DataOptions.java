package dev.helmet.cli;

import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.DataFormat;
import dev.helmet.core.data.DataReader;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.ReadOptions;
import dev.helmet.core.data.ImageShape;
import dev.helmet.core.eval.StratifiedKFold;
import dev.helmet.core.features.FeatureStage;
import java.nio.file.Path;
import java.util.SplittableRandom;
import picocli.CommandLine.Option;

/** Where the data comes from: a built-in data set or files. */
final class DataOptions {
  @Option(names = "--dataset", paramLabel = "NAME|FILE", defaultValue = "mnist",
      description = "A built-in data set (mnist, fashion-mnist, or a tabular classification set such as "
          + "breast-cancer; see 'helmet data list'; fetched and checksum-verified on first use), or a data file: "
          + "CSV, TSV, LIBSVM, .npy (with --labels), .npz (arrays x, y) or IDX (with --labels). "
          + "Default: ${DEFAULT-VALUE}.")
  String dataset;

  @Option(names = "--labels", paramLabel = "FILE",
      description = "Label file for a .npy or IDX feature file (a .npy integer vector or an IDX label file).")
  Path labels;

  @Option(names = "--classes", paramLabel = "NAMES", split = ",",
      description = "The classes, in order, stated publicly (e.g. --classes benign,malignant). A data file's rows "
          + "must use them. Without it the classes are the labels found in the training data, and the model file "
          + "lists them: name them here when which classes occur is itself private.")
  java.util.List<String> classes;

  @Option(names = "--dimension", paramLabel = "D", defaultValue = "0",
      description = "LIBSVM: the number of features, stated publicly (an index above it is an error). Default: "
          + "the largest index found in the training data, which the model file then records.")
  int dimension;

  @Option(names = "--test", paramLabel = "FILE",
      description = "Test data file, read like --dataset. Default: the built-in test split, or for a file a "
          + "stratified holdout of --test-fraction of it.")
  Path test;

  @Option(names = "--test-labels", paramLabel = "FILE", description = "Label file for a .npy or IDX --test file.")
  Path testLabels;

  @Option(names = "--test-fraction", defaultValue = "0.2",
      description = "Fraction held out as test data when a data file comes without --test. Default: ${DEFAULT-VALUE}.")
  double testFraction;

  @Option(names = "--validation-fraction", paramLabel = "F", defaultValue = "0",
      description = "Hold out a stratified fraction F of the training data and evaluate on it instead of the "
          + "test data, which is then not used (honest hyperparameter selection). Default: ${DEFAULT-VALUE} (off).")
  double validationFraction;

  @Option(names = "--format", paramLabel = "FMT",
      description = "File format: csv, tsv, libsvm, npy, npz, idx. Default: from the file name or content.")
  String format;

  @Option(names = "--label-column", paramLabel = "COL",
      description = "CSV/TSV label column: a header name or a 0-based index (negative from the end). "
          + "Default: the last column.")
  String labelColumn;

  @Option(names = "--header", paramLabel = "auto|yes|no", defaultValue = "auto",
      description = "Whether the CSV/TSV file has a header row. Default: ${DEFAULT-VALUE} (a first row with "
          + "non-numeric features is a header).")
  String header;

  @Option(names = "--skip-rows", paramLabel = "N", defaultValue = "0",
      description = "CSV/TSV lines to skip before the data or header, in --dataset and --test alike (e.g. 1 "
          + "for scikit-learn's bundled CSV files). Default: ${DEFAULT-VALUE}.")
  int skipRows;

  @Option(names = "--party-column", paramLabel = "COL",
      description = "CSV/TSV column with a party id per row, for --partition natural.")
  String partyColumn;

  @Option(names = "--cache-dir", paramLabel = "DIR",
      description = "Where built-in data sets and computed features are kept. Default: $HELMET_CACHE or "
          + "~/.cache/helmet.")
  Path cacheDir;

  @Option(names = "--features", paramLabel = "raw|scatter|hog", defaultValue = "raw",
      description = "Feature stage, applied to every image before row normalisation and clipping: raw (the "
          + "values as they are), scatter (2-D scattering transform, J 2, L 8, Morlet wavelets, with per-image "
          + "group normalisation; 3,969 features on 28x28) or hog (histograms of oriented gradients). Fixed, "
          + "data-independent filters: no privacy cost. Computed once per data set and cached under --cache-dir; "
          + "the model file records it, and predict applies it to raw images. With scatter or hog the softmax "
          + "learner's --lambda, --radius, --epochs and --batch-size default to values tuned for it on validation "
          + "data (docs/defaults.md). Default: ${DEFAULT-VALUE}.")
  String features;

  @Option(names = "--image-shape", paramLabel = "HxW",
      description = "The rows' image shape (e.g. 28x28) for --features scatter|hog, when the file does not carry "
          + "it (IDX files and .npy arrays of shape (n, height, width) do).")
  String imageShape;

  @Option(names = "--feature-bounds", paramLabel = "LO:HI|FILE|none",
      description = "Public per-feature bounds: each feature is clipped to them and scaled to [-1, 1] before the row "
          + "normalisation, so no feature dominates by its range. LO:HI for every feature, or a YAML/JSON file "
          + "{lower: [...], upper: [...]} (one number for all or one per feature). Never computed from the data. "
          + "Default: the built-in tabular set's documented bounds (per feature, with their sources in "
          + "helmet-core/src/main/resources/dev/helmet/core/data/bounds/; breast-cancer: 1:10), else none.")
  String featureBounds;

  @Option(names = "--target-bounds", paramLabel = "LO:HI",
      description = "Regression: public bounds of the numeric target. Every target is clipped to them and scaled to "
          + "[-1, 1] (the squared loss is Lipschitz only for bounded targets); predictions are mapped back, so errors "
          + "are in the target's units. With a data file it also says the label column is a number to predict "
          + "(regression, --algorithm wd-dp). Never computed from the data. Default: the built-in regression set's "
          + "documented range (helmet data list).")
  String targetBounds;

  private static final java.util.regex.Pattern RANGE =
      java.util.regex.Pattern.compile("\\s*(-?[0-9.eE+-]+)\\s*:\\s*(-?[0-9.eE+-]+)\\s*");

  /** {@code LO:HI} as {lo, hi}, or null when the text is not two numbers around a colon. */
  private static double[] range(String text) {
    java.util.regex.Matcher m = RANGE.matcher(text);
    if (!m.matches()) {
      return null;
    }
    try {
      return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * The {@code target_bounds} section for the learner settings, or null: from --target-bounds, else
   * the built-in data set's documented target range.
   */
  com.fasterxml.jackson.databind.node.ObjectNode targetBoundsConfig() {
    var f = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    if (targetBounds == null) {
      BuiltinDataset b = BuiltinDataset.byId(dataset);
      double[] doc = b == null ? null : b.documentedTargetBounds();
      return doc == null ? null : f.objectNode().put("lower", doc[0]).put("upper", doc[1]);
    }
    double[] r = range(targetBounds);
    if (r != null && Double.isFinite(r[0]) && Double.isFinite(r[1]) && r[0] < r[1]) {
      return f.objectNode().put("lower", r[0]).put("upper", r[1]);
    }
    throw new IllegalArgumentException("--target-bounds must be LO:HI with LO < HI. Provided value: " + targetBounds);
  }

  /**
   * The {@code feature_bounds} section for the algorithm's learner settings, or null: from
   * --feature-bounds, else the built-in data set's documented bounds.
   */
  com.fasterxml.jackson.databind.node.ObjectNode featureBoundsConfig() {
    var f = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    String text = featureBounds;
    if (text == null) {
      BuiltinDataset b = BuiltinDataset.byId(dataset);
      dev.helmet.core.data.DocumentedBounds doc = b == null ? null : b.documentedBounds();
      return doc == null ? null : dev.helmet.protocols.shared.LinearInputs.boundsNode(doc.lower(), doc.upper());
    }
    if (text.equalsIgnoreCase("none")) {
      return null;
    }
    if (RANGE.matcher(text).matches()) {
      double[] r = range(text);
      if (r == null) {
        throw new IllegalArgumentException("--feature-bounds must be LO:HI, a file or none. Provided value: " + text);
      }
      return f.objectNode().put("lower", r[0]).put("upper", r[1]);
    }
    Path file = Path.of(text);
    if (!java.nio.file.Files.isRegularFile(file)) {
      throw new IllegalArgumentException("--feature-bounds must be LO:HI, a readable file or none. Provided value: "
          + text);
    }
    try {
      var tree = new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
          .readTree(file.toFile());
      if (tree == null || !tree.isObject() || !tree.has("lower") || !tree.has("upper")) {
        throw new IllegalArgumentException(file + ": feature bounds are a mapping {lower: ..., upper: ...}");
      }
      return (com.fasterxml.jackson.databind.node.ObjectNode) tree;
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(file + ": cannot read the feature bounds: " + e.getMessage());
    }
  }

  /** The feature stage set up for {@code data}'s image shape (or --image-shape). */
  FeatureStage featureStage(Dataset data) {
    ImageShape shape = imageShape != null ? ImageShape.parse(imageShape) : data.imageShape();
    return FeatureStage.parse(features == null ? "raw" : features, shape);
  }

  /**
   * {@link #load(long)} with the feature stage applied to the training and the evaluation data
   * (computed on {@code threads} threads, cached under the cache directory).
   */
  Loaded load(long seed, int threads, dev.helmet.core.util.Progress progress) {
    BuiltinDataset.TrainTest tt = loadTrainTest(seed);
    FeatureStage stage = featureStage(tt.train());
    Path cache = cacheDir != null ? cacheDir : BuiltinDataset.defaultCache();
    Dataset train = stage.apply(shaped(tt.train()), threads, progress, cache);
    Dataset test = stage.apply(shaped(tt.test()), threads, progress, cache);
    return new Loaded(holdout(new BuiltinDataset.TrainTest(train, test), seed), stage);
  }

  /** The training and test data as read (no feature stage, no validation holdout), with --image-shape. */
  BuiltinDataset.TrainTest loadRaw(long seed) {
    BuiltinDataset.TrainTest tt = loadTrainTest(seed);
    return new BuiltinDataset.TrainTest(shaped(tt.train()), shaped(tt.test()));
  }

  /**
   * The training records the configuration states before any file is read: a built-in data set's
   * published training split (less the --validation-fraction held out of it), or 0 for a file of
   * one's own (only its rows could tell, and under add-or-remove neighbours their number is private).
   */
  long publicTrainRecords() {
    BuiltinDataset b = BuiltinDataset.byId(dataset);
    long published = b == null ? 0 : b.publishedTrainSize();
    return published == 0 ? 0 : Math.max(1, Math.round(published * (1 - validationFraction)));
  }

  /** The cache directory in use. */
  Path cache() {
    return cacheDir != null ? cacheDir : BuiltinDataset.defaultCache();
  }

  /** Training and evaluation data after the feature stage, and the stage. */
  record Loaded(BuiltinDataset.TrainTest data, FeatureStage stage) {}

  private Dataset shaped(Dataset d) {
    return imageShape != null ? d.withImageShape(ImageShape.parse(imageShape)) : d;
  }

  /**
   * The training data and the data to evaluate on: the test data, or with
   * {@code --validation-fraction} a stratified holdout of the training data.
   */
  BuiltinDataset.TrainTest load(long seed) {
    return holdout(loadTrainTest(seed), seed);
  }

  private BuiltinDataset.TrainTest holdout(BuiltinDataset.TrainTest tt, long seed) {
    if (validationFraction == 0) {
      return tt;
    }
    Dataset train = tt.train();
    StratifiedKFold.Fold split = StratifiedKFold.holdout(train.labels(), train.numClasses(), validationFraction,
        new SplittableRandom(seed ^ 0x2545F4914F6CDD1DL));
    return new BuiltinDataset.TrainTest(train.subset(split.train(), train.name() + " (train part)"),
        train.subset(split.test(), train.name() + " (validation " + validationFraction + ")"));
  }

  private BuiltinDataset.TrainTest loadTrainTest(long seed) {
    BuiltinDataset builtin = BuiltinDataset.byId(dataset);
    if (builtin != null) {
      if (test != null) {
        throw new IllegalArgumentException("--test cannot be combined with the built-in data set " + dataset);
      }
      checkClassesOf(builtin);
      return builtin.load(cacheDir != null ? cacheDir : BuiltinDataset.defaultCache());
    }
    BuiltinDataset.TrainTest tt = DataReader.readTrainTest(Path.of(dataset), readOptions().withLabels(labels), test,
        readOptions().withLabels(testLabels), testFraction, new SplittableRandom(seed ^ 0x5DEECE66DL));
    if (classes == null && !tt.train().isRegression()) {
      String rare = rareLabels(tt.train(), test == null ? tt.test() : null);
      if (rare != null) {
        System.err.println("helmet: warning: " + rare);
        System.err.flush();
      }
    }
    return tt;
  }

  /**
   * A built-in data set's classes are public and fixed: --classes may only repeat them. It used to
   * be ignored silently (issue 47 item 7); taking a subset of a built-in set would make its row
   * count depend on the data, where its published size is a public constant.
   */
  private void checkClassesOf(BuiltinDataset builtin) {
    if (classes == null) {
      return;
    }
    java.util.List<String> given = classes.stream().map(String::trim).toList();
    if (!given.equals(builtin.classes())) {
      throw new IllegalArgumentException("--classes names the classes of a data file; the built-in data set "
          + builtin.id() + " has its own public classes " + builtin.classes() + ". Drop --classes, or to train on "
          + "some classes only, write their rows to a file and pass that with --dataset. Provided value: "
          + String.join(",", classes));
    }
  }

  /** A class with fewer rows than this, and fewer than {@link #RARE_FRACTION} of them, is reported. */
  static final int RARE_ROWS = 5;
  /** See {@link #RARE_ROWS}. */
  static final double RARE_FRACTION = 0.01;

  /**
   * The labels found in so few rows that they are likely typos, in words, or null: without
   * --classes every label read becomes a class, and a single mistyped row used to become one without
   * a word (issue 47 item 7). Printed for the data's owner only; nothing of it enters the model.
   *
   * @param heldOut the rows held out of the same file (counted too), or null
   */
  static String rareLabels(Dataset train, Dataset heldOut) {
    int[] counts = train.classCounts().clone();
    if (heldOut != null) {
      int[] more = heldOut.classCounts();
      for (int c = 0; c < Math.min(counts.length, more.length); c++) {
        counts[c] += more[c];
      }
    }
    long total = java.util.Arrays.stream(counts).asLongStream().sum();
    java.util.List<String> rare = new java.util.ArrayList<>();
    java.util.List<String> names = train.labelSet().names();
    for (int c = 0; c < counts.length; c++) {
      if (counts[c] < RARE_ROWS && counts[c] < RARE_FRACTION * total) {
        rare.add("'" + names.get(c) + "' (" + counts[c] + (counts[c] == 1 ? " row)" : " rows)"));
      }
    }
    if (rare.isEmpty()) {
      return null;
    }
    return (rare.size() == 1 ? "label " : "labels ") + String.join(", ", rare) + " of " + total + " rows in "
        + train.name().replaceFirst(" \\(train part\\)$", "") + (rare.size() == 1 ? " is" : " are")
        + " so rare that a typo is likely; each label found is a class of the model: fix the rows, or state the "
        + "classes with --classes (then an unknown label is an error)";
  }

  /** Where the model file's class names come from, for its provenance (never a statistic). */
  String labelsSource() {
    if (BuiltinDataset.byId(dataset) != null) {
      return "public: the built-in data set's classes";
    }
    return classes != null ? "public: --classes" : "the labels found in the training data (state them with --classes "
        + "when which classes occur is private)";
  }

  ReadOptions readOptions() {
    ReadOptions o = baseReadOptions();
    return targetBounds != null ? o.numericTargets() : o;
  }

  private ReadOptions baseReadOptions() {
    return new ReadOptions(format == null ? null : DataFormat.parse(format), null, labelColumn,
        ReadOptions.header(header), partyColumn, dimension, classes == null ? null : dev.helmet.core.data.LabelSet.of(classes),
        skipRows);
  }
}
