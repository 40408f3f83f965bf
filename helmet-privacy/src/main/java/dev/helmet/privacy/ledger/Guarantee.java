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
   * the next step above its binary value.
   */
  public static String format(double v) {
    if (v == Double.POSITIVE_INFINITY) {
      return "infinity";
    }
    if (!Double.isFinite(v)) {
      return String.valueOf(v);
    }
    java.math.BigDecimal d = java.math.BigDecimal.valueOf(v);
    if (v != 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e6)) {
      java.math.BigDecimal up = d.round(new java.math.MathContext(3, java.math.RoundingMode.CEILING));
      return String.format(java.util.Locale.ROOT, "%.2e", up);
    }
    String s = d.setScale(4, java.math.RoundingMode.CEILING).toPlainString().replaceAll("0+$", "");
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }
}
