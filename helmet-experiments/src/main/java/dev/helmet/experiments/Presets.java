package dev.helmet.experiments;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.List;

/**
 * The papers' evaluations on the data sets we have (SPEC section 1.6, the Helmet papers' figures 5
 * and 6 and table 2), as experiment configurations. Each has a full setting (Lambda x R grids
 * around the defaults, three repeats; at most an hour on two cores) and a quick one (the defaults
 * only, two repeats, fewer party counts; a minute or two). Hyperparameters are chosen on a stratified half of the
 * official test set and accuracy is reported on the other half, so the parties may hold every
 * training record.
 *
 * <ul>
 *   <li>{@code fig5}: accuracy against the number of parties, 60 records each, eps = 0.6; Helmet
 *       (softmax, SVM) and DP-FL.
 *   <li>{@code fig6}: accuracy against eps for several party counts; Helmet (softmax, SVM).
 *   <li>{@code table2}: IID against one class per party; Helmet (softmax, SVM).
 *   <li>{@code crosssilo-eps}: Heikkila et al.'s Fig. 2, accuracy against eps for the cross-silo
 *       noise splits ({@link CrossSiloPresets}); {@code crosssilo-sampling}, their Fig. 1, is a
 *       computation, not a grid ({@link #SAMPLING}), and so are the timing presets {@code
 *       crosssilo-nodes} and {@code crosssilo-groups} (their Figs. 3 and 5: in-process summation
 *       benchmarks, {@link #NODES}, {@link #GROUPS}).
 * </ul>
 *
 * <p>Each runs on raw pixels by default, or on scattering or HOG features
 * ({@link #get(String, String, boolean, String)}): the same sweep, a different feature stage.
 */
public final class Presets {
  private Presets() {}

  /** The presets that are experiment grids ({@link #get}). */
  public static final List<String> NAMES = List.of("fig5", "fig6", "table2", WdDpPresets.EPS, WdDpPresets.IMBALANCE,
      WdDpPresets.PL, SmmPresets.FL, SmmPresets.BATCH, SmmPresets.GAMMA, CrossSiloPresets.EPS,
      CrossSiloPresets.PROJECTION);

  /** smm-sum: a mechanism experiment on synthetic vectors, run by {@code dev.helmet.experiments.sum.SumEstimation}. */
  public static final String SUM = "smm-sum";

  /**
   * crosssilo-sampling: Heikkila et al.'s Fig. 1, computed without training by {@code
   * dev.helmet.experiments.crosssilo.SamplingFraction}.
   */
  public static final String SAMPLING = "crosssilo-sampling";

  /**
   * crosssilo-nodes: Heikkila et al.'s Fig. 3, DCA's running time against the compute nodes, an
   * in-process summation benchmark timed by {@code dev.helmet.experiments.crosssilo.ComputeNodesTiming}.
   */
  public static final String NODES = "crosssilo-nodes";

  /** crosssilo-projection: their Fig. 4, accuracy against the projection dimension k. */
  public static final String PROJECTION = CrossSiloPresets.PROJECTION;

  /**
   * crosssilo-groups: their Fig. 5, pairwise masking's running time against parties and group size,
   * with the honest noise factor; {@code dev.helmet.experiments.crosssilo.GroupMaskTiming}.
   */
  public static final String GROUPS = "crosssilo-groups";

  /** The presets that are computations, not experiment grids: each has its own runner. */
  public static final List<String> COMPUTED = List.of(SUM, SAMPLING, NODES, GROUPS);

  /** Every preset's name, for help and errors. */
  public static final List<String> ALL = java.util.stream.Stream.concat(NAMES.stream(),
      COMPUTED.stream()).toList();

  /** The data set a preset runs on when none is named. */
  public static String defaultDataset(String name) {
    return name.equals(WdDpPresets.PL) ? "boston-housing" : name.startsWith("wd-dp") ? "breast-cancer" : "mnist";
  }

  /** The preset {@code name} for {@code dataset}, on raw pixels. */
  public static ExperimentConfig get(String name, String dataset, boolean quick) {
    return get(name, dataset, quick, "raw");
  }

  /**
   * The preset {@code name} for {@code dataset} on the feature set {@code features} (raw, scatter,
   * hog). A feature set other than raw is part of the name ({@code fig5-mnist-scatter}), so the
   * report says it and results of different feature sets are told apart at a glance (a folder
   * holding another feature set's results is refused in any case: the configurations differ).
   */
  public static ExperimentConfig get(String name, String dataset, boolean quick, String features) {
    if (name.startsWith(SmmPresets.FL)) {
      if (!features.trim().equalsIgnoreCase("raw")) {
        throw new IllegalArgumentException(name + " trains the paper's MLP on raw pixels: --features does not apply");
      }
      return switch (name) {
        case SmmPresets.BATCH -> SmmPresets.batch(dataset, quick);
        case SmmPresets.GAMMA -> SmmPresets.gamma(dataset, quick);
        default -> SmmPresets.fl(dataset, quick);
      };
    }
    if (name.equals(CrossSiloPresets.EPS) || name.equals(CrossSiloPresets.PROJECTION)) {
      if (!features.trim().equalsIgnoreCase("raw")) {
        throw new IllegalArgumentException(name + " trains the MLP on raw pixels: --features does not apply");
      }
      return name.equals(CrossSiloPresets.EPS) ? CrossSiloPresets.eps(dataset, quick)
          : CrossSiloPresets.projection(dataset, quick);
    }
    if (name.startsWith("wd-dp")) {
      if (!features.trim().equalsIgnoreCase("raw")) {
        throw new IllegalArgumentException(name + " runs on tabular data: --features does not apply");
      }
      if (name.equals(WdDpPresets.IMBALANCE)) {
        return WdDpPresets.imbalance(dataset, quick);
      }
      if (name.equals(WdDpPresets.EPS)) {
        return WdDpPresets.eps(dataset, quick);
      }
      if (name.equals(WdDpPresets.PL)) {
        return WdDpPresets.pl(dataset, quick);
      }
    }
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = m.createObjectNode();
    String f = features.trim().toLowerCase(java.util.Locale.ROOT);
    j.put("name", name + "-" + dataset + (f.equals("raw") ? "" : "-" + f) + (quick ? "-quick" : ""));
    j.put("dataset", dataset);
    j.put("features", features);
    j.put("per_party", 60);
    j.put("delta", 1e-5);
    j.put("honest_fraction", 0.5);
    j.put("repeats", quick ? 2 : 3);
    // Validation from half of the test set: the parties may then hold every training image (1000 x 60).
    j.put("validation_from", "test");
    j.put("validation_fraction", 0.5);
    ArrayNode variants = j.putArray("variants");
    // Blind averaging as the papers run it: continuous Gaussian noise, sums in the clear (a secure
    // summation sums exactly: the same accuracy).
    variants.addObject().put("name", "helmet-softmax").put("algorithm", "helmet").set("settings",
        m.valueToTree(Map.of("noise", "gaussian", "learner", quick ? Map.of("kind", "softmax")
            : Map.of("kind", "softmax", "lambda", List.of(0.5, 1), "radius", List.of(1, 2)))));
    variants.addObject().put("name", "helmet-svm").put("algorithm", "helmet").set("settings",
        m.valueToTree(Map.of("noise", "gaussian", "learner", quick ? Map.of("kind", "svm")
            : Map.of("kind", "svm", "lambda", List.of(2, 5), "radius", List.of(0.3, 0.5)))));
    switch (name) {
      case "fig5" -> {
        j.set("parties", m.valueToTree(quick ? List.of(10, 100, 1000) : List.of(10, 50, 100, 200, 400, 700, 1000)));
        j.set("epsilons", m.valueToTree(List.of(0.6)));
        // DP-FL both ways: the honest split (the assumption Helmet makes) and the papers' sqrt(W)
        // penalty; the papers' expected batch of 1024 records (q = 1024 / N); aggregate simulation.
        for (String split : List.of("honest", "sqrt-w-penalty")) {
          Map<String, Object> d = new java.util.LinkedHashMap<>();
          d.put("noise_split", split);
          d.put("sampling_rate", "min(1, 1024 / records)");
          d.put("learning_rate", quick ? (Object) 4 : List.of(1, 4));
          d.put("grad_clip", quick ? (Object) 0.1 : List.of(0.1, 1));
          d.put("epochs", quick ? (Object) 40 : List.of(10, 40));
          variants.addObject().put("name", split.equals("honest") ? "dp-fl" : "dp-fl-" + split).put("algorithm", "dp-fl")
              .put("summation", "simulated").set("settings", m.valueToTree(Map.of("dpfl", d)));
        }
        j.putObject("plots").put("fixed_epsilon", 0.6);
      }
      case "fig6" -> {
        // Quick: 10 and 100 parties (the tests' and smoke runs' form). W = 1000 holds all of MNIST's
        // 60,000 training images, nine times the records of the other two together, and checked
        // nothing that two party counts do not: without it the test's quick run took 66 s instead
        // of 463 s on a loaded 2-core machine.
        j.set("parties", m.valueToTree(quick ? List.of(10, 100) : List.of(100, 400, 1000)));
        j.set("epsilons", m.valueToTree(quick ? List.of(0.1, 0.5, 1, 3) : List.of(0.1, 0.3, 0.5, 1, 3)));
        j.putObject("plots").put("fixed_epsilon", 0.5);
      }
      case "table2" -> {
        // 900 x 60 is the most one class per party allows (MNIST's rarest class has 5,421 images).
        j.set("parties", m.valueToTree(quick ? List.of(100, 500) : List.of(100, 900)));
        j.set("epsilons", m.valueToTree(quick ? List.of(1) : List.of(0.5, 1, 3)));
        j.set("partitions", m.valueToTree(List.of("iid", "one-class")));
        j.putObject("plots").put("fixed_epsilon", 1);
      }
      default -> throw new IllegalArgumentException(COMPUTED.contains(name) ? name + " is not an "
          + "experiment grid (run it with helmet experiment run --preset " + name + ")" : "unknown preset " + name
          + "; presets: " + String.join(", ", ALL));
    }
    return ExperimentConfig.parse(j, "preset " + name);
  }
}
