package dev.helmet.core.data;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A table of named columns as found in an R data frame or an ARFF file, before it becomes a
 * {@link Dataset}: numeric columns (missing values as NaN) and categorical ones (a code per row
 * into a public list of levels, -1 for missing). The levels come from the file's schema, never
 * from which values happen to occur, so encoding them reveals nothing about the rows.
 *
 * @param source the file and object the table came from, for messages
 * @param rows the number of rows every column has
 */
public record DataTable(String source, List<Column> columns, int rows) {

  /** One column of a table. */
  public sealed interface Column permits Numeric, Categorical {
    String name();

    /** Whether row {@code i} is missing. */
    boolean missing(int i);
  }

  /** A numeric column; NaN marks a missing value. */
  public record Numeric(String name, double[] values) implements Column {
    @Override
    public boolean missing(int i) {
      return Double.isNaN(values[i]);
    }
  }

  /**
   * A categorical column (an R factor or character column, an ARFF nominal attribute).
   *
   * @param levels the categories in the schema's order
   * @param codes per row an index into {@code levels}, or -1 when missing
   * @param ordered whether the levels are ordered (an R ordered factor)
   */
  public record Categorical(String name, List<String> levels, int[] codes, boolean ordered) implements Column {
    @Override
    public boolean missing(int i) {
      return codes[i] < 0;
    }

    /** Whether every level reads as a number (R factors of coded integers, like 1..10). */
    public boolean numericLevels() {
      for (String l : levels) {
        try {
          Double.parseDouble(l.trim());
        } catch (NumberFormatException e) {
          return false;
        }
      }
      return !levels.isEmpty();
    }
  }

  public DataTable {
    columns = List.copyOf(columns);
    for (Column c : columns) {
      int n = c instanceof Numeric num ? num.values().length : ((Categorical) c).codes().length;
      if (n != rows) {
        throw new DataFormatException(source + ": column '" + c.name() + "' has " + n + " values, the table "
            + rows + " rows");
      }
    }
  }

  /** The column called {@code name}. */
  public Column column(String name) {
    for (Column c : columns) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    throw new DataFormatException(source + ": no column named '" + name + "'; columns are " + names());
  }

  public List<String> names() {
    return columns.stream().map(Column::name).toList();
  }

  /** The table without the named columns (each must exist). */
  public DataTable without(Set<String> drop) {
    for (String d : drop) {
      column(d);
    }
    return new DataTable(source, columns.stream().filter(c -> !drop.contains(c.name())).toList(), rows);
  }

  /**
   * The table with every categorical column whose levels are all numbers, other than
   * {@code keep}, turned into a numeric column of those numbers. R packages store coded integer
   * measurements (the 1..10 cytology scores of the breast cancer data) as factors; the original
   * data are numbers, and one-hot encoding them would multiply the dimension for nothing.
   */
  public DataTable withNumericLevels(String keep) {
    List<Column> out = new ArrayList<>();
    for (Column c : columns) {
      if (c instanceof Categorical cat && cat.numericLevels() && !c.name().equals(keep)) {
        double[] v = new double[rows];
        for (int i = 0; i < rows; i++) {
          v[i] = cat.codes()[i] < 0 ? Double.NaN : Double.parseDouble(cat.levels().get(cat.codes()[i]).trim());
        }
        out.add(new Numeric(c.name(), v));
      } else {
        out.add(c);
      }
    }
    return new DataTable(source, out, rows);
  }

  /**
   * The table with every ordered categorical column other than {@code keep} turned into its
   * level index 0, 1, ...: the coded scales of survey data (kernlab's CoIL 2000 columns, "0%",
   * "1 - 10%", ...) were integers 0..9 in the original and keep their order this way.
   */
  public DataTable withOrderedAsCodes(String keep) {
    List<Column> out = new ArrayList<>();
    for (Column c : columns) {
      if (c instanceof Categorical cat && cat.ordered() && !c.name().equals(keep)) {
        double[] v = new double[rows];
        for (int i = 0; i < rows; i++) {
          v[i] = cat.codes()[i] < 0 ? Double.NaN : cat.codes()[i];
        }
        out.add(new Numeric(c.name(), v));
      } else {
        out.add(c);
      }
    }
    return new DataTable(source, out, rows);
  }

  /** Rows {@code from} (inclusive) to {@code to} (exclusive): a file's own train/test parts. */
  public DataTable rowRange(int from, int to) {
    int[] idx = new int[to - from];
    for (int i = 0; i < idx.length; i++) {
      idx[i] = from + i;
    }
    return select(idx);
  }

  private DataTable select(int[] keep) {
    List<Column> out = new ArrayList<>();
    for (Column c : columns) {
      if (c instanceof Numeric num) {
        double[] v = new double[keep.length];
        for (int i = 0; i < keep.length; i++) {
          v[i] = num.values()[keep[i]];
        }
        out.add(new Numeric(c.name(), v));
      } else {
        Categorical cat = (Categorical) c;
        int[] v = new int[keep.length];
        for (int i = 0; i < keep.length; i++) {
          v[i] = cat.codes()[keep[i]];
        }
        out.add(new Categorical(c.name(), cat.levels(), v, cat.ordered()));
      }
    }
    return new DataTable(source, out, keep.length);
  }

  /** The rows without a missing value in any column. */
  public DataTable completeRows() {
    int[] keep = new int[rows];
    int k = 0;
    for (int i = 0; i < rows; i++) {
      boolean complete = true;
      for (Column c : columns) {
        if (c.missing(i)) {
          complete = false;
          break;
        }
      }
      if (complete) {
        keep[k++] = i;
      }
    }
    return k == rows ? this : select(java.util.Arrays.copyOf(keep, k));
  }

  /** The number of rows with some missing value. */
  public int incompleteRows() {
    return rows - completeRows().rows();
  }

  @Override
  public String toString() {
    return source + " (" + rows + " rows, columns " + names() + ")";
  }
}
