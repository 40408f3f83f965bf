package dev.helmet.protocols.algorithm;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The registry: every {@link Algorithm} on the class path, found through {@link ServiceLoader}
 * ({@code META-INF/services/dev.helmet.protocols.algorithm.Algorithm}, one line per algorithm), in
 * the order the service files list them.
 */
public final class Algorithms {
  /** The algorithm a configuration that names none runs. */
  public static final String DEFAULT = "helmet";

  private static volatile List<Algorithm> all;

  private Algorithms() {}

  /** Every registered algorithm. */
  public static List<Algorithm> all() {
    List<Algorithm> a = all;
    if (a == null) {
      List<Algorithm> found = new ArrayList<>();
      for (Algorithm x : ServiceLoader.load(Algorithm.class, Algorithms.class.getClassLoader())) {
        for (Algorithm y : found) {
          if (y.id().equals(x.id())) {
            throw new IllegalStateException("two algorithms are registered as " + x.id());
          }
        }
        found.add(x);
      }
      all = a = List.copyOf(found);
    }
    return a;
  }

  /** The algorithm named {@code id} ("" or null: the default). */
  public static Algorithm named(String id) {
    String name = id == null || id.isEmpty() ? DEFAULT : id;
    for (Algorithm a : all()) {
      if (a.id().equals(name)) {
        return a;
      }
    }
    throw new IllegalArgumentException("unknown algorithm '" + name + "'; known: " + ids() + didYouMean(name));
  }

  /**
   * " (did you mean dp-fl?)" for a name that is a registered one but for case, dashes and
   * underscores or at most two typed characters; "" otherwise.
   */
  static String didYouMean(String name) {
    String plain = squash(name);
    String best = null;
    int bestDistance = 3;
    for (Algorithm a : all()) {
      int d = squash(a.id()).equals(plain) ? 0 : distance(plain, squash(a.id()));
      if (d < bestDistance) {
        best = a.id();
        bestDistance = d;
      }
    }
    return best == null || plain.length() <= bestDistance ? "" : " (did you mean " + best + "?)";
  }

  private static String squash(String s) {
    return s.toLowerCase(java.util.Locale.ROOT).replace("-", "").replace("_", "");
  }

  /** The edit distance (insertions, deletions, substitutions) between a and b. */
  private static int distance(String a, String b) {
    int[] row = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      row[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      int diagonal = row[0];
      row[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int above = row[j];
        row[j] = Math.min(Math.min(row[j] + 1, row[j - 1] + 1), diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length()];
  }

  /** The registered names, comma separated. */
  public static String ids() {
    return String.join(", ", all().stream().map(Algorithm::id).toList());
  }
}
