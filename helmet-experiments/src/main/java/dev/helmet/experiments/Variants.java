package dev.helmet.experiments;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.privacy.Protection;
import dev.helmet.protocols.config.StrictNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An experiment's {@code variants:}: each names a registered algorithm and gives its settings as in
 * a session file, where any value may be a list; the lists span the variant's grid (their product).
 *
 * <pre>
 * variants:
 *   - name: softmax
 *     algorithm: helmet
 *     settings: {learner: {kind: softmax, lambda: [0.5, 1], radius: [1, 2]}, noise: gaussian}
 * </pre>
 */
final class Variants {
  private Variants() {}

  /** The keys of older experiment files that still read as variants (one per algorithm that had one). */
  static List<String> legacySections() {
    return LegacySections.keys();
  }

  static List<ExperimentConfig.Variant> parse(StrictNode n) {
    List<ExperimentConfig.Variant> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    // Experiment files written before variants: each old section stands for variants (LegacySections).
    for (String key : LegacySections.keys()) {
      if (n.has(key)) {
        for (LegacySections.Legacy v : LegacySections.read(key, n.child(key))) {
          List<ObjectNode> points = new ArrayList<>();
          expand(v.settings(), points);
          if (!names.add(v.name())) {
            throw n.error(key, "makes a variant named " + v.name() + " twice");
          }
          out.add(new ExperimentConfig.Variant(v.name(), Algorithms.named(v.algorithm()), v.summation(),
              List.copyOf(points)));
        }
      }
    }
    if (!n.has("variants") && !out.isEmpty()) {
      return List.copyOf(out);
    }
    for (StrictNode v : n.children("variants")) {
      v.allow("name", "algorithm", "summation", "settings", "centralized");
      Algorithm a;
      try {
        a = Algorithms.named(v.string("algorithm", null));
      } catch (IllegalArgumentException e) {
        throw v.error("algorithm", "names an " + e.getMessage());
      }
      String name = v.string("name", a.id());
      if (!names.add(name)) {
        throw v.error("name", "repeats an earlier variant's name: " + name);
      }
      String summation = v.string("summation", "plain");
      if (!summation.equals("plain") && !summation.equals("simulated")) {
        throw v.error("summation", "must be plain or simulated (a secure summation sums exactly: same accuracy). "
            + "Provided value: " + summation);
      }
      StrictNode settings = v.child("settings");
      settings.allow(a.keys().toArray(String[]::new));
      List<ObjectNode> points = new ArrayList<>();
      expand((ObjectNode) settings.json(), points);
      // centralized: one party holds all the records the cell's parties hold (Wang et al.'s baseline
      // for WD-DP: the same data, no distribution).
      out.add(new ExperimentConfig.Variant(name, a, summation, List.copyOf(points), v.bool("centralized", false)));
    }
    return List.copyOf(out);
  }

  /**
   * Configures every point of every variant for every party count, so that a mistyped or
   * out-of-range setting is an error before anything runs (the data's shape is not known yet: the
   * algorithms are configured for a placeholder shape, which no setting depends on).
   */
  static void check(String source, List<ExperimentConfig.Variant> variants, List<Integer> parties, int perParty,
      double epsilon, double delta, double honestFraction) {
    check(source, variants, parties, perParty, epsilon, delta, honestFraction, 1, 2);
  }

  /**
   * As above for data of a known shape (a built-in set's {@code features} and {@code classes}, 1 for
   * regression), so settings that depend on it (per-feature bounds, linreg) are checked too.
   */
  static void check(String source, List<ExperimentConfig.Variant> variants, List<Integer> parties, int perParty,
      double epsilon, double delta, double honestFraction, int features, int classes) {
    for (ExperimentConfig.Variant v : variants) {
      for (ObjectNode point : v.points()) {
        for (int w : parties) {
          try {
            ExperimentRunner.configure(v, resolve(point, (long) w * perParty), new Common(epsilon, delta,
                honestFraction, Protection.record(), 0, features, classes, (long) w * perParty));
          } catch (ExperimentConfig.ConfigException | IllegalArgumentException e) {
            throw new ExperimentConfig.ConfigException(source + ": " + e.getMessage());
          }
        }
      }
    }
  }

  /** Every combination of the lists in {@code node}, in order (the last list varies fastest). */
  static void expand(ObjectNode node, List<ObjectNode> out) {
    String path = firstList(node, "");
    if (path == null) {
      out.add(node);
      return;
    }
    for (JsonNode value : (ArrayNode) at(node, path)) {
      ObjectNode copy = node.deepCopy();
      set(copy, path, value);
      expand(copy, out);
    }
  }

  /** Settings whose lists are values, not grids. */
  private static final java.util.Set<String> VALUE_LISTS = java.util.Set.of("feature_bounds", "target_bounds");

  private static String firstList(JsonNode node, String prefix) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue().isArray()) {
        return prefix + e.getKey();
      }
      // Per-feature bounds are lists by nature (one bound per feature), never grid axes.
      if (e.getValue().isObject() && !VALUE_LISTS.contains(e.getKey())) {
        String inner = firstList(e.getValue(), prefix + e.getKey() + ".");
        if (inner != null) {
          return inner;
        }
      }
    }
    return null;
  }

  private static JsonNode at(JsonNode node, String path) {
    JsonNode n = node;
    for (String k : path.split("\\.")) {
      n = n.get(k);
    }
    return n;
  }

  private static void set(ObjectNode node, String path, JsonNode value) {
    String[] keys = path.split("\\.");
    ObjectNode n = node;
    for (int i = 0; i < keys.length - 1; i++) {
      n = (ObjectNode) n.get(keys[i]);
    }
    n.set(keys[keys.length - 1], value);
  }

  /** The variants as written back: each point's settings, so a resumed run can compare. */
  static ArrayNode toJson(List<ExperimentConfig.Variant> variants) {
    ArrayNode a = JsonNodeFactory.instance.arrayNode();
    for (ExperimentConfig.Variant v : variants) {
      ObjectNode o = a.addObject();
      o.put("name", v.name());
      o.put("algorithm", v.algorithm().id());
      o.put("summation", v.summation());
      if (v.centralized()) {
        o.put("centralized", true); // written only when set: old experiment folders compare equal
      }
      ArrayNode ps = o.putArray("points");
      v.points().forEach(ps::add);
    }
    return a;
  }

  /**
   * A point's settings for a cell: every text value that mentions {@code records} is evaluated as
   * an {@link Expression} in the cell's number of records (parties x per party, public).
   */
  static ObjectNode resolve(ObjectNode point, long records) {
    ObjectNode copy = point.deepCopy();
    resolveIn(copy, records);
    return copy;
  }

  private static void resolveIn(ObjectNode node, long records) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (v.isObject()) {
        resolveIn((ObjectNode) v, records);
      } else if (v.isTextual() && v.asText().contains("records")) {
        e.setValue(JsonNodeFactory.instance.numberNode(Expression.evaluate(v.asText(), records)));
      }
    }
  }
}
