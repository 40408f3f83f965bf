package dev.helmet.experiments.wddp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.DocumentedBounds;
import dev.helmet.experiments.ExperimentConfig;
import dev.helmet.experiments.GridPreset;
import dev.helmet.experiments.Preset;
import dev.helmet.protocols.shared.LinearInputs;
import java.util.List;

/**
 * The WD-DP paper's experiments (Kang et al. 2021; SPEC section 5) on a tabular data set: WD-DP
 * (weights n_j / n) against Jayaraman et al.'s unweighted average (1 / m) and Wang et al.'s
 * centralized noisy GD on the same records, with the non-private optimum theta* as reference and
 * the optimality gap beside the test metric (the report's objective section).
 *
 * <ul>
 *   <li>{@code wd-dp-eps}: accuracy (MSE for regression) and gap against eps in {0.01, 0.05, 0.1,
 *       0.15, 0.2, 0.25, 0.5, 1, 2} for m = 2, 4, 8 parties (8, 16, 32 on sets of 3,000 rows and
 *       more) at imbalance u = 4;
 *   <li>{@code wd-dp-imbalance}: the same against u = n_max / n_min in 1..9, 8 parties in two groups
 *       of equal count (the large group holds u times as many records), at eps 0.25 and 1;
 *   <li>{@code wd-dp-pl}: the Polyak-Lojasiewicz loss on a regression set, MSE and gap against eps
 *       and against u.
 * </ul>
 *
 * <p>Hyperparameters are not swept (T, eta = 1/beta, R and the public start are wd-dp's defaults),
 * so there is nothing to select; half of the official test split is held out as validation data
 * all the same, as in the other presets, and the metric is reported on the other half. Each
 * built-in set's documented bounds scale its features (and targets); records per party are chosen
 * so that the most uneven partition fits the training data.
 */
public final class WdDpPresets implements Preset.Provider {
  /** For {@link java.util.ServiceLoader}. */
  public WdDpPresets() {}

  static final String IMBALANCE = "wd-dp-imbalance";
  static final String EPS = "wd-dp-eps";
  static final String PL = "wd-dp-pl";

  /**
   * The key the variants' wd-dp settings are written under: {@code wd_dp}, the old name of wd-dp's
   * section, which wd-dp still reads (its {@code oldKeys}). Finished experiment folders recorded
   * their settings under it, and a resumed run must find them unchanged, so this legacy key stays
   * here whatever the algorithm calls its section now.
   */
  static final String SETTINGS_KEY = "wd_dp";

  private static final String PAPER = "Kang et al., weighted distributed DP ERM (2021)";

  /** wd-dp-eps, wd-dp-imbalance (on a tabular set, default breast-cancer) and wd-dp-pl (boston-housing). */
  @Override
  public List<Preset> presets() {
    return List.of(
        new GridPreset(EPS, new Preset.Source(PAPER, "metric and gap against eps"), "breast-cancer",
            (dataset, quick, features) -> eps(tabular(EPS, dataset, features), quick)),
        new GridPreset(IMBALANCE, new Preset.Source(PAPER, "metric and gap against the imbalance u"),
            "breast-cancer", (dataset, quick, features) -> imbalance(tabular(IMBALANCE, dataset, features), quick)),
        new GridPreset(PL, new Preset.Source(PAPER, "the Polyak-Lojasiewicz loss against eps and u"),
            "boston-housing", (dataset, quick, features) -> pl(tabular(PL, dataset, features), quick)));
  }

  /** {@code dataset}, if {@code features} is raw: these presets run on tabular data. */
  private static String tabular(String name, String dataset, String features) {
    if (!features.trim().equalsIgnoreCase("raw")) {
      throw new IllegalArgumentException(name + " runs on tabular data: --features does not apply");
    }
    return dataset;
  }

  private static final List<Double> EPSILONS = List.of(0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.5, 1.0, 2.0);
  private static final List<String> IMBALANCES = List.of("uneven-u1", "uneven-u3", "uneven-u5", "uneven-u7",
      "uneven-u9");

  static ExperimentConfig eps(String dataset, boolean quick) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = base(m, EPS, dataset, quick);
    // The paper's party counts: 2, 4, 8 on small sets, 8, 16, 32 on larger ones (3,000 rows and up).
    // At u = 4 the largest count m takes m/2 + 4 m/2 = 2.5 m shares of the training rows.
    BuiltinDataset b = BuiltinDataset.byId(dataset);
    List<Integer> parties = b != null && b.rows() >= 3000 ? List.of(8, 16, 32) : List.of(2, 4, 8);
    j.put("per_party", perParty(dataset, 5 * parties.get(2) / 2));
    j.set("parties", m.valueToTree(quick ? List.of(parties.get(0), parties.get(2)) : parties));
    j.set("epsilons", m.valueToTree(quick ? List.of(0.1, 1.0) : EPSILONS));
    j.set("partitions", m.valueToTree(List.of("uneven-u4")));
    variants(m, j, dataset, null);
    j.putObject("plots").put("fixed_epsilon", 1);
    return ExperimentConfig.parse(j, "preset " + EPS);
  }

  static ExperimentConfig imbalance(String dataset, boolean quick) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = base(m, IMBALANCE, dataset, quick);
    // 8 parties at u = 9: 4 small + 4 x 9 large = 40 shares.
    j.put("per_party", perParty(dataset, 40));
    j.set("parties", m.valueToTree(List.of(8)));
    j.set("epsilons", m.valueToTree(quick ? List.of(1.0) : List.of(0.25, 1.0)));
    j.set("partitions", m.valueToTree(quick ? List.of("uneven-u1", "uneven-u5", "uneven-u9") : IMBALANCES));
    variants(m, j, dataset, null);
    j.putObject("plots").put("fixed_epsilon", 1);
    return ExperimentConfig.parse(j, "preset " + IMBALANCE);
  }

  /** The PL loss on a regression set: MSE and gap against eps (u = 4, 4 parties) and against u (8 parties). */
  static ExperimentConfig pl(String dataset, boolean quick) {
    BuiltinDataset b = BuiltinDataset.byId(dataset);
    if (b != null && !b.isRegression()) {
      throw new IllegalArgumentException(PL + " fits the Polyak-Lojasiewicz regression loss; " + dataset
          + " is a classification set (try boston-housing or diabetes)");
    }
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = base(m, PL, dataset, quick);
    j.put("per_party", perParty(dataset, 40));
    j.set("parties", m.valueToTree(quick ? List.of(8) : List.of(4, 8)));
    j.set("epsilons", m.valueToTree(quick ? List.of(0.1, 1.0) : EPSILONS));
    j.set("partitions", m.valueToTree(quick ? List.of("uneven-u1", "uneven-u9") : IMBALANCES));
    variants(m, j, dataset, "pl");
    j.putObject("plots").put("fixed_epsilon", 1);
    return ExperimentConfig.parse(j, "preset " + PL);
  }

  /**
   * Records per party such that {@code shares} of them fit in the training part (80 % of the rows;
   * the most uneven partition needs that many), at least 2.
   */
  private static int perParty(String dataset, int shares) {
    BuiltinDataset b = BuiltinDataset.byId(dataset);
    int train = b == null ? 800 : (int) Math.floor(0.8 * b.rows());
    return Math.max(2, Math.min(60, train / shares));
  }

  private static ObjectNode base(ObjectMapper m, String name, String dataset, boolean quick) {
    ObjectNode j = m.createObjectNode();
    j.put("name", name + "-" + dataset + (quick ? "-quick" : ""));
    j.put("dataset", dataset);
    j.put("delta", 1e-5);
    j.put("honest_fraction", 0.5);
    j.put("repeats", quick ? 3 : 5);
    j.put("validation_from", "test");
    j.put("validation_fraction", 0.5);
    return j;
  }

  /**
   * WD-DP (size weights), Jayaraman et al. (uniform) and Wang et al. (the same records in one party,
   * centralized noisy GD), summed in the clear (the paper's trusted server), with the data set's
   * documented bounds; {@code loss} for linreg, or null.
   */
  private static void variants(ObjectMapper m, ObjectNode j, String dataset, String loss) {
    ArrayNode variants = j.putArray("variants");
    for (String name : List.of("wd-dp", "jayaraman", "wang")) {
      ObjectNode settings = m.createObjectNode();
      ObjectNode d = settings.putObject(SETTINGS_KEY)
          .put("weighting", name.equals("jayaraman") ? "uniform" : "sizes");
      if (loss != null) {
        d.put("loss", loss);
      }
      BuiltinDataset builtin = BuiltinDataset.byId(dataset);
      DocumentedBounds bounds = builtin == null ? null : builtin.documentedBounds();
      if (bounds != null) {
        ObjectNode learner = settings.putObject("learner");
        learner.set("feature_bounds", LinearInputs.boundsNode(bounds.lower(), bounds.upper()));
        if (builtin.isRegression() && !Double.isNaN(bounds.targetLower())) {
          learner.set("target_bounds", LinearInputs.boundsNode(bounds.targetLower(), bounds.targetUpper()));
        }
      }
      ObjectNode v = variants.addObject().put("name", name).put("algorithm", "wd-dp").put("summation", "plain");
      if (name.equals("wang")) {
        v.put("centralized", true);
      }
      v.set("settings", settings);
    }
  }
}
