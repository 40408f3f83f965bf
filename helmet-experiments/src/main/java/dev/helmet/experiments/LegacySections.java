package dev.helmet.experiments;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.protocols.config.StrictNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The reader of experiment files written before {@code variants:} existed: each such file has one
 * section per algorithm that had one ({@code helmet:} and {@code dpfl:}), and each section stands
 * for a list of variants of that algorithm, named here by its registered name. A file format is a
 * promise, so these files keep working; the algorithms themselves know nothing of it.
 */
final class LegacySections {
  private LegacySections() {}

  /** One legacy variant: its name, the registered algorithm, the summation, the settings (lists span a grid). */
  record Legacy(String name, String algorithm, String summation, ObjectNode settings) {}

  private static final Map<String, Function<StrictNode, List<Legacy>>> READERS = new LinkedHashMap<>();

  static {
    READERS.put("helmet", LegacySections::helmet);
    READERS.put("dpfl", LegacySections::dpfl);
  }

  /** The section keys an old file may have. */
  static List<String> keys() {
    return List.copyOf(READERS.keySet());
  }

  /** The variants section {@code key} of an old file stood for. */
  static List<Legacy> read(String key, StrictNode section) {
    return READERS.get(key).apply(section);
  }

  /**
   * The old {@code helmet:} section, {@code {learners: [...], grid: {LEARNER: {lambda, radius,
   * epochs}}}}: one variant per learner, {@code helmet-LEARNER}, with the papers' continuous Gaussian
   * noise and sums in the clear, as experiments ran them.
   */
  private static List<Legacy> helmet(StrictNode h) {
    h.allow("learners", "grid");
    StrictNode g = h.child("grid");
    List<String> learners = h.strings("learners").stream().map(l -> l.toLowerCase(Locale.ROOT)).toList();
    g.allow(new java.util.TreeSet<>(learners).toArray(String[]::new));
    List<Legacy> out = new ArrayList<>();
    for (String l : learners) {
      try {
        LearnerKind.parse(l);
      } catch (IllegalArgumentException e) {
        throw h.error("learners", e.getMessage());
      }
      StrictNode lg = g.child(l);
      lg.allow("lambda", "radius", "epochs");
      ObjectNode settings = JsonNodeFactory.instance.objectNode().put("noise", "gaussian");
      ObjectNode learner = settings.putObject("learner").put("kind", l);
      for (String k : new String[] {"lambda", "radius", "epochs"}) {
        if (lg.has(k)) {
          learner.set(k, lg.json().get(k));
        }
      }
      out.add(new Legacy("helmet-" + l, "helmet", "plain", settings));
    }
    return out;
  }

  /**
   * The old {@code dpfl:} section, {@code {noise_split: [...], accountant, neighbours, grid:
   * {learning_rate, clip, epochs, sampling_rate}}}: one variant per noise split ({@code dp-fl}, or
   * {@code dp-fl-SPLIT}), simulated in aggregate; a sampling rate of 0 is the papers' 1024 / N (at
   * most 1), and under add-remove neighbours the public normaliser is q x N (N: the cell's records).
   */
  private static List<Legacy> dpfl(StrictNode d) {
    d.allow("noise_split", "accountant", "neighbours", "grid");
    StrictNode g = d.child("grid");
    g.allow("learning_rate", "clip", "epochs", "sampling_rate");
    var f = JsonNodeFactory.instance;
    List<Double> rates = g.has("sampling_rate") ? g.numbers("sampling_rate", 0, 1) : List.of(0.0);
    String neighbours = d.string("neighbours", "replace-one");
    if (neighbours.equals("add-remove") && rates.size() > 1) {
      throw d.error("neighbours", "add-remove with several sampling rates needs the variants: form (the normaliser "
          + "depends on each rate)");
    }
    List<Legacy> out = new ArrayList<>();
    for (String split : d.has("noise_split") ? d.strings("noise_split") : List.of("honest")) {
      var settings = f.objectNode();
      var p = settings.putObject("dpfl");
      p.put("noise_split", split).put("neighbours", neighbours);
      if (d.has("accountant")) {
        p.put("accountant", d.string("accountant", null));
      }
      p.set("learning_rate", g.has("learning_rate") ? g.json().get("learning_rate") : f.numberNode(4.0));
      p.set("grad_clip", g.has("clip") ? g.json().get("clip") : f.numberNode(0.1));
      p.set("epochs", g.has("epochs") ? g.json().get("epochs") : f.numberNode(40.0));
      var q = f.arrayNode();
      for (double r : rates) {
        q.add(r > 0 ? f.numberNode(r) : f.textNode("min(1, 1024 / records)"));
      }
      p.set("sampling_rate", q);
      if (neighbours.equals("add-remove")) {
        double r = rates.get(0);
        p.put("expected_batch", r > 0 ? r + " * records" : "min(1, 1024 / records) * records");
      }
      out.add(new Legacy(split.equals("honest") ? "dp-fl" : "dp-fl-" + split, "dp-fl", "simulated", settings));
    }
    return out;
  }
}
