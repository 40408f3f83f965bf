package dev.helmet.core.data;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Public per-feature bounds of a built-in tabular data set: one {@code [lower, upper]} per encoded
 * feature column (one-hot levels included), in the order of {@link TabularData#columnNames()}, each
 * with its source (the data set's documentation, a coding scheme or a domain fact; where the
 * documentation gives no range, the source says the bound is a chosen cap). Never fitted to the
 * data. A regression set's bounds also give a public range of the response.
 *
 * <p>They live in the resource {@code bounds/<id>.yaml} beside this class, in a fixed subset of
 * YAML: comment lines, {@code dataset: ID}, {@code columns:} with entries {@code - name: "..."},
 * {@code lower: N}, {@code upper: N}, {@code source: "..."}, and for regression a {@code target:}
 * block with {@code lower}, {@code upper} and {@code source}. Strings are plain or double-quoted.
 */
public record DocumentedBounds(String dataset, List<String> columns, List<String> sources, double[] lower,
    double[] upper, double targetLower, double targetUpper, String targetSource) {
  /** Checks and copies the bounds; a {@link DataFormatException} names the column at fault. */
  public DocumentedBounds {
    columns = List.copyOf(columns);
    sources = List.copyOf(sources);
    lower = lower.clone();
    upper = upper.clone();
    int n = columns.size();
    if (n == 0 || sources.size() != n || lower.length != n || upper.length != n) {
      throw new DataFormatException(n + " columns, " + sources.size() + " sources, " + lower.length + " lower and "
          + upper.length + " upper bounds (need as many of each, at least one)");
    }
    for (int j = 0; j < n; j++) {
      String where = "column " + (j + 1) + " '" + columns.get(j) + "'";
      if (columns.indexOf(columns.get(j)) != j) {
        throw new DataFormatException(where + ": the name appears twice");
      }
      check(lower[j], upper[j], where);
    }
    if (targetSource != null || !Double.isNaN(targetLower) || !Double.isNaN(targetUpper)) {
      check(targetLower, targetUpper, "target");
    }
  }

  /** The bounds of the built-in data set {@code id} (e.g. {@code "pima"}), or null when it has none. */
  public static DocumentedBounds forDataset(String id) {
    if (id == null || !id.matches("[a-z0-9][a-z0-9-]*")) {
      return null;
    }
    String file = id + ".yaml";
    try (InputStream in = DocumentedBounds.class.getResourceAsStream("bounds/" + file)) {
      if (in == null) {
        return null;
      }
      DocumentedBounds b = parse(file, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      if (!b.dataset.equals(id)) {
        throw new DataFormatException(file + ": names the data set '" + b.dataset + "', not '" + id + "'");
      }
      return b;
    } catch (IOException e) {
      throw new DataFormatException(file + ": cannot read: " + e.getMessage(), e);
    }
  }

  /** Reads the text of a bounds file; {@code file} names it in error messages. */
  static DocumentedBounds parse(String file, String text) {
    String dataset = null;
    String section = "";
    List<Map<String, String>> cols = new ArrayList<>();
    Map<String, String> target = null;
    Map<String, String> entry = null;
    Set<String> seen = new HashSet<>();
    String[] lines = text.split("\r?\n");
    for (int i = 0; i < lines.length; i++) {
      String t = lines[i].strip();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      String where = file + " line " + (i + 1);
      boolean top = !Character.isWhitespace(lines[i].charAt(0));
      if (!top && section.equals("columns") && t.startsWith("- ")) {
        entry = new TreeMap<>();
        cols.add(entry);
        t = t.substring(2).strip();
      }
      int colon = t.indexOf(':');
      if (colon <= 0) {
        throw fail(where, "expected 'key: value'");
      }
      String key = t.substring(0, colon).strip();
      String value = scalar(t.substring(colon + 1), where);
      if (top) {
        if (!Set.of("dataset", "columns", "target").contains(key)) {
          throw fail(where, "unknown key '" + key + "' (expected dataset, columns, target)");
        } else if (!seen.add(key) || !key.equals("dataset") && !value.isEmpty()) {
          throw fail(where, "'" + key + ":' must come once" + (key.equals("dataset") ? "" : ", its entries below it"));
        }
        dataset = key.equals("dataset") ? value : dataset;
        entry = key.equals("target") ? (target = new TreeMap<>()) : null;
        section = key;
      } else if (entry == null) {
        throw fail(where, "indented line outside a column entry or the target");
      } else if (!Set.of("name", "lower", "upper", "source").contains(key) || entry == target && key.equals("name")) {
        throw fail(where, "unknown key '" + key + "'");
      } else if (entry.put(key, value) != null) {
        throw fail(where, "'" + key + "' given twice in one entry");
      }
    }
    if (dataset == null || dataset.isEmpty()) {
      throw new DataFormatException(file + ": no 'dataset:' line");
    }
    List<String> names = new ArrayList<>();
    List<String> srcs = new ArrayList<>();
    double[] lo = new double[cols.size()];
    double[] hi = new double[cols.size()];
    for (int j = 0; j < cols.size(); j++) {
      Map<String, String> c = cols.get(j);
      String where = file + ": column " + (j + 1) + (c.containsKey("name") ? " '" + c.get("name") + "'" : "");
      names.add(required(c, "name", where));
      lo[j] = number(c, "lower", where);
      hi[j] = number(c, "upper", where);
      srcs.add(required(c, "source", where));
    }
    String where = file + ": target";
    try {
      return new DocumentedBounds(dataset, names, srcs, lo, hi, target == null ? Double.NaN : number(target, "lower",
          where), target == null ? Double.NaN : number(target, "upper", where),
          target == null ? null : required(target, "source", where));
    } catch (DataFormatException e) {
      throw e.getMessage().startsWith(file) ? e : new DataFormatException(file + ": " + e.getMessage(), e);
    }
  }

  /** A plain scalar, or a double-quoted one ending the line. */
  private static String scalar(String raw, String where) {
    String s = raw.strip();
    if (!s.startsWith("\"")) {
      return s;
    }
    StringBuilder out = new StringBuilder();
    for (int k = 1; k < s.length(); k++) {
      char c = s.charAt(k);
      if (c == '"' && k == s.length() - 1) {
        return out.toString();
      } else if (c == '"' || c == '\\' && (k + 2 >= s.length() || "\"\\".indexOf(s.charAt(k + 1)) < 0)) {
        throw fail(where, "a quoted string must end the line, with only the escapes \\\" and \\\\ inside");
      }
      out.append(c == '\\' ? s.charAt(++k) : c);
    }
    throw fail(where, "unterminated quoted string");
  }

  private static String required(Map<String, String> entry, String key, String where) {
    String v = entry.get(key);
    if (v == null || v.isEmpty()) {
      throw fail(where, "missing '" + key + "'");
    }
    return v;
  }

  private static double number(Map<String, String> entry, String key, String where) {
    String v = required(entry, key, where);
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw fail(where, key + " '" + v + "' is not a number");
    }
  }

  private static void check(double lo, double hi, String where) {
    if (!Double.isFinite(lo) || !Double.isFinite(hi) || lo > hi) {
      throw fail(where, "bounds must be finite with lower <= upper, got lower " + lo + ", upper " + hi);
    }
  }

  private static DataFormatException fail(String where, String problem) {
    return new DataFormatException(where + ": " + problem);
  }

  /** Each feature column's lower bound (a copy). */
  @Override
  public double[] lower() {
    return lower.clone();
  }

  /** Each feature column's upper bound (a copy). */
  @Override
  public double[] upper() {
    return upper.clone();
  }
}
