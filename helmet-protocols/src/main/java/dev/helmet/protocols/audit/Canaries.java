package dev.helmet.protocols.audit;

import dev.helmet.protocols.algorithm.AlgorithmSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The registry of canaries: every {@link Canary} on the class path, in the order the service files
 * list them.
 */
public final class Canaries {
  private static volatile List<Canary> all;

  private Canaries() {}

  /** Every registered canary. */
  public static List<Canary> all() {
    List<Canary> a = all;
    if (a == null) {
      List<Canary> found = new ArrayList<>();
      for (Canary c : ServiceLoader.load(Canary.class, Canaries.class.getClassLoader())) {
        if (found.stream().anyMatch(x -> x.id().equals(c.id()))) {
          throw new IllegalStateException("two canaries are registered as " + c.id());
        }
        found.add(c);
      }
      all = a = List.copyOf(found);
    }
    return a;
  }

  /** The canaries that apply to {@code spec}. */
  public static List<Canary> applicable(AlgorithmSpec spec) {
    return all().stream().filter(c -> c.notApplicable(spec) == null).toList();
  }

  /** The canary named {@code id}, refused with the known names and why it does not apply when it does not. */
  public static Canary named(String id, AlgorithmSpec spec) {
    for (Canary c : all()) {
      if (c.id().equals(id)) {
        String why = c.notApplicable(spec);
        if (why != null) {
          throw new IllegalArgumentException("canary " + id + " does not apply to " + spec.algorithm().id() + ": "
              + why);
        }
        return c;
      }
    }
    throw new IllegalArgumentException("unknown canary '" + id + "'; known: "
        + String.join(", ", all().stream().map(Canary::id).toList()));
  }
}
