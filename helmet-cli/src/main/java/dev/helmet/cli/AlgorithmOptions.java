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
 * on the command line without a change to the CLI. A flag shared by several algorithms describes
 * each one's meaning and default; a parameter's old flags ({@link Parameter#aliases}) stay accepted
 * for it alone. A flag given for another algorithm than the one selected is an error that names
 * the algorithms it belongs to and the selected one's flag for the same setting, if it has one.
 * {@code --algorithm NAME --help} shows NAME's parameters only, with its own defaults ({@link #help}).
 */
final class AlgorithmOptions {
  @Option(names = "--algorithm", paramLabel = "NAME",
      description = "The learning algorithm (`helmet algorithms` lists them with their parameters; "
          + "`--algorithm NAME --help` shows NAME's own options and defaults). Default: helmet, "
          + "or the algorithm --protocol names (the old way to choose one, kept as an alias).")
  String algorithm;

  /** One algorithm's parameter under one command-line name (its flag, or an old name of it). */
  private record Use(Algorithm algorithm, Parameter parameter, boolean alias) {}

  /**
   * Every command-line name of a registered parameter with the algorithms that take it, flags
   * before old names, in the order the algorithms declare them.
   */
  private static Map<String, List<Use>> names() {
    Map<String, List<Use>> flags = new LinkedHashMap<>();
    Map<String, List<Use>> aliases = new LinkedHashMap<>();
    for (Algorithm a : Algorithms.all()) {
      for (Parameter p : a.parameters()) {
        flags.computeIfAbsent(p.flag(), k -> new ArrayList<>()).add(new Use(a, p, false));
        for (String old : p.aliases()) {
          aliases.computeIfAbsent(old, k -> new ArrayList<>()).add(new Use(a, p, true));
        }
      }
    }
    for (String old : aliases.keySet()) {
      if (flags.containsKey(old)) {
        throw new IllegalStateException(old + " is both a parameter's flag and an old name of another's");
      }
    }
    Map<String, List<Use>> all = new LinkedHashMap<>(flags);
    all.putAll(aliases);
    for (Map.Entry<String, List<Use>> e : all.entrySet()) {
      Parameter known = e.getValue().get(0).parameter();
      for (Use u : e.getValue()) {
        // Algorithms may share a flag for their own settings (--sampling-rate is dp-fl's and smm's):
        // the selected algorithm's path takes the value. The value's type must agree.
        if (u.parameter().type() != known.type()) {
          throw new IllegalStateException("algorithms disagree on the type of " + e.getKey() + ": " + known.path()
              + " (" + known.type() + ") vs " + u.parameter().path() + " (" + u.parameter().type() + ")");
        }
      }
    }
    return all;
  }

  /**
   * Adds every registered algorithm's parameters to {@code spec} as options (once per flag), each
   * old name as a hidden option that its flag's description mentions.
   */
  static void install(CommandSpec spec) {
    for (Map.Entry<String, List<Use>> e : names().entrySet()) {
      List<Use> uses = e.getValue();
      boolean alias = uses.get(0).alias();
      OptionSpec.Builder b = OptionSpec.builder(e.getKey()).hidden(alias)
          .description(alias ? new String[] {oldName(uses)} : describe(uses, null));
      Parameter p = uses.get(0).parameter();
      if (p.type() == Parameter.Type.BOOLEAN) {
        b.type(boolean.class).arity("0").negatable(true);
      } else {
        b.type(String.class).paramLabel(label(p));
      }
      spec.addOption(b.build());
    }
  }

  /**
   * A flag's description: a line per meaning, naming the algorithms and each one's default, then
   * its old names and, for the algorithms that call a related setting otherwise, their flag.
   * {@code only} (non-null): {@code only}'s line alone.
   */
  private static String[] describe(List<Use> uses, Algorithm only) {
    Map<String, List<Use>> byText = new LinkedHashMap<>();
    for (Use u : uses) {
      if (only == null || u.algorithm() == only) {
        byText.computeIfAbsent(u.parameter().description(), k -> new ArrayList<>()).add(u);
      }
    }
    List<String> lines = new ArrayList<>();
    byText.forEach((text, group) -> lines.add(ids(group) + ": " + text + ". Default: " + defaults(group) + "."));
    for (Use u : uses) {
      if ((only == null || u.algorithm() == only) && !u.parameter().aliases().isEmpty()) {
        lines.add(String.join(", ", u.parameter().aliases()) + ": " + u.algorithm().id() + "'s old name for it, kept "
            + "as an alias.");
      }
    }
    if (only == null) {
      Map<String, List<String>> related = new LinkedHashMap<>();
      for (Algorithm a : Algorithms.all()) {
        if (uses.stream().anyMatch(u -> u.algorithm() == a)) {
          continue;
        }
        for (Use u : uses) {
          Parameter counterpart = counterpart(a, u.parameter());
          if (counterpart != null) {
            related.computeIfAbsent(counterpart.flag(), k -> new ArrayList<>()).add(a.id());
            break;
          }
        }
      }
      related.forEach((flag, ids) -> lines.add("For " + and(ids) + ": " + flag + "."));
    }
    return lines.toArray(String[]::new);
  }

  /** The algorithms' names, comma separated. */
  private static String ids(List<Use> uses) {
    return String.join(", ", uses.stream().map(u -> u.algorithm().id()).distinct().toList());
  }

  /** The default shared by all of {@code group}, or each algorithm's: "dp-fl 5; smm 4; cross-silo 10". */
  private static String defaults(List<Use> group) {
    List<String> values = group.stream().map(u -> u.parameter().defaultValue()).distinct().toList();
    if (values.size() == 1) {
      return values.get(0);
    }
    return String.join("; ", group.stream().map(u -> u.algorithm().id() + " " + u.parameter().defaultValue())
        .toList());
  }

  /** The description of an old name's hidden option. */
  private static String oldName(List<Use> uses) {
    Use u = uses.get(0);
    return "The old name of " + u.parameter().flag() + " for " + ids(uses) + ", kept as an alias.";
  }

  /** "a", "a and b", "a, b and c". */
  private static String and(List<String> items) {
    return items.size() == 1 ? items.get(0) : String.join(", ", items.subList(0, items.size() - 1)) + " and "
        + items.get(items.size() - 1);
  }

  /**
   * {@code a}'s parameter for the setting {@code p} stands for (the same last key of the path, as
   * {@code dpfl.epochs} for helmet's {@code learner.epochs}) under another flag; null if none.
   */
  private static Parameter counterpart(Algorithm a, Parameter p) {
    for (Parameter q : a.parameters()) {
      if (q.key().equals(p.key()) && !q.flag().equals(p.flag())) {
        return q;
      }
    }
    return null;
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
   * its parameters), refusing a flag that belongs to another algorithm and a setting given under
   * both its flag and an old name.
   */
  static ObjectNode config(CommandSpec spec, Algorithm a) {
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    Map<String, String> given = new LinkedHashMap<>();
    for (Map.Entry<String, List<Use>> e : names().entrySet()) {
      OptionSpec o = spec.findOption(e.getKey());
      if (o == null || !parsed.hasMatchedOption(o)) {
        continue;
      }
      Use own = e.getValue().stream().filter(u -> u.algorithm() == a).findFirst().orElse(null);
      if (own == null) {
        throw new IllegalArgumentException(refusal(e.getKey(), e.getValue(), a));
      }
      String before = given.put(own.parameter().path(), e.getKey());
      if (before != null) {
        throw new IllegalArgumentException(e.getKey() + " is the old name of " + before + "; give one of them");
      }
      put(root, own.parameter(), e.getKey(), o.getValue());
    }
    return root;
  }

  /**
   * Why {@code name} does not apply to {@code a}: the algorithms it belongs to, and {@code a}'s flag
   * for the same setting if it has one under another name.
   */
  private static String refusal(String name, List<Use> uses, Algorithm a) {
    Use u = uses.get(0);
    String msg = name + " is a parameter of " + and(uses.stream().map(x -> x.algorithm().id()).distinct().toList())
        + (u.alias() ? " (the old name of " + u.parameter().flag() + ")" : "") + "; it does not apply to "
        + "--algorithm " + a.id();
    for (Use x : uses) {
      Parameter counterpart = counterpart(a, x.parameter());
      if (counterpart != null) {
        return msg + "; for " + a.id() + " use " + counterpart.flag() + ": " + counterpart.description();
      }
    }
    return msg + " (`helmet algorithms` lists each algorithm's parameters)";
  }

  /**
   * The help of a command with the algorithms' options: as picocli renders it, except that with
   * {@code --algorithm NAME --help} only NAME's parameters are listed, each with NAME's own text and
   * default (the flags other algorithms share describe every one of them otherwise).
   */
  static CommandLine.Help help(CommandSpec spec, CommandLine.Help.ColorScheme scheme) {
    return new CommandLine.Help(spec, scheme) {
      private final Algorithm only = selected(spec);
      private final Map<String, List<Use>> names = names();

      @Override
      public CommandLine.Help.IOptionRenderer createDefaultOptionRenderer() {
        CommandLine.Help.IOptionRenderer plain = super.createDefaultOptionRenderer();
        if (only == null) {
          return plain;
        }
        return (option, labels, colors) -> plain.render(focused(option), labels, colors);
      }

      @Override
      public String optionListExcludingGroups(List<OptionSpec> options, CommandLine.Help.Layout layout,
          java.util.Comparator<OptionSpec> sort, CommandLine.Help.IParamLabelRenderer labels) {
        return super.optionListExcludingGroups(shown(options), layout, sort, labels);
      }

      @Override
      protected CommandLine.Help.Ansi.Text createDetailedSynopsisOptionsText(
          java.util.Collection<picocli.CommandLine.Model.ArgSpec> done, List<OptionSpec> options,
          java.util.Comparator<OptionSpec> sort, boolean cluster) {
        return super.createDetailedSynopsisOptionsText(done, shown(options), sort, cluster);
      }

      /** The options listed: with --algorithm NAME, no other algorithm's parameters. */
      private List<OptionSpec> shown(List<OptionSpec> options) {
        return only == null ? options : options.stream().filter(o -> {
          List<Use> uses = names.get(o.longestName());
          return uses == null || uses.stream().anyMatch(u -> u.algorithm() == only);
        }).toList();
      }

      private OptionSpec focused(OptionSpec option) {
        List<Use> uses = names.get(option.longestName());
        String[] text = option.longestName().equals("--algorithm") ? new String[] {"The learning algorithm: "
            + only.id() + " here, whose options alone are listed, with its defaults (`" + spec.qualifiedName()
            + " --help` lists every algorithm's; `helmet algorithms` describes each)."}
            : uses == null ? null : describe(uses, only);
        if (text == null) {
          return option;
        }
        OptionSpec copy = option.toBuilder().description(text).build();
        // The renderer reads the option's command (for negatable names): a blank one, as no option
        // here has a default or a text to look up.
        CommandSpec.create().addOption(copy);
        return copy;
      }
    };
  }

  /** The algorithm a help request names with --algorithm (or the legacy --protocol); null for none. */
  private static Algorithm selected(CommandSpec spec) {
    CommandLine cl = spec.commandLine();
    CommandLine.ParseResult parsed = cl == null ? null : cl.getParseResult();
    if (parsed == null) {
      return null;
    }
    String name = parsed.matchedOptionValue("--algorithm", (String) null);
    if (name == null) {
      name = parsed.matchedOptionValue("--protocol", (String) null);
    }
    return name != null && isAlgorithm(name) ? Algorithms.named(name) : null;
  }

  /**
   * {@code config} with {@code a}'s defaults for the feature stage {@code features} filled in where
   * the command line left them unset ({@link Algorithm#withFeatureDefaults}).
   */
  static ObjectNode withFeatureDefaults(ObjectNode config, Algorithm a, String features) {
    return a.withFeatureDefaults(config, features == null ? null : features.trim().toLowerCase(java.util.Locale.ROOT));
  }

  private static void put(ObjectNode root, Parameter p, String name, Object value) {
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
      throw new IllegalArgumentException(name + " must be " + (p.type() == Parameter.Type.INTEGER ? "a whole number"
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
