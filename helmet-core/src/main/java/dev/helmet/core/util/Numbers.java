package dev.helmet.core.util;

import java.util.Locale;

/** Numbers as every command prints them. */
public final class Numbers {
  private Numbers() {}

  /**
   * {@code v} for people: up to four decimals without trailing zeros (0.5, 1.2346), three
   * significant digits in scientific form when tiny or huge (1.00e-05), "infinity" for +inf. Always
   * with a decimal point, whatever the machine's locale.
   */
  public static String fmt(double v) {
    if (!Double.isFinite(v)) {
      return v > 0 ? "infinity" : String.valueOf(v);
    }
    if (v != 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e6)) {
      return String.format(Locale.ROOT, "%.3g", v);
    }
    String s = String.format(Locale.ROOT, "%.4f", v).replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }
}
