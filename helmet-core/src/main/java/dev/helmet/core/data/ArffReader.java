package dev.helmet.core.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Reads Weka's ARFF files into a {@link DataTable}: {@code @relation}, then {@code @attribute
 * NAME TYPE} lines with TYPE {@code numeric}, {@code real}, {@code integer}, a nominal list
 * {@code {a, 'b c', ...}} or {@code string}, then {@code @data} rows, dense (comma separated) or
 * sparse ({@code {index value, ...}}, absent values 0 or the first nominal level, as Weka reads
 * them). Names and values may be quoted with {@code '} or {@code "} (backslash escapes), {@code ?}
 * is a missing value and lines starting with {@code %} are comments. Keywords are
 * case-insensitive. Nominal levels keep the header's order; string attributes become categories
 * in sorted order of the values seen (their levels therefore come from the data, unlike nominal
 * ones). Dates and relational attributes are refused.
 */
public final class ArffReader {
  private ArffReader() {}

  private record Attribute(String name, List<String> levels, boolean string) {}

  /**
   * @throws DataFormatException when the file is missing, unreadable or malformed; the message
   *     names the file, the line and the problem
   */
  public static DataTable read(Path path) {
    String source = path.getFileName().toString();
    List<Attribute> attrs = new ArrayList<>();
    List<String[]> rows = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(DataReader.openText(path))) {
      String line;
      int lineNo = 0;
      boolean data = false;
      while ((line = in.readLine()) != null) {
        lineNo++;
        String t = line.strip();
        if (t.isEmpty() || t.startsWith("%")) {
          continue;
        }
        String where = source + " line " + lineNo;
        if (!data) {
          String lower = t.toLowerCase(Locale.ROOT);
          if (lower.startsWith("@relation")) {
            continue;
          } else if (lower.startsWith("@attribute")) {
            attrs.add(attribute(t.substring("@attribute".length()), where, attrs));
          } else if (lower.startsWith("@data")) {
            if (attrs.isEmpty()) {
              throw new DataFormatException(where + ": @data before any @attribute");
            }
            data = true;
          } else {
            throw new DataFormatException(where + ": expected @relation, @attribute or @data, found '"
                + abbreviate(t) + "'");
          }
        } else {
          rows.add(t.startsWith("{") ? sparse(t, where, attrs) : dense(t, where, attrs.size()));
        }
      }
      if (!data) {
        throw new DataFormatException(source + ": no @data section (not an ARFF file, or truncated)");
      }
    } catch (IOException e) {
      throw new DataFormatException(source + ": cannot read: " + e.getMessage(), e);
    }
    if (rows.isEmpty()) {
      throw new DataFormatException(source + ": no data rows");
    }
    return table(source, attrs, rows);
  }

  private static Attribute attribute(String rest, String where, List<Attribute> before) {
    Cursor c = new Cursor(rest, where);
    c.skipSpace();
    String name = c.token(" \t{");
    if (name == null || name.isEmpty()) {
      throw new DataFormatException(where + ": @attribute without a name");
    }
    for (Attribute a : before) {
      if (a.name.equals(name)) {
        throw new DataFormatException(where + ": attribute '" + name + "' is declared twice");
      }
    }
    c.skipSpace();
    String type = c.rest();
    if (type.startsWith("{")) {
      if (!type.endsWith("}")) {
        throw new DataFormatException(where + ": nominal attribute '" + name + "' has no closing '}'");
      }
      List<String> levels = split(type.substring(1, type.length() - 1), where);
      if (levels.isEmpty() || levels.contains(null)) {
        throw new DataFormatException(where + ": nominal attribute '" + name + "' needs levels other than '?'");
      }
      if (levels.stream().distinct().count() != levels.size()) {
        throw new DataFormatException(where + ": nominal attribute '" + name + "' lists a level twice");
      }
      return new Attribute(name, List.copyOf(levels), false);
    }
    String kind = type.toLowerCase(Locale.ROOT);
    return switch (kind) {
      case "numeric", "real", "integer" -> new Attribute(name, null, false);
      case "string" -> new Attribute(name, null, true);
      default -> throw new DataFormatException(where + ": attribute '" + name + "' has type '" + abbreviate(type)
          + "'; only numeric, real, integer, string and nominal {...} are supported");
    };
  }

  private static String[] dense(String line, String where, int n) {
    List<String> v = split(line, where);
    if (v.size() != n) {
      throw new DataFormatException(where + ": expected " + n + " values (one per @attribute), found " + v.size());
    }
    return v.toArray(new String[0]);
  }

  private static String[] sparse(String line, String where, List<Attribute> attrs) {
    if (!line.endsWith("}")) {
      throw new DataFormatException(where + ": sparse row without a closing '}'");
    }
    String[] row = new String[attrs.size()];
    for (int j = 0; j < row.length; j++) {
      Attribute a = attrs.get(j);
      row[j] = a.levels != null ? a.levels.get(0) : a.string ? "" : "0";
    }
    for (String pair : split(line.substring(1, line.length() - 1), where)) {
      if (pair == null) {
        throw new DataFormatException(where + ": sparse entry '?' has no index");
      }
      Cursor c = new Cursor(pair, where);
      String idx = c.token(" \t");
      c.skipSpace();
      int j;
      try {
        j = Integer.parseInt(idx);
      } catch (NumberFormatException e) {
        throw new DataFormatException(where + ": sparse index '" + idx + "' is not a number");
      }
      if (j < 0 || j >= row.length) {
        throw new DataFormatException(where + ": sparse index " + j + " is outside the " + row.length + " attributes");
      }
      boolean quoted = c.quoted();
      String value = c.token("");
      row[j] = !quoted && "?".equals(value) ? null : value;
    }
    return row;
  }

  /** Splits comma-separated values, unquoting them; an unquoted {@code ?} becomes null. */
  private static List<String> split(String s, String where) {
    List<String> out = new ArrayList<>();
    Cursor c = new Cursor(s, where);
    c.skipSpace();
    if (c.atEnd()) {
      return out;
    }
    while (true) {
      c.skipSpace();
      boolean quoted = c.quoted();
      String v = c.token(",");
      c.skipSpace();
      out.add(!quoted && "?".equals(v) ? null : v);
      if (c.atEnd()) {
        return out;
      }
      c.expect(',');
    }
  }

  private static DataTable table(String source, List<Attribute> attrs, List<String[]> rows) {
    int n = rows.size();
    List<DataTable.Column> cols = new ArrayList<>();
    for (int j = 0; j < attrs.size(); j++) {
      Attribute a = attrs.get(j);
      List<String> levels = a.levels;
      if (a.string) {
        TreeSet<String> seen = new TreeSet<>();
        for (String[] r : rows) {
          if (r[j] != null) {
            seen.add(r[j]);
          }
        }
        levels = List.copyOf(seen);
      }
      if (levels != null) {
        Map<String, Integer> index = new HashMap<>();
        for (int k = 0; k < levels.size(); k++) {
          index.put(levels.get(k), k);
        }
        int[] codes = new int[n];
        for (int i = 0; i < n; i++) {
          String v = rows.get(i)[j];
          Integer k = v == null ? Integer.valueOf(-1) : index.get(v);
          if (k == null) {
            throw new DataFormatException(source + " data row " + (i + 1) + " attribute '" + a.name + "': value '"
                + abbreviate(v) + "' is not one of its levels " + levels);
          }
          codes[i] = k;
        }
        cols.add(new DataTable.Categorical(a.name, levels, codes, false));
      } else {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
          String s = rows.get(i)[j];
          v[i] = s == null ? Double.NaN : number(s, source + " data row " + (i + 1) + " attribute '" + a.name + "'");
        }
        cols.add(new DataTable.Numeric(a.name, v));
      }
    }
    return new DataTable(source, cols, n);
  }

  private static double number(String s, String where) {
    double d;
    try {
      d = Double.parseDouble(s.trim());
    } catch (NumberFormatException e) {
      throw new DataFormatException(where + ": '" + abbreviate(s) + "' is not a number");
    }
    if (!Double.isFinite(d)) {
      throw new DataFormatException(where + ": value '" + abbreviate(s) + "' is not a finite number");
    }
    return d;
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }

  /** A position in one line, reading plain or quoted tokens. */
  private static final class Cursor {
    private final String s;
    private final String where;
    private int i;

    Cursor(String s, String where) {
      this.s = s;
      this.where = where;
    }

    boolean atEnd() {
      return i >= s.length();
    }

    void skipSpace() {
      while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
        i++;
      }
    }

    boolean quoted() {
      return i < s.length() && (s.charAt(i) == '\'' || s.charAt(i) == '"');
    }

    void expect(char ch) {
      if (atEnd() || s.charAt(i) != ch) {
        throw new DataFormatException(where + ": expected '" + ch + "' at character " + (i + 1) + ", found "
            + (atEnd() ? "the end of the line" : "'" + s.charAt(i) + "'"));
      }
      i++;
    }

    String rest() {
      return s.substring(i).strip();
    }

    /** A quoted string, or the text up to one of {@code stops}, trimmed. */
    String token(String stops) {
      if (quoted()) {
        char q = s.charAt(i++);
        StringBuilder b = new StringBuilder();
        while (true) {
          if (atEnd()) {
            throw new DataFormatException(where + ": unterminated " + q + "quoted" + q + " value");
          }
          char ch = s.charAt(i++);
          if (ch == q) {
            return b.toString();
          }
          if (ch == '\\' && !atEnd()) {
            char e = s.charAt(i++);
            b.append(switch (e) {
              case 'n' -> '\n';
              case 't' -> '\t';
              case 'r' -> '\r';
              default -> e;
            });
          } else {
            b.append(ch);
          }
        }
      }
      int start = i;
      while (i < s.length() && stops.indexOf(s.charAt(i)) < 0) {
        i++;
      }
      return s.substring(start, i).strip();
    }
  }
}
