package dev.helmet.privacy.calculator;

/** Numbers in the calculators' sentences, as the rest of the command line prints them. */
final class Text {
  private Text() {}

  /** Four decimals without trailing zeros; three significant digits below 1e-3 and from 1e6. */
  static String fmt(double v) {
    if (!Double.isFinite(v)) {
      return v > 0 ? "infinity" : String.valueOf(v);
    }
    if (v != 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e6)) {
      return String.format("%.3g", v);
    }
    String s = String.format("%.4f", v).replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }
}
