package dev.helmet.privacy.ledger;

import dev.helmet.core.util.Checks;

/**
 * One (eps, delta) guarantee and whom it holds against. A run can have several: a model released
 * through a summation in the clear is (0.5, 1e-5)-DP for anyone holding the model, but each party's
 * noised model, which the server saw, is only (18, 1e-5)-DP for that party's records.
 *
 * @param against who the guarantee protects against, in words (e.g. "anyone holding the released
 *     model, and the server colluding with up to 500 parties")
 * @param neighbours the neighbouring relation, in words (e.g. "replace one record")
 * @param unit the protected unit: record, group of N records, user
 * @param epsilon eps (infinite when there is no guarantee)
 * @param delta delta
 */
public record Guarantee(String against, String neighbours, String unit, double epsilon, double delta) {
  public Guarantee {
    Checks.notNull("against", against);
    Checks.notNull("neighbours", neighbours);
    Checks.notNull("unit", unit);
    Checks.require(epsilon >= 0 && !Double.isNaN(epsilon), "epsilon must be >= 0. Provided value: " + epsilon);
    Checks.require(delta >= 0 && delta <= 1, "delta must be in [0, 1]. Provided value: " + delta);
  }

  /** "(eps = 0.5, delta = 1e-05) per record (replace one record) against anyone holding ..." */
  public String describe() {
    return String.format(java.util.Locale.ROOT, "(eps = %s, delta = %s) per %s (neighbours: %s), against %s",
        format(epsilon), format(delta), unit, neighbours, against);
  }

  /**
   * A bound as a short number, rounded <em>up</em> (a printed eps or delta is never below the one
   * computed): 4 decimals, or 3 significant digits below 1e-3 and from 1e6; "infinity" for no
   * guarantee. The double's shortest decimal form is what is rounded, so 1e-5 prints 1.00e-05, not
   * the next step above its binary value. The one rule for every eps and delta a person reads (the
   * CLI, the status page); JSON keeps the full double.
   */
  public static String format(double v) {
    return format(v, java.math.RoundingMode.CEILING);
  }

  /**
   * What is <em>left</em> of a budget, by {@link #format}'s rule but rounded down, so that the
   * printed room is never more than there is (1.4999999983 spent of 2 prints 1.5 spent and 0.5 left).
   */
  public static String formatLeft(double v) {
    return format(v, java.math.RoundingMode.FLOOR);
  }

  private static String format(double v, java.math.RoundingMode mode) {
    if (v == Double.POSITIVE_INFINITY) {
      return "infinity";
    }
    if (!Double.isFinite(v)) {
      return String.valueOf(v);
    }
    java.math.BigDecimal d = java.math.BigDecimal.valueOf(v);
    if (v != 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e6)) {
      java.math.BigDecimal r = d.round(new java.math.MathContext(3, mode));
      return String.format(java.util.Locale.ROOT, "%.2e", r);
    }
    String s = d.setScale(4, mode).toPlainString();
    s = s.contains(".") ? s.replaceAll("0+$", "") : s;
    s = s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    return s.equals("-0") ? "0" : s;
  }
}
