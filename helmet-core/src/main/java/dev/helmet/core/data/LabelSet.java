package dev.helmet.core.data;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The classes of a classification task: label names in a fixed order; class {@code k} is
 * {@code names().get(k)}. Numeric names sort numerically ({@code 2 < 10}), others lexically, so
 * the same files always give the same class indices.
 */
public final class LabelSet {
  private final List<String> names;
  private final Map<String, Integer> index;

  private LabelSet(List<String> names) {
    this.names = List.copyOf(names);
    this.index = new HashMap<>();
    for (int i = 0; i < this.names.size(); i++) {
      if (index.put(this.names.get(i), i) != null) {
        throw new IllegalArgumentException("duplicate label name: " + this.names.get(i));
      }
    }
  }

  /** Labels in exactly the given order. */
  public static LabelSet of(List<String> names) {
    if (names.isEmpty()) {
      throw new IllegalArgumentException("a label set needs at least one label");
    }
    return new LabelSet(names);
  }

  /** Labels {@code "0"}, {@code "1"}, ..., {@code k-1}. */
  public static LabelSet ofIntegers(int k) {
    List<String> names = new ArrayList<>(k);
    for (int i = 0; i < k; i++) {
      names.add(Integer.toString(i));
    }
    return of(names);
  }

  /** The distinct labels observed in a file, numeric ones in numeric order. */
  public static LabelSet fromObserved(Collection<String> observed) {
    boolean numeric = observed.stream().allMatch(LabelSet::isNumber);
    Comparator<String> order =
        numeric
            ? Comparator.comparingDouble(Double::parseDouble).thenComparing(Comparator.naturalOrder())
            : Comparator.naturalOrder();
    TreeSet<String> sorted = new TreeSet<>(order);
    sorted.addAll(observed);
    return of(new ArrayList<>(sorted));
  }

  private static boolean isNumber(String s) {
    try {
      Double.parseDouble(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** The class index of a label name, or -1 if unknown. */
  public int indexOf(String name) {
    Integer i = index.get(name);
    return i == null ? -1 : i;
  }

  /** The name of class {@code k}. */
  public String name(int k) {
    return names.get(k);
  }

  public List<String> names() {
    return names;
  }

  public int size() {
    return names.size();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LabelSet other && names.equals(other.names);
  }

  @Override
  public int hashCode() {
    return names.hashCode();
  }

  @Override
  public String toString() {
    return names.toString();
  }
}
