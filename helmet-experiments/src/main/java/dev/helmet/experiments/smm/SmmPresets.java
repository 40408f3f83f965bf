package dev.helmet.experiments.smm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.experiments.Computation;
import dev.helmet.experiments.ComputedPreset;
import dev.helmet.experiments.ExperimentConfig;
import dev.helmet.experiments.GridPreset;
import dev.helmet.experiments.Preset;
import dev.helmet.experiments.sum.SumEstimation;
import java.nio.file.Path;
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
 * {@code smm.mechanism}), cpSGD's binomial mechanism (the same rounding, accounted in (eps, delta)
 * terms as the paper does; in the eps grid only, not in the sweeps) and central DP-SGD (continuous
 * Gaussian, every party trusted).
 */
public final class SmmPresets implements Preset.Provider {
  /** For {@link java.util.ServiceLoader}. */
  public SmmPresets() {}

  static final String FL = "smm-fl";
  static final String BATCH = "smm-fl-batch";
  static final String GAMMA = "smm-fl-gamma";
  /** A mechanism experiment on synthetic vectors ({@link SumEstimation}), not a learning grid. */
  static final String SUM = "smm-sum";

  private static final String PAPER = "Bao et al., the Skellam mixture mechanism (PVLDB 2022)";

  /**
   * smm-fl, smm-fl-batch and smm-fl-gamma, each with the report section that checks the paper's
   * claims ({@link SmmClaims}), and smm-sum.
   */
  @Override
  public List<Preset> presets() {
    return List.of(
        new GridPreset(FL, new Preset.Source(PAPER, "Sec. 6.2, accuracy against eps"), "mnist",
            (dataset, quick, features) -> fl(rawOnly(FL, dataset, features), quick)).withClaims(SmmClaims.SECTION),
        new GridPreset(BATCH, new Preset.Source(PAPER, "Sec. 6.2, accuracy against |B|"), "mnist",
            (dataset, quick, features) -> batch(rawOnly(BATCH, dataset, features), quick))
            .withClaims(SmmClaims.SECTION),
        new GridPreset(GAMMA, new Preset.Source(PAPER, "Sec. 6.2, accuracy against gamma / m"), "mnist",
            (dataset, quick, features) -> gamma(rawOnly(GAMMA, dataset, features), quick))
            .withClaims(SmmClaims.SECTION),
        new ComputedPreset(SUM, new Preset.Source(PAPER, "Sec. 6.1, distributed sum estimation"),
            new Preset.Outputs(List.of("results.csv"), true, "report.md"), SmmPresets::sumEstimation));
  }

  /** {@code dataset}, if {@code features} is raw: the presets train the paper's MLP on raw pixels. */
  private static String rawOnly(String name, String dataset, String features) {
    if (!features.trim().equalsIgnoreCase("raw")) {
      throw new IllegalArgumentException(name + " trains the paper's MLP on raw pixels: --features does not apply");
    }
    return dataset;
  }

  /** The smm-sum preset: a mechanism experiment on synthetic vectors, not a learning grid. */
  private static Computation.Result sumEstimation(Computation.Request r) throws java.io.IOException {
    if (r.dataset() != null || r.features() != null) {
      throw new IllegalArgumentException("smm-sum runs on synthetic points on the unit sphere; --dataset and "
          + "--features do not apply");
    }
    int t = r.threads() != null ? r.threads() : Runtime.getRuntime().availableProcessors();
    if (t < 1) {
      throw new IllegalArgumentException("--threads must be positive. Provided value: " + t);
    }
    Path out = r.out();
    var g = SumEstimation.grid(r.quick());
    long start = System.nanoTime();
    var rows = SumEstimation.run(g, out, t, r.progress());
    var plots = SumEstimation.plots(g, rows, out);
    double seconds = (System.nanoTime() - start) / 1e9;
    Path report = SumEstimation.report(g, rows, plots, out,
        "helmet experiment run --preset " + SUM + r.quickFlag() + " --out " + out, seconds);
    return new Computation.Result(SUM + ": " + rows.size() + " runs", seconds, List.of(out.resolve("results.csv")),
        report, plots);
  }

  static ExperimentConfig fl(String dataset, boolean quick) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = base(m, FL, dataset, quick);
    j.set("epsilons", m.valueToTree(quick ? List.of(1.0, 5.0) : List.of(1.0, 2.0, 3.0, 4.0, 5.0)));
    ArrayNode variants = j.putArray("variants");
    // Quick: 10 rounds, as the quick sweeps (20 before): most of a cell's time goes into its rounds
    // x |B| rotated and stochastically rounded gradients of d = 12,730, and each eps trains anew.
    int rounds = quick ? 10 : 1000;
    for (int b : quick ? List.of(8) : List.of(6, 8, 10)) {
      for (String mechanism : List.of("smm", "ddg", "skellam", "cpsgd")) {
        variants.add(ring(m, mechanism, b, Math.scalb(1.0, b - 2), quick ? 0.05 : 0.004, quick ? 100 : 240,
            rounds, quick, ""));
      }
    }
    // Central DP-SGD (the paper's "DPSGD"): the same MLP, sampling, clip and optimiser, continuous
    // Gaussian noise of the full variance as if added by a trusted server (dp-fl with every party
    // trusted), accounted with RDP under add-or-remove neighbours like SMM.
    variants.add(dpSgd(m, quick ? 0.05 : 0.004, quick ? 100 : 240, rounds, quick, ""));
    j.putObject("plots").put("fixed_epsilon", 3);
    return ExperimentConfig.parse(j, "preset " + FL);
  }

  /**
   * Test accuracy at eps 3 against the expected batch |B| in {120, 240, 480, 960} (q = |B| / 60,000,
   * 4 epochs: 4 x 60,000 / |B| rounds), for every mechanism and b = 6, 8, 10, with central DP-SGD:
   * variants named MECHANISM-bB@|B|, plotted against |B|.
   */
  static ExperimentConfig batch(String dataset, boolean quick) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = sweepBase(m, BATCH, dataset, quick, "expected batch |B|");
    ArrayNode variants = j.putArray("variants");
    int records = quick ? 2000 : 60000;
    for (int batch : quick ? List.of(50, 100) : List.of(120, 240, 480, 960)) {
      double q = (double) batch / records;
      int rounds = quick ? 10 : (int) Math.round(4.0 / q);
      for (int b : quick ? List.of(8) : List.of(6, 8, 10)) {
        for (String mechanism : quick ? List.of("smm", "ddg") : List.of("smm", "ddg", "skellam")) {
          variants.add(ring(m, mechanism, b, Math.scalb(1.0, b - 2), q, batch, rounds, quick, "@" + batch));
        }
      }
      if (!quick) {
        variants.add(dpSgd(m, q, batch, rounds, false, "@" + batch));
      }
    }
    return ExperimentConfig.parse(j, "preset " + BATCH);
  }

  /**
   * Test accuracy at eps 3, |B| = 240, against gamma from m/32 to m (x = gamma / m), for every
   * mechanism and b = 6, 8, 10: variants named MECHANISM-bB@RATIO.
   */
  static ExperimentConfig gamma(String dataset, boolean quick) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode j = sweepBase(m, GAMMA, dataset, quick, "gamma / m");
    ArrayNode variants = j.putArray("variants");
    double q = quick ? 0.05 : 0.004;
    int batch = quick ? 100 : 240;
    for (int k : quick ? List.of(-4, -2) : List.of(-5, -4, -3, -2, -1, 0)) {
      double ratio = Math.scalb(1.0, k);
      for (int b : quick ? List.of(8) : List.of(6, 8, 10)) {
        for (String mechanism : quick ? List.of("smm", "ddg") : List.of("smm", "ddg", "skellam")) {
          variants.add(ring(m, mechanism, b, Math.scalb(1.0, b + k), q, batch, quick ? 10 : 1000, quick,
              "@" + ratio));
        }
      }
    }
    return ExperimentConfig.parse(j, "preset " + GAMMA);
  }

  /** A sweep at eps 3, plotted against the value in its variants' names. */
  private static ObjectNode sweepBase(ObjectMapper m, String name, String dataset, boolean quick, String label) {
    ObjectNode j = base(m, name, dataset, quick);
    j.set("epsilons", m.valueToTree(List.of(3.0)));
    j.putObject("plots").put("fixed_epsilon", 3).put("sweep", label);
    return j;
  }

  /** The paper's setting: 10 parties of 6,000 records (200 quick), every party honest. */
  private static ObjectNode base(ObjectMapper m, String name, String dataset, boolean quick) {
    ObjectNode j = m.createObjectNode();
    j.put("name", name + "-" + dataset + (quick ? "-quick" : ""));
    j.put("dataset", dataset);
    j.put("features", "raw");
    j.put("per_party", quick ? 200 : 6000);
    j.set("parties", m.valueToTree(List.of(10)));
    j.put("delta", 1e-5);
    j.put("honest_fraction", 1.0);
    j.put("repeats", quick ? 1 : 2);
    j.put("validation_from", "test");
    j.put("validation_fraction", 0.5);
    return j;
  }

  private static ObjectNode ring(ObjectMapper m, String mechanism, int bits, double gamma, double q, int batch,
      int rounds, boolean quick, String suffix) {
    ObjectNode settings = m.createObjectNode();
    settings.putObject("learner").put("kind", "mlp").putArray("hidden").add(quick ? 16 : 80);
    settings.putObject("smm").put("mechanism", mechanism).put("bits", bits).put("gamma", gamma)
        .put("sampling_rate", q).put("expected_batch", batch).put("rounds", rounds).put("learning_rate", 0.005);
    ObjectNode v = m.createObjectNode().put("name", mechanism + "-b" + bits + suffix).put("algorithm", "smm")
        .put("summation", "simulated");
    v.set("settings", settings);
    return v;
  }

  private static ObjectNode dpSgd(ObjectMapper m, double q, int batch, int rounds, boolean quick, String suffix) {
    ObjectNode dp = m.createObjectNode();
    dp.putObject("learner").put("kind", "mlp").putArray("hidden").add(quick ? 16 : 80);
    dp.putObject("dpfl").put("sampling_rate", q).put("expected_batch", batch).put("rounds", rounds)
        .put("learning_rate", 0.005).put("optimizer", "adam").put("grad_clip", 1.0).put("noise_split", "all-trusted")
        .put("neighbours", "add-remove").put("accountant", "rdp");
    ObjectNode v = m.createObjectNode().put("name", "dp-sgd" + suffix).put("algorithm", "dp-fl")
        .put("summation", "simulated");
    v.set("settings", dp);
    return v;
  }
}
