package dev.helmet.protocols.privacy;

import dev.helmet.core.util.Checks;

/**
 * What a privacy guarantee protects (Helmet Cor. 5.4, 5.5).
 *
 * @param unit one record, a group of records, or a party's whole data set
 * @param groupSize Upsilon, the group size for {@link Unit#GROUP} (1 otherwise)
 */
public record Protection(Unit unit, int groupSize) {
  /** The protected unit. */
  public enum Unit {
    /** One record replaced. */
    RECORD,
    /** Up to {@code groupSize} records of one party replaced. */
    GROUP,
    /** A party's whole local data set replaced (user-level DP). */
    USER
  }

  public Protection {
    Checks.notNull("protection unit", unit);
    Checks.positive("group size", groupSize);
    if (unit != Unit.GROUP && groupSize != 1) {
      throw new IllegalArgumentException("group size applies to group protection only");
    }
  }

  /** Record-level protection, the default. */
  public static Protection record() {
    return new Protection(Unit.RECORD, 1);
  }

  /** Protection of groups of {@code size} records of one party. */
  public static Protection group(int size) {
    return size == 1 ? record() : new Protection(Unit.GROUP, size);
  }

  /** Protection of a party's whole data set. */
  public static Protection user() {
    return new Protection(Unit.USER, 1);
  }

  /** A short description: {@code record}, {@code group of 5 records}, {@code user}. */
  public String describe() {
    return switch (unit) {
      case RECORD -> "record";
      case GROUP -> "group of " + groupSize + " records";
      case USER -> "user";
    };
  }
}
