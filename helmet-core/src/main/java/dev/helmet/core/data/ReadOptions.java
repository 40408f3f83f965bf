package dev.helmet.core.data;

import java.nio.file.Path;

/**
 * How to read a data file.
 *
 * @param format the format, or null to guess from the file name (then from the content)
 * @param labels a separate label file (NPY, IDX), or null
 * @param labelColumn CSV/TSV label column: a header name or a 0-based index (negative counts from
 *     the end); null means the last column; {@code "none"} means the file has no labels (every
 *     row is labelled "?", for prediction)
 * @param header CSV/TSV header row: true, false, or null to detect (a first row with a
 *     non-numeric feature field is a header)
 * @param partyColumn CSV/TSV column with a party id per row (natural partition), or null
 * @param dimension LIBSVM feature count, or 0 to use the largest index seen
 * @param labelSet the classes to map labels into (test data, prediction); null learns them from
 *     the file
 * @param skipRows CSV/TSV lines to skip before the data (and before any header), e.g. the metadata
 *     line of scikit-learn's bundled CSV files
 */
public record ReadOptions(
    DataFormat format,
    Path labels,
    String labelColumn,
    Boolean header,
    String partyColumn,
    int dimension,
    LabelSet labelSet,
    int skipRows) {

  public ReadOptions {
    if (skipRows < 0) {
      throw new IllegalArgumentException("skip rows must be >= 0. Provided value: " + skipRows);
    }
  }

  /** Defaults: guess everything. */
  public static ReadOptions defaults() {
    return new ReadOptions(null, null, null, null, null, 0, null, 0);
  }

  public ReadOptions withFormat(DataFormat f) {
    return new ReadOptions(f, labels, labelColumn, header, partyColumn, dimension, labelSet, skipRows);
  }

  public ReadOptions withLabels(Path l) {
    return new ReadOptions(format, l, labelColumn, header, partyColumn, dimension, labelSet, skipRows);
  }

  public ReadOptions withLabelColumn(String c) {
    return new ReadOptions(format, labels, c, header, partyColumn, dimension, labelSet, skipRows);
  }

  public ReadOptions withHeader(Boolean h) {
    return new ReadOptions(format, labels, labelColumn, h, partyColumn, dimension, labelSet, skipRows);
  }

  public ReadOptions withPartyColumn(String c) {
    return new ReadOptions(format, labels, labelColumn, header, c, dimension, labelSet, skipRows);
  }

  public ReadOptions withDimension(int d) {
    return new ReadOptions(format, labels, labelColumn, header, partyColumn, d, labelSet, skipRows);
  }

  public ReadOptions withSkipRows(int n) {
    return new ReadOptions(format, labels, labelColumn, header, partyColumn, dimension, labelSet, n);
  }

  public ReadOptions withLabelSet(LabelSet s) {
    return new ReadOptions(format, labels, labelColumn, header, partyColumn, dimension, s, skipRows);
  }

  /** A header setting as users write it: auto (null: detect), yes/true, no/false. */
  /** The label column holds numeric regression targets (read into {@link Dataset#targets()}). */
  public ReadOptions numericTargets() {
    return withLabelSet(TabularData.NO_CLASSES);
  }

  public static Boolean header(String value) {
    return switch (value.toLowerCase(java.util.Locale.ROOT)) {
      case "auto" -> null;
      case "yes", "true" -> Boolean.TRUE;
      case "no", "false" -> Boolean.FALSE;
      default -> throw new IllegalArgumentException("header must be auto, yes or no. Provided value: " + value);
    };
  }
}
