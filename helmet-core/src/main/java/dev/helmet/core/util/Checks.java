package dev.helmet.core.util;

/**
 * Parameter checks shared by every module, with one message template: the parameter, the allowed
 * range and the provided value, e.g. {@code "epsilon must be > 0 and finite. Provided value: -1.0"}.
 * Every check throws {@link IllegalArgumentException}; the CLI prints its message as the one-line
 * error a user sees.
 */
public final class Checks {
  private Checks() {}

  /** Requires {@code value > 0} and finite. */
  public static double positive(String name, double value) {
    if (!(value > 0) || !Double.isFinite(value)) {
      throw fail(name, "> 0 and finite", value);
    }
    return value;
  }

  /** Requires {@code value >= 0} and finite. */
  public static double nonNegative(String name, double value) {
    if (!(value >= 0) || !Double.isFinite(value)) {
      throw fail(name, ">= 0 and finite", value);
    }
    return value;
  }

  /** Requires {@code value > 0}. */
  public static int positive(String name, int value) {
    if (value <= 0) {
      throw fail(name, "> 0", value);
    }
    return value;
  }

  /** Requires {@code value >= 0}. */
  public static int nonNegative(String name, int value) {
    if (value < 0) {
      throw fail(name, ">= 0", value);
    }
    return value;
  }

  /** Requires {@code 0 < value < 1}, the range of a DP delta or a probability that must not be 0 or 1. */
  public static double openUnit(String name, double value) {
    if (!(value > 0 && value < 1)) {
      throw fail(name, "in (0, 1)", value);
    }
    return value;
  }

  /** Requires {@code 0 < value <= 1}, e.g. the honest fraction t. */
  public static double halfOpenUnit(String name, double value) {
    if (!(value > 0 && value <= 1)) {
      throw fail(name, "in (0, 1]", value);
    }
    return value;
  }

  /** Requires {@code lo <= value <= hi}. */
  public static int inRange(String name, int value, int lo, int hi) {
    if (value < lo || value > hi) {
      throw fail(name, "in [" + lo + ", " + hi + "]", value);
    }
    return value;
  }

  /** Requires a non-null value. */
  public static <T> T notNull(String name, T value) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must be given. Provided value: null");
    }
    return value;
  }

  /** Requires {@code condition}; otherwise fails with the given message. */
  public static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }

  private static IllegalArgumentException fail(String name, String range, Object value) {
    return new IllegalArgumentException(name + " must be " + range + ". Provided value: " + value);
  }
}
