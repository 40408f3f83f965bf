package dev.helmet.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Parameter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * {@code --algorithm NAME} and every registered algorithm's parameters as options. The parameters
 * are not written here: each algorithm declares them ({@link Algorithm#parameters}), and
 * {@link #install} adds one option per flag to a command, so a new algorithm's parameters appear
 * on the command line without a change to the CLI. A flag given for another algorithm than the
 * one selected is an error that names both.
 */
final class AlgorithmOptions {
  @Option(names = "--algorithm", paramLabel = "NAME",
      description = "The learning algorithm (`helmet algorithms` lists them with their parameters). Default: helmet, "
          + "or the algorithm --protocol names (the old way to choose one, kept as an alias).")
  String algorithm;

  /** Adds every registered algorithm's parameters to {@code spec} as options (once per flag). */
  static void install(CommandSpec spec) {
    Map<String, List<String>> owners = new LinkedHashMap<>();
    Map<String, Parameter> first = new LinkedHashMap<>();
    for (Algorithm a : Algorithms.all()) {
      for (Parameter p : a.parameters()) {
        Parameter known = first.putIfAbsent(p.flag(), p);
        // Algorithms may share a flag for their own settings (--sampling-rate is dp-fl's and smm's):
        // the selected algorithm's path takes the value. The value's type must agree.
        if (known != null && known.type() != p.type()) {
          throw new IllegalStateException("algorithms disagree on the type of " + p.flag() + ": " + known.path() + " ("
              + known.type() + ") vs " + p.path() + " (" + p.type() + ")");
        }
        owners.computeIfAbsent(p.flag(), k -> new ArrayList<>()).add(a.id());
      }
    }
    for (Map.Entry<String, Parameter> e : first.entrySet()) {
      Parameter p = e.getValue();
      String who = String.join(", ", owners.get(e.getKey()));
      OptionSpec.Builder b = OptionSpec.builder(p.flag())
          .description(who + ": " + p.description() + ". Default: " + p.defaultValue() + ".");
      if (p.type() == Parameter.Type.BOOLEAN) {
        b.type(boolean.class).arity("0").negatable(true);
      } else {
        b.type(String.class).paramLabel(label(p));
      }
      spec.addOption(b.build());
    }
  }

  private static String label(Parameter p) {
    return switch (p.type()) {
      case INTEGER -> "N";
      case NUMBER -> "X";
      default -> "TEXT";
    };
  }

  /**
   * The algorithm chosen: --algorithm, else an algorithm named by the legacy {@code --protocol},
   * else the default.
   */
  Algorithm chosen(String legacyProtocol) {
    if (algorithm != null) {
      return Algorithms.named(algorithm);
    }
    if (legacyProtocol != null && isAlgorithm(legacyProtocol)) {
      return Algorithms.named(legacyProtocol);
    }
    return Algorithms.named(Algorithms.DEFAULT);
  }

  static boolean isAlgorithm(String name) {
    return Algorithms.all().stream().anyMatch(a -> a.id().equals(name));
  }

  /**
   * The configuration mapping the options given on the command line make for {@code a} (typed by
   * its parameters), refusing a flag that belongs to another algorithm.
   */
  static ObjectNode config(CommandSpec spec, Algorithm a) {
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    Map<String, Parameter> mine = new LinkedHashMap<>();
    for (Parameter p : a.parameters()) {
      mine.put(p.flag(), p);
    }
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    for (Algorithm other : Algorithms.all()) {
      for (Parameter p : other.parameters()) {
        OptionSpec o = spec.findOption(p.flag());
        if (o == null || !parsed.hasMatchedOption(o)) {
          continue;
        }
        Parameter own = mine.get(p.flag());
        if (own == null) {
          throw new IllegalArgumentException(p.flag() + " is a parameter of " + other.id() + "; it does not apply to "
              + "--algorithm " + a.id() + " (`helmet algorithms` lists each algorithm's parameters)");
        }
        put(root, own, o.getValue());
      }
    }
    return root;
  }

  /**
   * {@code config} with the softmax learner settings tuned for {@code features} (HelmetDefaults.
   * softmaxFor) wherever the command line left them unset and {@code a} has such a parameter.
   */
  static ObjectNode withFeatureDefaults(ObjectNode config, Algorithm a, String features) {
    dev.helmet.protocols.helmet.HelmetDefaults.Tuned t = dev.helmet.protocols.helmet.HelmetDefaults.softmaxFor(
        features == null ? null : features.trim().toLowerCase(java.util.Locale.ROOT));
    if (t == null) {
      return config;
    }
    ObjectNode out = config.deepCopy();
    ObjectNode learner = out.has("learner") ? (ObjectNode) out.get("learner") : out.putObject("learner");
    if (learner.has("kind") && !learner.get("kind").asText().equalsIgnoreCase("softmax")) {
      return config;
    }
    java.util.Set<String> paths = new java.util.HashSet<>();
    a.parameters().forEach(p -> paths.add(p.path()));
    if (paths.contains("learner.lambda") && !learner.has("lambda")) {
      learner.put("lambda", t.lambda());
    }
    if (paths.contains("learner.radius") && !learner.has("radius")) {
      learner.put("radius", t.radius());
    }
    if (paths.contains("learner.epochs") && !learner.has("epochs")) {
      learner.put("epochs", t.epochs());
    }
    if (paths.contains("learner.batch_size") && !learner.has("batch_size")) {
      learner.put("batch_size", t.batchSize());
    }
    if (learner.isEmpty()) {
      out.remove("learner");
    }
    return out;
  }

  private static void put(ObjectNode root, Parameter p, Object value) {
    String[] path = p.path().split("\\.");
    ObjectNode at = root;
    for (int i = 0; i < path.length - 1; i++) {
      at = at.has(path[i]) ? (ObjectNode) at.get(path[i]) : at.putObject(path[i]);
    }
    String key = path[path.length - 1];
    String text = String.valueOf(value);
    try {
      switch (p.type()) {
        case BOOLEAN -> at.put(key, (Boolean) value);
        case INTEGER -> at.put(key, Long.parseLong(text.trim()));
        case NUMBER -> at.put(key, Double.parseDouble(text.trim()));
        case TEXT -> at.put(key, text);
        default -> throw new IllegalStateException();
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(p.flag() + " must be " + (p.type() == Parameter.Type.INTEGER ? "a whole number"
          : "a number") + ". Provided value: " + text);
    }
  }

  /**
   * Configures {@code a} with the settings the command line made and the common settings; an
   * error names the option the user typed, not the configuration path behind it.
   */
  static dev.helmet.protocols.algorithm.AlgorithmSpec configure(Algorithm a, ObjectNode config,
      dev.helmet.protocols.algorithm.Common common) {
    try {
      return a.configure(new dev.helmet.protocols.config.StrictNode("command line", config,
          IllegalArgumentException::new), common);
    } catch (IllegalArgumentException e) {
      String msg = String.valueOf(e.getMessage());
      for (Parameter p : a.parameters()) {
        msg = msg.replace("command line: " + p.path() + " ", p.flag() + " ");
      }
      throw new IllegalArgumentException(msg.replace("command line: ", ""), e);
    }
  }
}
