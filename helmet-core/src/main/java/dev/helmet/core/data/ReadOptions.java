package dev.helmet.core.data;

import java.nio.file.Path;

/**
 * How to read a data file.
 *
 * @param format the format, or null to guess from the file name (then from the content)
 * @param labels a separate label file (NPY, IDX), or null
 * @param labelColumn CSV/TSV label column: a header name or a 0-based index (negative counts from
 *     the end); null means the last column
 * @param header CSV/TSV header row: true, false, or null to detect (a first row with a
 *     non-numeric feature field is a header)
 * @param partyColumn CSV/TSV column with a party id per row (natural partition), or null
 * @param dimension LIBSVM feature count, or 0 to use the largest index seen
 * @param labelSet the classes to map labels into (test data, prediction); null learns them from
 *     the file
 */
public record ReadOptions(
    DataFormat format,
    Path labels,
    String labelColumn,
    Boolean header,
    String partyColumn,
    int dimension,
    LabelSet labelSet) {

  /** Defaults: guess everything. */
  public static ReadOptions defaults() {
    return new ReadOptions(null, null, null, null, null, 0, null);
  }

  public ReadOptions withFormat(DataFormat f) {
    return new ReadOptions(f, labels, labelColumn, header, partyColumn, dimension, labelSet);
  }

  public ReadOptions withLabels(Path l) {
    return new ReadOptions(format, l, labelColumn, header, partyColumn, dimension, labelSet);
  }

  public ReadOptions withLabelColumn(String c) {
    return new ReadOptions(format, labels, c, header, partyColumn, dimension, labelSet);
  }

  public ReadOptions withHeader(Boolean h) {
    return new ReadOptions(format, labels, labelColumn, h, partyColumn, dimension, labelSet);
  }

  public ReadOptions withPartyColumn(String c) {
    return new ReadOptions(format, labels, labelColumn, header, c, dimension, labelSet);
  }

  public ReadOptions withDimension(int d) {
    return new ReadOptions(format, labels, labelColumn, header, partyColumn, d, labelSet);
  }

  public ReadOptions withLabelSet(LabelSet s) {
    return new ReadOptions(format, labels, labelColumn, header, partyColumn, dimension, s);
  }
}
