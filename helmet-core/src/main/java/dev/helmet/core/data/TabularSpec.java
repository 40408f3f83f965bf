package dev.helmet.core.data;

import dev.helmet.core.eval.StratifiedKFold;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * How a built-in tabular data set is read from its fetched files and turned into train and test
 * data: which object and target, which columns are dropped, how coded factors are encoded, and
 * how the rows are split. Every choice is fixed here, in code, so the same files always give the
 * same rows, columns and split (and the description says what was done).
 *
 * @param reader how to read {@code file}
 * @param file the fetched file holding the table
 * @param object the data frame's name in an {@code .rda} file, else null
 * @param target the target column
 * @param regression whether the target is a number rather than a class
 * @param drop columns that are not features (identifiers)
 * @param numericLevels factors whose levels are all numbers become those numbers
 * @param orderedAsCodes ordered factors become their level index
 * @param trainRows when positive, the file's own split: its first rows are the training data
 * @param rows the rows after dropping incomplete ones (checked on load)
 * @param features the encoded feature count (checked on load)
 * @param classes the target's levels for classification (checked on load), empty for regression
 */
record TabularSpec(
    Reader reader, String file, String object, String target, boolean regression, Set<String> drop,
    boolean numericLevels, boolean orderedAsCodes, int trainRows, int rows, int features, List<String> classes) {

  /** The file formats of the built-in tabular data sets. */
  enum Reader {
    RDA,
    ARFF,
    /** scikit-learn's diabetes data: a whitespace-separated matrix and a second file of targets. */
    SKLEARN_DIABETES
  }

  /** The fraction of rows held out for testing when the file has no split of its own. */
  static final double TEST_FRACTION = 0.2;
  /** The seed of that split: fixed, so every run and every user gets the same partition. */
  static final long SPLIT_SEED = 0x5EED_7AB1L;

  /** A data frame {@code object} in {@code file} whose target is a factor with levels {@code classes}. */
  static TabularSpec classes(Reader reader, String file, String object, String target, int rows, int features,
      String... classes) {
    return new TabularSpec(reader, file, object, target, false, Set.of(), false, false, 0, rows, features,
        List.of(classes));
  }

  /** A data frame {@code object} in {@code file} whose target is numeric. */
  static TabularSpec regression(Reader reader, String file, String object, String target, int rows, int features) {
    return new TabularSpec(reader, file, object, target, true, Set.of(), false, false, 0, rows, features, List.of());
  }

  TabularSpec dropping(String... columns) {
    return new TabularSpec(reader, file, object, target, regression, Set.of(columns), numericLevels, orderedAsCodes,
        trainRows, rows, features, classes);
  }

  TabularSpec withNumericLevels() {
    return new TabularSpec(reader, file, object, target, regression, drop, true, orderedAsCodes, trainRows, rows,
        features, classes);
  }

  TabularSpec withOrderedAsCodes() {
    return new TabularSpec(reader, file, object, target, regression, drop, numericLevels, true, trainRows, rows,
        features, classes);
  }

  TabularSpec withTrainRows(int n) {
    return new TabularSpec(reader, file, object, target, regression, drop, numericLevels, orderedAsCodes, n, rows,
        features, classes);
  }

  /** The table as read from the files in {@code dir}, before any encoding. */
  DataTable read(Path dir) {
    Path p = dir.resolve(file);
    return switch (reader) {
      case RDA -> RdaReader.readDataFrame(p, object);
      case ARFF -> ArffReader.read(p);
      case SKLEARN_DIABETES -> diabetes(p, dir.resolve("diabetes_target.csv.gz"));
    };
  }

  /** The whole data set encoded (incomplete rows dropped), and the train/test split of it. */
  TabularData.Split load(Path dir, String id) {
    DataTable t = read(dir);
    if (!drop.isEmpty()) {
      t = t.without(drop);
    }
    if (numericLevels) {
      t = t.withNumericLevels(target);
    }
    if (orderedAsCodes) {
      t = t.withOrderedAsCodes(target);
    }
    if (trainRows > 0) {
      TabularData train = encode(t.rowRange(0, trainRows).completeRows());
      TabularData test = encode(t.rowRange(trainRows, t.rows()).completeRows());
      check(id, train.size() + test.size(), train.features().dimension(), train.features().labelSet());
      return new TabularData.Split(rename(train, id + "/train"), rename(test, id + "/test"));
    }
    TabularData all = encode(t.completeRows());
    check(id, all.size(), all.features().dimension(), all.features().labelSet());
    int[] labels = all.features().labels();
    StratifiedKFold.Fold f = StratifiedKFold.holdout(labels, all.features().numClasses(), TEST_FRACTION,
        new SplittableRandom(SPLIT_SEED));
    return new TabularData.Split(all.subset(f.train(), id + "/train"), all.subset(f.test(), id + "/test"));
  }

  private TabularData encode(DataTable t) {
    return regression ? TabularData.regression(t, target) : TabularData.classification(t, target);
  }

  private static TabularData rename(TabularData d, String name) {
    return new TabularData(d.features().named(name), d.targets(), d.columnNames());
  }

  /** The pinned files should give the documented shape; anything else is a reader bug. */
  private void check(String id, int gotRows, int gotFeatures, LabelSet labels) {
    if (!regression && !labels.names().equals(classes)) {
      throw new DataFormatException(id + ": the target's levels are " + labels.names() + ", expected " + classes);
    }
    if (gotRows != rows || gotFeatures != features) {
      throw new DataFormatException(id + ": read " + gotRows + " rows of " + gotFeatures + " features, expected "
          + rows + " x " + features);
    }
  }

  /**
   * scikit-learn's {@code diabetes_data_raw.csv.gz}: 442 lines of 10 space-separated numbers
   * (age, sex, bmi, bp, s1..s6, unscaled), and {@code diabetes_target.csv.gz}: one number a line.
   */
  static DataTable diabetes(Path data, Path targets) {
    String[] names = {"age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"};
    List<double[]> rows = numbers(data, names.length);
    List<double[]> y = numbers(targets, 1);
    if (rows.size() != y.size()) {
      throw new DataFormatException(data.getFileName() + ": " + rows.size() + " rows but "
          + targets.getFileName() + " has " + y.size() + " targets");
    }
    List<DataTable.Column> cols = new ArrayList<>();
    for (int j = 0; j <= names.length; j++) {
      double[] v = new double[rows.size()];
      for (int i = 0; i < v.length; i++) {
        v[i] = j < names.length ? rows.get(i)[j] : y.get(i)[0];
      }
      cols.add(new DataTable.Numeric(j < names.length ? names[j] : "progression", v));
    }
    return new DataTable(data.getFileName().toString(), cols, rows.size());
  }

  private static List<double[]> numbers(Path p, int columns) {
    String source = p.getFileName().toString();
    List<double[]> out = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(DataReader.openText(p))) {
      String line;
      int lineNo = 0;
      while ((line = in.readLine()) != null) {
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        String[] f = line.trim().split("[\\s,]+");
        if (f.length != columns) {
          throw new DataFormatException(source + " line " + lineNo + ": expected " + columns + " numbers, found "
              + f.length);
        }
        double[] v = new double[columns];
        for (int j = 0; j < columns; j++) {
          v[j] = CsvReader.parseFeature(f[j], source, "line " + lineNo, j);
        }
        out.add(v);
      }
    } catch (IOException e) {
      throw new DataFormatException(source + ": cannot read: " + e.getMessage(), e);
    }
    return out;
  }
}
