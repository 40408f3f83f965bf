package dev.helmet.core.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Accumulates rows from a text reader, then builds the {@link Dataset}. Rows are checked as they
 * arrive, so an error names the line it is on.
 */
final class RowCollector {
  private final String source;
  private final LabelSet fixedLabels;
  private float[] features = new float[1 << 12];
  private final List<String> labels = new ArrayList<>();
  private final List<String> parties;
  private int dimension = -1;
  private int rows;

  RowCollector(String source, LabelSet fixedLabels, boolean withParties) {
    this.source = source;
    this.fixedLabels = fixedLabels;
    this.parties = withParties ? new ArrayList<>() : null;
  }

  /** Adds one row; {@code where} names its position for error messages, e.g. "line 17". */
  void add(float[] row, String rawLabel, String party, String where) {
    String label = numeric() ? rawLabel.trim() : canonicalLabel(rawLabel);
    if (dimension < 0) {
      dimension = row.length;
    } else if (row.length != dimension) {
      throw new DataFormatException(source + " " + where + ": expected " + dimension
          + " features as in the first row, found " + row.length + " (ragged rows)");
    }
    for (int j = 0; j < row.length; j++) {
      if (!Float.isFinite(row[j])) {
        throw new DataFormatException(source + " " + where + " feature " + (j + 1) + ": value "
            + row[j] + " is not a finite number");
      }
    }
    if (label.isEmpty()) {
      throw new DataFormatException(source + " " + where + ": the label is empty");
    }
    if (numeric()) {
      double v;
      try {
        v = Double.parseDouble(label);
      } catch (NumberFormatException e) {
        throw new DataFormatException(source + " " + where + ": target '" + label + "' is not a number (regression "
            + "targets are numeric)");
      }
      if (!Double.isFinite(v)) {
        throw new DataFormatException(source + " " + where + ": target " + label + " is not a finite number");
      }
    } else if (fixedLabels != null && fixedLabels.indexOf(label) < 0) {
      throw new DataFormatException(source + " " + where + ": unknown label '" + label
          + "'; known labels are " + fixedLabels.names());
    }
    long need = (long) (rows + 1) * dimension;
    if (need > Integer.MAX_VALUE - 8) {
      throw new DataFormatException(source + ": more than 2^31 feature values do not fit in memory");
    }
    if (need > features.length) {
      features = Arrays.copyOf(features, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(need, 2L * features.length)));
    }
    System.arraycopy(row, 0, features, rows * dimension, dimension);
    labels.add(label);
    if (parties != null) {
      parties.add(party);
    }
    rows++;
  }

  /**
   * Trims a label and writes integral numbers one way ({@code "+1"}, {@code "1.0"} and {@code "1"}
   * are the same class), so train and test files written by different tools agree.
   */
  static String canonicalLabel(String raw) {
    String t = raw.trim();
    if (t.isEmpty()) {
      return t;
    }
    char c = t.charAt(0);
    if (c == '+' || c == '-' || c == '.' || Character.isDigit(c)) {
      try {
        double v = Double.parseDouble(t);
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
          return Long.toString((long) v);
        }
      } catch (NumberFormatException e) {
        // not a number: keep the text
      }
    }
    return t;
  }

  /** Whether the label column holds numeric targets (the caller asked for regression). */
  private boolean numeric() {
    return TabularData.NO_CLASSES.equals(fixedLabels);
  }

  Dataset build() {
    if (rows == 0) {
      throw new DataFormatException(source + ": no data rows");
    }
    if (numeric()) {
      double[] t = new double[rows];
      for (int i = 0; i < rows; i++) {
        t[i] = Double.parseDouble(labels.get(i));
      }
      String[] p = parties == null ? null : parties.toArray(new String[0]);
      return new Dataset(source, Arrays.copyOf(features, rows * dimension), new int[rows], dimension, fixedLabels, p)
          .withTargets(t);
    }
    LabelSet set = fixedLabels != null ? fixedLabels : LabelSet.fromObserved(new LinkedHashSet<>(labels));
    int[] y = new int[rows];
    for (int i = 0; i < rows; i++) {
      y[i] = set.indexOf(labels.get(i));
    }
    String[] p = parties == null ? null : parties.toArray(new String[0]);
    return new Dataset(source, Arrays.copyOf(features, rows * dimension), y, dimension, set, p);
  }
}
