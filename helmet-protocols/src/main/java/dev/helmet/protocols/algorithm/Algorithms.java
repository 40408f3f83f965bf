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
    throw new IllegalArgumentException("unknown algorithm " + name + "; registered: " + ids());
  }

  /** The registered names, comma separated. */
  public static String ids() {
    return String.join(", ", all().stream().map(Algorithm::id).toList());
  }
}
