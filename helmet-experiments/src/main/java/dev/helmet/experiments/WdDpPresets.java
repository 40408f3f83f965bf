package dev.helmet.experiments;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The WD-DP paper's experiments (Kang et al. 2021; SPEC section 5) on a tabular data set, WD-DP
 * (weights n_j / n) against Jayaraman et al.'s unweighted average (1 / m) and Wang et al.'s
 * centralized noisy GD on the same records: {@code wd-dp-imbalance},
 * 8 parties in two groups of equal count, the large group holding u times as many records as the
 * small one (u in 1..9), at a fixed eps (the report's partition plot); {@code wd-dp-eps}, accuracy
 * against eps for 2, 4 and 8 parties at u = 4.
 *
 * <p>Hyperparameters are not swept (T, eta = 1/beta and the public start are wd-dp's defaults), so
 * there is nothing to select; half of the official test split is held out as validation data all
 * the same, as in the other presets, and accuracy is reported on the other half. breast-cancer's
 * documented bounds (scores 1 to 10, {@code BuiltinDataset.documentedBounds}) scale its features;
 * other data sets run unscaled.
 */
final class WdDpPresets {
  private WdDpPresets() {}

  static final String IMBALANCE = "wd-dp-imbalance";
  static final String EPS = "wd-dp-eps";

  /**
   * Accuracy against eps (Kang et al.'s first figure): m = 2, 4, 8 parties with imbalance u = 4,
   * eps from 0.05 to 2; WD-DP against Jayaraman et al.
   */
  static ExperimentConfig eps(String dataset, boolean quick) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = base(m, EPS, dataset, quick);
    // 4 small parties of 27 and 4 large of 108 records: 540 of breast-cancer's 546 training records.
    j.put("per_party", 27);
    j.set("parties", m.valueToTree(quick ? List.of(2, 8) : List.of(2, 4, 8)));
    j.set("epsilons", m.valueToTree(quick ? List.of(0.1, 1) : List.of(0.05, 0.1, 0.25, 0.5, 1, 2)));
    j.set("partitions", m.valueToTree(List.of("uneven-u4")));
    variants(m, j, dataset);
    j.putObject("plots").put("fixed_epsilon", 1);
    return ExperimentConfig.parse(j, "preset " + EPS);
  }

  private static ObjectNode base(ObjectMapper m, String name, String dataset, boolean quick) {
    ObjectNode j = m.createObjectNode();
    j.put("name", name + "-" + dataset + (quick ? "-quick" : ""));
    j.put("dataset", dataset);
    j.put("delta", 1e-5);
    j.put("honest_fraction", 0.5);
    // Cells take milliseconds: enough repeats that the spread of small parties' noise averages out.
    j.put("repeats", quick ? 3 : 20);
    j.put("validation_from", "test");
    j.put("validation_fraction", 0.5);
    return j;
  }

  /**
   * WD-DP (size weights), Jayaraman et al. (uniform) and Wang et al. (the same records in one party,
   * centralized noisy GD), summed in the clear, with the data set's documented bounds.
   */
  private static void variants(ObjectMapper m, ObjectNode j, String dataset) {
    ArrayNode variants = j.putArray("variants");
    for (String name : List.of("wd-dp", "jayaraman", "wang")) {
      ObjectNode settings = m.createObjectNode();
      settings.putObject("wd_dp").put("weighting", name.equals("jayaraman") ? "uniform" : "sizes");
      dev.helmet.core.data.BuiltinDataset builtin = dev.helmet.core.data.BuiltinDataset.byId(dataset);
      double[] bounds = builtin == null ? null : builtin.documentedBounds();
      if (bounds != null) {
        // whole numbers stay whole in the recorded configuration (1, not 1.0), as before
        ObjectNode b = settings.putObject("learner").putObject("feature_bounds");
        b.set("lower", m.valueToTree(bounds[0] == Math.rint(bounds[0]) ? (Object) (int) bounds[0] : bounds[0]));
        b.set("upper", m.valueToTree(bounds[1] == Math.rint(bounds[1]) ? (Object) (int) bounds[1] : bounds[1]));
      }
      ObjectNode v = variants.addObject().put("name", name).put("algorithm", "wd-dp").put("summation", "plain");
      if (name.equals("wang")) {
        v.put("centralized", true);
      }
      v.set("settings", settings);
    }
  }

  static ExperimentConfig imbalance(String dataset, boolean quick) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = base(m, IMBALANCE, dataset, quick);
    // The small group's share: 4 x 12 + 4 x 9 x 12 = 480 records at u = 9 (breast-cancer's training
    // part holds 546).
    j.put("per_party", 12);
    j.set("parties", m.valueToTree(List.of(8)));
    j.set("epsilons", m.valueToTree(quick ? List.of(1) : List.of(0.25, 1)));
    j.set("partitions", m.valueToTree(quick ? List.of("uneven-u1", "uneven-u5", "uneven-u9")
        : List.of("uneven-u1", "uneven-u3", "uneven-u5", "uneven-u7", "uneven-u9")));
    variants(m, j, dataset);
    j.putObject("plots").put("fixed_epsilon", 1);
    return ExperimentConfig.parse(j, "preset " + IMBALANCE);
  }
}
