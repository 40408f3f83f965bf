package dev.helmet.core.data;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * Reads delimited text: one row per record, one label column (by header name or index, default
 * the last column), an optional party-id column, all other columns numeric features. A header row
 * is detected when its feature fields are not numbers, or forced with {@link ReadOptions#header()}.
 */
final class CsvReader {
  private CsvReader() {}

  /** The label-column value meaning "no labels": every column is a feature, every row labelled "?". */
  static final String NO_LABELS = "none";

  static Dataset read(Path path, char delimiter, ReadOptions options) {
    String source = path.getFileName().toString();
    boolean unlabelled = NO_LABELS.equals(options.labelColumn());
    CSVFormat format =
        CSVFormat.DEFAULT.builder()
            .setDelimiter(delimiter)
            .setIgnoreEmptyLines(true)
            .setIgnoreSurroundingSpaces(true)
            .setCommentMarker('#')
            .build();
    try (Reader in = DataReader.openText(path);
        CSVParser parser = CSVParser.parse(in, format)) {
      Iterator<CSVRecord> it = parser.iterator();
      for (int i = 0; i < options.skipRows() && it.hasNext(); i++) {
        it.next();
      }
      if (!it.hasNext()) {
        throw new DataFormatException(source + ": the file is empty");
      }
      CSVRecord first = it.next();
      int columns = first.size();
      if (columns < (unlabelled ? 1 : 2)) {
        throw new DataFormatException(source + " line " + first.getParser().getCurrentLineNumber()
            + ": expected at least 2 columns (features and a label), found " + columns
            + "; is the delimiter '" + printable(delimiter) + "' right?");
      }
      List<String> headerNames = null;
      int labelCol;
      int partyCol;
      boolean header;
      if (options.header() != null) {
        header = options.header();
      } else {
        // A label or party column given by name needs a header; otherwise a header is a first row
        // whose would-be feature fields are not all numbers.
        boolean byName = (!unlabelled && options.labelColumn() != null && !isInteger(options.labelColumn()))
            || (options.partyColumn() != null && !isInteger(options.partyColumn()));
        header = byName;
        if (!byName) {
          int guessLabel = unlabelled ? -1
              : resolveColumn(options.labelColumn(), null, columns, source, "label", columns - 1);
          int guessParty =
              options.partyColumn() == null ? -1 : resolveColumnOrMinusOne(options.partyColumn(), columns);
          for (int j = 0; j < columns; j++) {
            if (j != guessLabel && j != guessParty && !isNumber(first.get(j))) {
              header = true;
              break;
            }
          }
        }
      }
      if (header) {
        headerNames = new ArrayList<>();
        for (String s : first) {
          headerNames.add(s.trim());
        }
      }
      labelCol = unlabelled ? -1
          : resolveColumn(options.labelColumn(), headerNames, columns, source, "label", columns - 1);
      partyCol =
          options.partyColumn() == null
              ? -1
              : resolveColumn(options.partyColumn(), headerNames, columns, source, "party", -1);
      if (partyCol >= 0 && partyCol == labelCol) {
        throw new DataFormatException(source + ": the party column and the label column are the same");
      }
      int featureCount = columns - (labelCol >= 0 ? 1 : 0) - (partyCol >= 0 ? 1 : 0);
      if (featureCount < 1) {
        throw new DataFormatException(source + ": no feature columns remain after the label and party columns");
      }
      RowCollector rows = new RowCollector(source, unlabelled ? null : options.labelSet(), partyCol >= 0);
      if (!header) {
        addRecord(rows, first, columns, labelCol, partyCol, featureCount, source);
      }
      while (it.hasNext()) {
        addRecord(rows, it.next(), columns, labelCol, partyCol, featureCount, source);
      }
      return rows.build();
    } catch (IOException e) {
      throw new UncheckedIOException(source + ": cannot read: " + e.getMessage(), e);
    } catch (UncheckedIOException e) {
      // commons-csv wraps malformed quoting in UncheckedIOException
      throw new DataFormatException(source + ": malformed delimited text: " + e.getCause().getMessage(), e);
    }
  }

  private static void addRecord(
      RowCollector rows, CSVRecord r, int columns, int labelCol, int partyCol, int featureCount, String source) {
    String where = "line " + r.getParser().getCurrentLineNumber();
    if (r.size() != columns) {
      throw new DataFormatException(source + " " + where + ": expected " + columns
          + " columns as in the first row, found " + r.size() + " (ragged rows)");
    }
    float[] x = new float[featureCount];
    int k = 0;
    for (int j = 0; j < columns; j++) {
      if (j == labelCol || j == partyCol) {
        continue;
      }
      x[k++] = parseFeature(r.get(j), source, where, j);
    }
    rows.add(x, labelCol >= 0 ? r.get(labelCol) : "?", partyCol >= 0 ? r.get(partyCol).trim() : null, where);
  }

  static float parseFeature(String s, String source, String where, int column) {
    String t = s.trim();
    if (t.isEmpty()) {
      throw new DataFormatException(source + " " + where + " column " + (column + 1) + ": missing value");
    }
    float v;
    try {
      v = Float.parseFloat(t);
    } catch (NumberFormatException e) {
      if (t.toLowerCase(java.util.Locale.ROOT).matches("[+-]?(inf|infinity|nan)")) {
        throw new DataFormatException(source + " " + where + " column " + (column + 1) + ": value '" + t
            + "' is not a finite number");
      }
      throw new DataFormatException(source + " " + where + " column " + (column + 1) + ": '" + t
          + "' is not a number");
    }
    if (!Float.isFinite(v)) {
      // A finite double beyond float's range (1e308, say) is a number, just too large to store.
      boolean finiteDouble = Double.isFinite(Double.parseDouble(t));
      throw new DataFormatException(source + " " + where + " column " + (column + 1) + ": value '" + t
          + (finiteDouble ? "' is too large: features are kept as 32-bit floats, at most about 3.4e38 in magnitude; "
              + "rescale the column" : "' is not a finite number"));
    }
    return v;
  }

  private static int resolveColumn(
      String spec, List<String> header, int columns, String source, String what, int fallback) {
    if (spec == null) {
      return fallback;
    }
    if (isInteger(spec)) {
      int i = Integer.parseInt(spec.trim());
      int idx = i < 0 ? columns + i : i;
      if (idx < 0 || idx >= columns) {
        throw new DataFormatException(source + ": " + what + " column " + spec + " is outside the "
            + columns + " columns");
      }
      return idx;
    }
    if (header == null) {
      throw new DataFormatException(source + ": " + what + " column '" + spec
          + "' is a name but the file has no header row");
    }
    int idx = header.indexOf(spec);
    if (idx < 0) {
      throw new DataFormatException(source + ": no " + what + " column named '" + spec + "'; columns are " + header);
    }
    return idx;
  }

  private static int resolveColumnOrMinusOne(String spec, int columns) {
    if (!isInteger(spec)) {
      return -1;
    }
    int i = Integer.parseInt(spec.trim());
    return i < 0 ? columns + i : i;
  }

  private static boolean isInteger(String s) {
    return s != null && s.trim().matches("-?\\d+");
  }

  private static boolean isNumber(String s) {
    try {
      Double.parseDouble(s.trim());
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static String printable(char c) {
    return c == '\t' ? "\\t" : String.valueOf(c);
  }
}
