package dev.helmet.privacy.event;

import java.util.Locale;

/**
 * Which data sets count as neighbours. Sensitivities are stated for one relation; a Gaussian
 * mechanism's guarantee is the same under both once its sensitivity is computed for the relation
 * in use. Helmet's learner sensitivities ({@code 2G/(Lambda n)}) are for replacing one record.
 * Guarantees under different relations are not comparable: eps under add-or-remove implies about
 * 2 eps under replace-one (a replacement is a removal and an addition), so comparisons of two
 * mechanisms state both under the same relation.
 */
public enum NeighbourRelation {
  /** D' is D with one record added or removed (unbounded DP). */
  ADD_OR_REMOVE_ONE("add-remove", "add or remove one record"),
  /** D' is D with one record replaced by another (bounded DP). */
  REPLACE_ONE("replace-one", "replace one record");

  private final String id;
  private final String words;

  NeighbourRelation(String id, String words) {
    this.id = id;
    this.words = words;
  }

  /** The command-line and configuration name: {@code add-remove} or {@code replace-one}. */
  public String id() {
    return id;
  }

  /** In words, for printed guarantees: "replace one record". */
  public String describe() {
    return words;
  }

  /** Parses {@code add-remove} or {@code replace-one} (also the enum names, any case). */
  public static NeighbourRelation parse(String s) {
    for (NeighbourRelation r : values()) {
      if (r.id.equalsIgnoreCase(s) || r.name().equalsIgnoreCase(s.replace('-', '_'))) {
        return r;
      }
    }
    if (s.toLowerCase(Locale.ROOT).replace('_', '-').equals("add-or-remove-one")) {
      return ADD_OR_REMOVE_ONE;
    }
    throw new IllegalArgumentException("neighbours must be add-remove or replace-one. Provided value: " + s);
  }
}
