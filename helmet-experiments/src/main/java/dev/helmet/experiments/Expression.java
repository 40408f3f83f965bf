package dev.helmet.experiments;

/**
 * A setting that depends on the cell: arithmetic in {@code records}, the cell's number of training
 * records (parties x per party, fixed by the configuration, so public). Numbers, {@code records},
 * {@code + - * /}, parentheses and {@code min(a, b)}, {@code max(a, b)}: the papers' DP-SGD batch of
 * 1024 records is {@code min(1, 1024 / records)} as a sampling rate.
 */
final class Expression {
  private final String text;
  private final double records;
  private int at;

  private Expression(String text, double records) {
    this.text = text;
    this.records = records;
  }

  /** The value of {@code text} for {@code records}. */
  static double evaluate(String text, long records) {
    Expression e = new Expression(text.replace(" ", ""), records);
    double v = e.sum();
    if (e.at != e.text.length()) {
      throw e.error("unexpected '" + e.text.charAt(e.at) + "'");
    }
    if (!Double.isFinite(v)) {
      throw e.error("is not a finite number for " + records + " records");
    }
    return v;
  }

  private IllegalArgumentException error(String why) {
    return new IllegalArgumentException("the expression '" + text + "' " + why
        + " (numbers, records, + - * /, parentheses, min, max)");
  }

  private double sum() {
    double v = product();
    while (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) {
      char op = text.charAt(at++);
      double r = product();
      v = op == '+' ? v + r : v - r;
    }
    return v;
  }

  private double product() {
    double v = atom();
    while (at < text.length() && (text.charAt(at) == '*' || text.charAt(at) == '/')) {
      char op = text.charAt(at++);
      double r = atom();
      v = op == '*' ? v * r : v / r;
    }
    return v;
  }

  private double atom() {
    if (text.startsWith("records", at)) {
      at += "records".length();
      return records;
    }
    for (String f : new String[] {"min(", "max("}) {
      if (text.startsWith(f, at)) {
        at += f.length();
        double a = sum();
        expect(',');
        double b = sum();
        expect(')');
        return f.startsWith("min") ? Math.min(a, b) : Math.max(a, b);
      }
    }
    if (at < text.length() && text.charAt(at) == '(') {
      at++;
      double v = sum();
      expect(')');
      return v;
    }
    int start = at;
    while (at < text.length() && (Character.isDigit(text.charAt(at)) || text.charAt(at) == '.'
        || text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
      at++;
    }
    if (start == at) {
      throw error(at < text.length() ? "has '" + text.charAt(at) + "' where a number was expected" : "ends early");
    }
    try {
      return Double.parseDouble(text.substring(start, at));
    } catch (NumberFormatException e) {
      throw error("has the malformed number " + text.substring(start, at));
    }
  }

  private void expect(char c) {
    if (at >= text.length() || text.charAt(at) != c) {
      throw error("needs '" + c + "' at position " + at);
    }
    at++;
  }
}
