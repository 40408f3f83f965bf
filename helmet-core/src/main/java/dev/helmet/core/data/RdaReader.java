package dev.helmet.core.data;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Reads the data frames of an R data file ({@code .rda}/{@code .RData} written by {@code save()},
 * or an {@code .rds} of one data frame), as R packages such as mlbench and kernlab ship their data
 * sets. {@link RdaParser} reads the serialisation; this class turns data frames into
 * {@link DataTable}s: double and integer columns become numeric (R's NA becomes NaN), logical
 * columns 0/1, factors (ordered or not) categorical with their levels in R's order, and character
 * columns categorical with their distinct values in sorted order, as R's {@code factor()} would.
 */
public final class RdaReader {
  private RdaReader() {}

  /**
   * All data frames in {@code path}, by the name they were saved under (for an {@code .rds}
   * file, under the file name without extension).
   *
   * @throws DataFormatException when the file is unreadable, truncated, malformed, or holds an
   *     object that is not a supported data frame; the message names the file, the byte offset or
   *     object, and the problem
   */
  public static Map<String, DataTable> read(Path path) {
    String source = path.getFileName().toString();
    RObject top;
    try (InputStream in = Files.newInputStream(path)) {
      top = RdaParser.parse(source, in);
    } catch (DataFormatException e) {
      throw e;
    } catch (IOException e) {
      throw RdaParser.damaged(source, e);
    }
    Map<String, DataTable> out = new LinkedHashMap<>();
    if (top.type == RObject.LISTSXP) {
      for (int i = 0; i < top.elements.size(); i++) {
        String name = top.tags.get(i);
        if (name == null) {
          throw new DataFormatException(source + ": saved object " + (i + 1) + " has no name");
        }
        out.put(name, dataFrame(source + " object '" + name + "'", top.elements.get(i)));
      }
    } else {
      String name = source.replaceFirst("\\.[^.]*$", "");
      out.put(name, dataFrame(source, top));
    }
    return out;
  }

  /** The data frame saved as {@code name} in {@code path}. */
  public static DataTable readDataFrame(Path path, String name) {
    Map<String, DataTable> all = read(path);
    DataTable t = all.get(name);
    if (t == null) {
      throw new DataFormatException(path.getFileName() + ": holds no object named '" + name + "'; it holds "
          + all.keySet());
    }
    return t;
  }

  /** Converts one R object, which must be a data frame, to a table. */
  static DataTable dataFrame(String source, RObject o) {
    if (o.type != RObject.VECSXP || !o.inherits("data.frame")) {
      String cls = o.stringAttribute("class") == null ? "" : " of class " + Arrays.toString(o.stringAttribute("class"));
      throw new DataFormatException(source + ": is a " + RObject.typeName(o.type) + cls
          + ", not a data frame");
    }
    String[] names = o.stringAttribute("names");
    if (names == null || names.length != o.elements.size()) {
      throw new DataFormatException(source + ": data frame without a 'names' attribute for its "
          + o.elements.size() + " columns");
    }
    int rows = rowCount(source, o);
    List<DataTable.Column> columns = new ArrayList<>();
    for (int j = 0; j < names.length; j++) {
      RObject c = o.elements.get(j);
      String where = source + " column '" + names[j] + "'";
      if (c.length() != rows) {
        throw new DataFormatException(where + ": has " + c.length() + " values, the data frame " + rows + " rows");
      }
      columns.add(column(where, names[j], c));
    }
    return new DataTable(source, columns, rows);
  }

  /**
   * The row count from the {@code row.names} attribute: R stores automatic row names compactly
   * as {@code c(NA_integer_, -n)} (or {@code +n}), otherwise as n integers or strings.
   */
  private static int rowCount(String source, RObject o) {
    RObject rn = o.attributes().get("row.names");
    if (rn == null) {
      if (o.elements.isEmpty()) {
        throw new DataFormatException(source + ": data frame without columns or row names");
      }
      return o.elements.get(0).length();
    }
    if (rn.type == RObject.INTSXP && rn.ints.length == 2 && rn.ints[0] == RObject.NA_INTEGER) {
      int n = Math.abs(rn.ints[1]);
      if (rn.ints[1] == RObject.NA_INTEGER) {
        throw new DataFormatException(source + ": compact row names c(NA, NA)");
      }
      return n;
    }
    if (rn.type == RObject.INTSXP || rn.type == RObject.STRSXP || rn.type == RObject.REALSXP) {
      return rn.length();
    }
    throw new DataFormatException(source + ": row names are a " + RObject.typeName(rn.type));
  }

  private static DataTable.Column column(String where, String name, RObject c) {
    switch (c.type) {
      case RObject.REALSXP: {
        if (c.inherits("factor")) {
          throw new DataFormatException(where + ": a factor stored as doubles");
        }
        double[] v = c.reals.clone();
        for (int i = 0; i < v.length; i++) {
          if (Double.isInfinite(v[i])) {
            throw new DataFormatException(where + " row " + (i + 1) + ": value " + v[i] + " is not finite");
          }
        }
        return new DataTable.Numeric(name, v);
      }
      case RObject.INTSXP: {
        if (c.inherits("factor")) {
          return factor(where, name, c);
        }
        return new DataTable.Numeric(name, intsToDoubles(c.ints, false));
      }
      case RObject.LGLSXP:
        return new DataTable.Numeric(name, intsToDoubles(c.ints, true));
      case RObject.STRSXP: {
        TreeSet<String> distinct = new TreeSet<>();
        for (String s : c.strings) {
          if (s != null) {
            distinct.add(s);
          }
        }
        List<String> levels = List.copyOf(distinct);
        int[] codes = new int[c.strings.length];
        for (int i = 0; i < codes.length; i++) {
          codes[i] = c.strings[i] == null ? -1 : levels.indexOf(c.strings[i]);
        }
        return new DataTable.Categorical(name, levels, codes, false);
      }
      default:
        throw new DataFormatException(where + ": is a " + RObject.typeName(c.type) + " column; only numeric, "
            + "integer, logical, factor and character columns are supported");
    }
  }

  private static DataTable.Column factor(String where, String name, RObject c) {
    String[] levels = c.stringAttribute("levels");
    if (levels == null) {
      throw new DataFormatException(where + ": a factor without a 'levels' attribute of strings");
    }
    for (int k = 0; k < levels.length; k++) {
      if (levels[k] == null) {
        throw new DataFormatException(where + ": factor level " + (k + 1) + " is NA");
      }
    }
    int[] codes = new int[c.ints.length];
    for (int i = 0; i < codes.length; i++) {
      int v = c.ints[i];
      if (v == RObject.NA_INTEGER) {
        codes[i] = -1;
      } else if (v < 1 || v > levels.length) {
        throw new DataFormatException(where + " row " + (i + 1) + ": factor code " + v + " is not one of the "
            + levels.length + " levels");
      } else {
        codes[i] = v - 1;
      }
    }
    try {
      return new DataTable.Categorical(name, List.of(levels), codes, c.inherits("ordered"));
    } catch (IllegalArgumentException e) {
      throw new DataFormatException(where + ": " + e.getMessage(), e);
    }
  }

  private static double[] intsToDoubles(int[] ints, boolean logical) {
    double[] v = new double[ints.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = ints[i] == RObject.NA_INTEGER ? Double.NaN : logical ? (ints[i] != 0 ? 1 : 0) : ints[i];
    }
    return v;
  }
}
