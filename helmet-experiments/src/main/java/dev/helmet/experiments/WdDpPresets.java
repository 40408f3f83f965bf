package dev.helmet.experiments;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The WD-DP paper's imbalance experiment (Kang et al. 2021; SPEC section 5) on a tabular data set:
 * 8 parties in two groups of equal count, the large group holding u times as many records as the
 * small one (u in 1..9), at a fixed eps; WD-DP (weights n_j / n) against Jayaraman et al.'s
 * unweighted average (1 / m). Accuracy per imbalance is the report's partition plot.
 *
 * <p>Hyperparameters are not swept (T, eta = 1/beta and the public start are wd-dp's defaults), so
 * there is nothing to select; half of the official test split is held out as validation data all
 * the same, as in the other presets, and accuracy is reported on the other half. breast-cancer's
 * documented bounds (scores 1 to 10) scale its features; other data sets run unscaled.
 */
final class WdDpPresets {
  private WdDpPresets() {}

  static final String IMBALANCE = "wd-dp-imbalance";

  static ExperimentConfig imbalance(String dataset, boolean quick) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = m.createObjectNode();
    j.put("name", IMBALANCE + "-" + dataset + (quick ? "-quick" : ""));
    j.put("dataset", dataset);
    // The small group's share: 4 x 12 + 4 x 9 x 12 = 480 records at u = 9 (breast-cancer's training
    // part holds 546).
    j.put("per_party", 12);
    j.put("delta", 1e-5);
    j.put("honest_fraction", 0.5);
    // Cells take milliseconds: enough repeats that the spread of 8 small parties' noise averages out.
    j.put("repeats", quick ? 3 : 20);
    j.put("validation_from", "test");
    j.put("validation_fraction", 0.5);
    j.set("parties", m.valueToTree(List.of(8)));
    j.set("epsilons", m.valueToTree(quick ? List.of(1) : List.of(0.25, 1)));
    j.set("partitions", m.valueToTree(quick ? List.of("uneven-u1", "uneven-u5", "uneven-u9")
        : List.of("uneven-u1", "uneven-u3", "uneven-u5", "uneven-u7", "uneven-u9")));
    ArrayNode variants = j.putArray("variants");
    for (String weighting : List.of("sizes", "uniform")) {
      ObjectNode settings = m.createObjectNode();
      settings.putObject("wd_dp").put("weighting", weighting);
      if (dataset.equals("breast-cancer")) {
        settings.putObject("learner").putObject("feature_bounds").put("lower", 1).put("upper", 10);
      }
      variants.addObject().put("name", weighting.equals("sizes") ? "wd-dp" : "jayaraman").put("algorithm", "wd-dp")
          .put("summation", "plain").set("settings", settings);
    }
    j.putObject("plots").put("fixed_epsilon", 1);
    return ExperimentConfig.parse(j, "preset " + IMBALANCE);
  }
}
