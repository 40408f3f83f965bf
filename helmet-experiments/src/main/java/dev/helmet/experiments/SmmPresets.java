package dev.helmet.experiments;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The Skellam mixture mechanism paper's federated learning experiment (Bao et al., PVLDB 2022,
 * Section 6.2; SPEC section 6): the 784-80-10 MLP on MNIST or Fashion-MNIST, every training record
 * a client of the analysis (here held by 10 parties of 6,000 records; the noise is per party and
 * the per-record analysis is unchanged), 4 epochs of Poisson-sampled rounds with |B| = 240 expected
 * records (q = 240/60,000, 1,000 rounds), Adam with learning rate 0.005, gamma = m/4, test accuracy
 * against eps in 1..5 for b = 6, 8, 10. Every party is honest (the paper's threat model: the noise
 * is split over all of them), the rounds are simulated in aggregate (summed in the clear modulo
 * 2^b, the sum secure aggregation outputs), and subsampled rounds are accounted with the general
 * bound (smm's default), which costs more noise than the paper's form. The baselines run on the
 * same pipeline: the distributed discrete Gaussian and Skellam mechanisms (conditional rounding,
 * {@code smm.mechanism}), and central DP-SGD (continuous Gaussian, every party trusted). cpSGD is
 * not among them (it has no RDP curve; see docs/smm.md).
 */
final class SmmPresets {
  private SmmPresets() {}

  static final String FL = "smm-fl";

  static ExperimentConfig fl(String dataset, boolean quick) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = m.createObjectNode();
    j.put("name", FL + "-" + dataset + (quick ? "-quick" : ""));
    j.put("dataset", dataset);
    j.put("features", "raw");
    j.put("per_party", quick ? 200 : 6000);
    j.set("parties", m.valueToTree(List.of(10)));
    j.put("delta", 1e-5);
    j.put("honest_fraction", 1.0);
    j.put("repeats", quick ? 1 : 2);
    j.put("validation_from", "test");
    j.put("validation_fraction", 0.5);
    j.set("epsilons", m.valueToTree(quick ? List.of(1.0, 5.0) : List.of(1.0, 2.0, 3.0, 4.0, 5.0)));
    ArrayNode variants = j.putArray("variants");
    for (int b : quick ? List.of(8) : List.of(6, 8, 10)) {
      for (String mechanism : List.of("smm", "ddg", "skellam")) {
        ObjectNode settings = m.createObjectNode();
        ObjectNode l = settings.putObject("learner").put("kind", "mlp");
        l.putArray("hidden").add(quick ? 16 : 80);
        settings.putObject("smm").put("mechanism", mechanism).put("bits", b).put("gamma", Math.scalb(1.0, b - 2))
            .put("sampling_rate", quick ? 0.05 : 0.004).put("expected_batch", quick ? 100 : 240)
            .put("rounds", quick ? 20 : 1000).put("learning_rate", 0.005);
        variants.addObject().put("name", mechanism + "-b" + b).put("algorithm", "smm").put("summation", "simulated")
            .set("settings", settings);
      }
    }
    // Central DP-SGD (the paper's "DPSGD"): the same MLP, sampling, clip and optimiser, continuous
    // Gaussian noise of the full variance as if added by a trusted server (dp-fl with every party
    // trusted), accounted with RDP under add-or-remove neighbours like SMM.
    ObjectNode dp = m.createObjectNode();
    ObjectNode dl = dp.putObject("learner").put("kind", "mlp");
    dl.putArray("hidden").add(quick ? 16 : 80);
    dp.putObject("dpfl").put("sampling_rate", quick ? 0.05 : 0.004).put("expected_batch", quick ? 100 : 240)
        .put("rounds", quick ? 20 : 1000).put("learning_rate", 0.005).put("optimizer", "adam").put("grad_clip", 1.0)
        .put("noise_split", "all-trusted").put("neighbours", "add-remove").put("accountant", "rdp");
    variants.addObject().put("name", "dp-sgd").put("algorithm", "dp-fl").put("summation", "simulated")
        .set("settings", dp);
    j.putObject("plots").put("fixed_epsilon", 3);
    return ExperimentConfig.parse(j, "preset " + FL);
  }
}
