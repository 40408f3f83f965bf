package dev.helmet.protocols.algorithm;

import dev.helmet.protocols.config.StrictNode;
import java.util.List;
import java.util.Set;

/**
 * A learning algorithm as every runner sees it. An implementation is a package plus one line in
 * {@code META-INF/services/dev.helmet.protocols.algorithm.Algorithm}; {@link Algorithms} finds it.
 */
public interface Algorithm {
  /** Its name in configurations and on the command line ({@code --algorithm NAME}). */
  String id();

  /** One line for {@code helmet algorithms}. */
  String summary();

  /** Its parameters with their defaults, for {@code helmet algorithms}, the CLI's options and docs. */
  List<Parameter> parameters();

  /**
   * How many parties a simulation ({@code helmet train}) has when the command line names none: the
   * shape the algorithm is made for and documented with, small enough that its defaults run in
   * minutes on a laptop. By default a thousand, the cross-device setting of blind averaging.
   */
  default int defaultParties() {
    return 1000;
  }

  /**
   * A note for a run at the default {@code epsilon} ({@code train} without --epsilon, a demo), where this
   * algorithm's defaults are known to learn little at it (smm at the common default 0.5), naming the
   * epsilon its documented runs use; null where the default serves. The default epsilon stays the
   * common, safe one: a bare command never spends more than it; the note says what accuracy costs.
   */
  default String defaultEpsilonNote(double epsilon) {
    return null;
  }

  /**
   * The top-level keys of a configuration mapping it reads (besides the common ones every runner
   * reads: privacy, ring bits, features, labels, ...), so the runner can refuse any other key.
   */
  Set<String> keys();

  /**
   * Old names of its top-level keys, each with the name it has now ({@code wd_dp} for wd-dp's
   * {@code wddp}): still read (and listed in {@link #keys}), so files written with them keep working.
   */
  default java.util.Map<String, String> oldKeys() {
    return java.util.Map.of();
  }

  /**
   * The value at a parameter's {@code path} in a configuration mapping, whether its section is
   * written under the current name or an old one ({@link #oldKeys}); null where it is not given.
   */
  default com.fasterxml.jackson.databind.JsonNode setting(com.fasterxml.jackson.databind.JsonNode config,
      String path) {
    String[] keys = path.split("\\.");
    com.fasterxml.jackson.databind.JsonNode n = config == null ? null : config.get(keys[0]);
    for (java.util.Map.Entry<String, String> old : oldKeys().entrySet()) {
      if (n == null && old.getValue().equals(keys[0]) && config != null) {
        n = config.get(old.getKey());
      }
    }
    for (int i = 1; i < keys.length && n != null; i++) {
      n = n.get(keys[i]);
    }
    return n;
  }

  /**
   * Reads and checks its settings from a configuration mapping (a session file, an experiment
   * point, the CLI's options, or the canonical form a coordinator publishes). Every key is
   * checked: an unknown or mistyped key is an error that names it.
   *
   * @throws RuntimeException of the node's error type, or IllegalArgumentException, naming the problem
   */
  AlgorithmSpec configure(StrictNode config, Common common);

  /**
   * Whether this algorithm can fit a regression model (numeric targets); false by default. An
   * algorithm that only trains classifiers refuses such data ({@link Common#requireClasses}), naming
   * the algorithms that answer true here.
   */
  default boolean fitsRegression() {
    return false;
  }

  /**
   * {@code config} (settings as {@link #configure} reads them) with this algorithm's defaults for the
   * fixed feature stage {@code features} ({@code hog}, {@code scatter}, ...; null or {@code raw}
   * for none) filled in wherever {@code config} leaves them unset; {@code config} itself when the
   * algorithm has no such defaults (by default). Such defaults are chosen on validation data, never
   * on a test set, and are public configuration like any other.
   */
  default com.fasterxml.jackson.databind.node.ObjectNode withFeatureDefaults(
      com.fasterxml.jackson.databind.node.ObjectNode config, String features) {
    return config;
  }
}
