package dev.helmet.core.data;

import java.util.ArrayList;
import java.util.List;

/**
 * A table encoded for learning: numeric columns as they are, each categorical feature column
 * one-hot encoded (one 0/1 column per level, named {@code column=level}, for every level of the
 * schema whether it occurs or not, so the dimension is public), and one target column.
 *
 * <p>For classification the target is a categorical column; its levels, in schema order, become
 * the {@link LabelSet} and {@code targets} is null. For regression the target is numeric; since a
 * {@link Dataset}'s labels are class indices, the responses travel beside it in {@code targets}
 * and the dataset has the single placeholder class {@code "?"} (the label of unlabelled rows).
 *
 * @param features the encoded rows
 * @param targets the regression responses, one per row, or null for classification
 * @param columnNames the name of each feature column, {@code features.dimension()} of them
 */
public record TabularData(Dataset features, double[] targets, List<String> columnNames) {
  /** The single class of a regression data set's rows (their numbers are {@link Dataset#targets()}). */
  public static final LabelSet NO_CLASSES = LabelSet.of(List.of("?"));

  public TabularData {
    columnNames = List.copyOf(columnNames);
    if (columnNames.size() != features.dimension()) {
      throw new IllegalArgumentException(columnNames.size() + " column names for " + features.dimension()
          + " features");
    }
    if (targets != null && targets.length != features.size()) {
      throw new IllegalArgumentException(targets.length + " targets for " + features.size() + " rows");
    }
  }

  /** Train and test parts. */
  public record Split(TabularData train, TabularData test) {}

  /** Whether the targets are numbers (regression) rather than classes. */
  public boolean isRegression() {
    return targets != null;
  }

  /** Rows in the data. */
  public int size() {
    return features.size();
  }

  /** The rows at {@code rows}, in that order. */
  public TabularData subset(int[] rows, String name) {
    double[] t = null;
    if (targets != null) {
      t = new double[rows.length];
      for (int k = 0; k < rows.length; k++) {
        t[k] = targets[rows[k]];
      }
    }
    return new TabularData(features.subset(rows, name), t, columnNames);
  }

  /**
   * Encodes {@code table} with the categorical column {@code target} as the class.
   *
   * @throws DataFormatException if the target is not categorical or a value is missing (drop
   *     incomplete rows first with {@link DataTable#completeRows()})
   */
  public static TabularData classification(DataTable table, String target) {
    DataTable.Column t = table.column(target);
    if (!(t instanceof DataTable.Categorical cat)) {
      throw new DataFormatException(table.source() + ": target column '" + target
          + "' is numeric; classification needs a categorical (factor or nominal) column");
    }
    int[] labels = new int[table.rows()];
    for (int i = 0; i < labels.length; i++) {
      if (cat.codes()[i] < 0) {
        throw missing(table, target, i);
      }
      labels[i] = cat.codes()[i];
    }
    Encoded e = encode(table, target);
    Dataset d = new Dataset(table.source(), e.values, labels, e.names.size(), LabelSet.of(cat.levels()), null);
    return new TabularData(d, null, e.names);
  }

  /**
   * Encodes {@code table} with the numeric column {@code target} as the response.
   *
   * @throws DataFormatException if the target is not numeric or a value is missing
   */
  public static TabularData regression(DataTable table, String target) {
    DataTable.Column t = table.column(target);
    if (!(t instanceof DataTable.Numeric num)) {
      throw new DataFormatException(table.source() + ": target column '" + target
          + "' is categorical; regression needs a numeric column");
    }
    double[] y = num.values().clone();
    for (int i = 0; i < y.length; i++) {
      if (Double.isNaN(y[i])) {
        throw missing(table, target, i);
      }
    }
    Encoded e = encode(table, target);
    Dataset d = new Dataset(table.source(), e.values, new int[table.rows()], e.names.size(), NO_CLASSES, null)
        .withTargets(y);
    return new TabularData(d, y, e.names);
  }

  private record Encoded(float[] values, List<String> names) {}

  private static Encoded encode(DataTable table, String target) {
    List<String> names = new ArrayList<>();
    for (DataTable.Column c : table.columns()) {
      if (c.name().equals(target)) {
        continue;
      }
      if (c instanceof DataTable.Categorical cat) {
        for (String level : cat.levels()) {
          names.add(c.name() + "=" + level);
        }
      } else {
        names.add(c.name());
      }
    }
    int dim = names.size();
    if (dim == 0) {
      throw new DataFormatException(table.source() + ": no feature columns besides the target '" + target + "'");
    }
    long total = (long) dim * table.rows();
    if (total > Integer.MAX_VALUE - 8) {
      throw new DataFormatException(table.source() + ": " + table.rows() + " rows of " + dim
          + " encoded features do not fit in memory");
    }
    float[] x = new float[(int) total];
    int offset = 0;
    for (DataTable.Column c : table.columns()) {
      if (c.name().equals(target)) {
        continue;
      }
      if (c instanceof DataTable.Categorical cat) {
        for (int i = 0; i < table.rows(); i++) {
          if (cat.codes()[i] < 0) {
            throw missing(table, c.name(), i);
          }
          x[i * dim + offset + cat.codes()[i]] = 1f;
        }
        offset += cat.levels().size();
      } else {
        double[] v = ((DataTable.Numeric) c).values();
        for (int i = 0; i < table.rows(); i++) {
          if (Double.isNaN(v[i])) {
            throw missing(table, c.name(), i);
          }
          float f = (float) v[i];
          if (!Float.isFinite(f)) {
            throw new DataFormatException(table.source() + " row " + (i + 1) + " column '" + c.name()
                + "': value " + v[i] + " does not fit a float");
          }
          x[i * dim + offset] = f;
        }
        offset++;
      }
    }
    return new Encoded(x, names);
  }

  private static DataFormatException missing(DataTable table, String column, int row) {
    return new DataFormatException(table.source() + " row " + (row + 1) + " column '" + column
        + "': missing value (drop incomplete rows first)");
  }
}
