package dev.helmet.protocols.smm;

import dev.helmet.protocols.shared.LinearInputs;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.Parameter;
import dev.helmet.protocols.algorithm.Parameter.Type;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.privacy.Protection;
import java.util.List;
import java.util.Set;

/**
 * The Skellam mixture mechanism (Bao et al., PVLDB 2022) as an {@link Algorithm}: federated
 * training of an MLP where each party sends b bits per coordinate through one summation per round
 * in Z_{2^b}. Settings under {@code smm:}; the MLP and the public preprocessing under {@code learner:}.
 */
public final class SmmAlgorithm implements Algorithm {
  public static final String ID = "smm";

  @Override
  public String id() {
    return ID;
  }

  /** Ten parties: the setting docs/smm.md measures (10 x 6,000 MNIST records, the paper's 1,000 rounds). */
  @Override
  public int defaultParties() {
    return 10;
  }

  /**
   * Below eps 1 its defaults learn little: 10.44 % on MNIST at the default 0.5 (1,000 rounds of q =
   * 0.004, honest fraction 0.5; measured with {@code ./helmet train --algorithm smm}, 1 December
   * 2026), against 82 % at eps 3 (docs/smm.md, Measured).
   */
  @Override
  public String defaultEpsilonNote(double epsilon) {
    if (epsilon >= 1) {
      return null;
    }
    return "helmet: note: smm runs at the default eps " + epsilon + ", where its defaults learn little (on MNIST "
        + "about 10 %, chance): 1,000 noised rounds share the budget. Its documented runs use eps 3 (82 % on MNIST, "
        + "docs/smm.md): helmet train --algorithm smm --epsilon 3, or the epsilon you mean to spend";
  }

  @Override
  public String summary() {
    return "Skellam mixture mechanism: federated training of an MLP with b bits per coordinate; each round every "
        + "party rotates, scales, mixture-clips and stochastically rounds its sampled records' clipped gradients and "
        + "adds its exact Skellam noise share, one summation per round modulo 2^b (--mechanism ddg, skellam or cpsgd: "
        + "the paper's baselines on the same pipeline)";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(
        new Parameter("learner.hidden", "--hidden", Type.TEXT, "80", "the MLP's hidden layer widths (ReLU)"),
        new Parameter("smm.bits", "--bits", Type.INTEGER, "8", "b: bits per coordinate; sums are taken modulo 2^b"),
        new Parameter("smm.gamma", "--gamma", Type.NUMBER, "2^b / 4",
            "the scale after the rotation: one ring unit is 1/gamma of a gradient unit"),
        new Parameter("smm.grad_clip", "--grad-clip", Type.NUMBER, "1",
            "per-example gradient L2 bound C (the mixture clip bound is c = (gamma C)^2)", "clip"),
        new Parameter("smm.sampling_rate", "--sampling-rate", Type.NUMBER, "0.004",
            "each record joins a round with probability Q (Poisson, secret)", "sampling_rate"),
        new Parameter("smm.expected_batch", "--expected-batch", Type.NUMBER,
            "Q x the public record count (a built-in data set's published training split, or parties x --per-party); "
                + "required otherwise",
            "the public number each round's sum is divided by (the paper's |B|; never computed from the records, "
                + "whose number is private under add-or-remove neighbours)"),
        new Parameter("smm.rounds", "--rounds", Type.INTEGER, "epochs / Q", "DP-SGD rounds, one summation each"),
        new Parameter("smm.epochs", "--dp-epochs", Type.NUMBER, "4",
            "passes over the data when rounds is not given (rounds = epochs / Q)", "epochs"),
        new Parameter("smm.learning_rate", "--learning-rate", Type.NUMBER, "0.005", "the server's step size",
            "learning_rate"),
        new Parameter("smm.optimizer", "--optimizer", Type.TEXT, "adam", "sgd or adam (the server's update rule)"),
        new Parameter("smm.subsampling", "--subsampling", Type.TEXT, "general",
            "general (Zhu and Wang's bound, sound for any mechanism) or paper (the paper's form; reproduces it)"),
        new Parameter("smm.mechanism", "--mechanism", Type.TEXT, "smm",
            "smm (the Skellam mixture mechanism), or the paper's baselines on the same pipeline: ddg (distributed "
                + "discrete Gaussian), skellam (distributed Skellam) or cpsgd (cpSGD's binomial noise, accounted in "
                + "(eps, delta) terms), all with conditional rounding"),
        new Parameter("smm.start_seed", "--start-seed", Type.INTEGER, "1",
            "public seed of the initial model and the rounds' rotations"),
        LinearInputs.clipBound(), LinearInputs.normalise());
  }

  @Override
  public Set<String> keys() {
    return Set.of("learner", "smm");
  }

  private static String mechanism(StrictNode s) {
    String m = s.string("mechanism", "smm").toLowerCase(java.util.Locale.ROOT);
    if (!SmmConfig.MECHANISMS.contains(m)) {
      throw s.error("mechanism", "must be smm, ddg, skellam or cpsgd. Provided value: " + m);
    }
    if (!m.equals("smm") && s.string("subsampling", "general").equalsIgnoreCase("paper")) {
      throw s.error("subsampling", "paper is offered for smm only (to reproduce its numbers); " + m + " uses the "
          + "general bound");
    }
    return m;
  }

  /**
   * The step's normaliser |B|: the configured one, or q times a record count fixed by public
   * configuration ({@link Common#publicRecords}); never q times the records loaded or on the roster.
   * SMM's guarantee is for one record added or removed, so the number of records is private: a
   * normaliser computed from it would make the whole trajectory a function of N.
   */
  private static double expectedBatch(StrictNode s, double q, Common common) {
    if (s.has("expected_batch")) {
      return s.number("expected_batch", null, 1e-9, 1e12);
    }
    if (common.publicRecords() > 0) {
      return q * common.publicRecords();
    }
    throw s.error("expected_batch", "is required: smm's guarantee is for one record added or removed, so the number "
        + "of records is private and the step's normaliser must be a public number; give the expected records per "
        + "round, q x the records you plan for (e.g. 240 for q 0.004 on MNIST's 60,000 training records; for the "
        + "built-in mnist and fashion-mnist, and with --per-party, that is the default)");
  }

  @Override
  public AlgorithmSpec configure(StrictNode config, Common common) {
    common.requireClasses(ID);
    if (common.protection().unit() != Protection.Unit.RECORD) {
      throw new IllegalArgumentException("smm protects records; the protection unit is "
          + common.protection().describe());
    }
    StrictNode l = config.child("learner");
    l.allow("kind", "hidden", "clip_bound", "normalise", "feature_bounds");
    if (l.has("kind") && !l.string("kind", "mlp").equalsIgnoreCase(LearnerKind.MLP.id())) {
      throw l.error("kind", "must be mlp: smm trains an MLP. Provided value: " + l.string("kind", ""));
    }
    int[] hidden = dev.helmet.protocols.algorithm.MlpLayers.hidden(l);
    Preprocessing pre = LinearInputs.preprocessing(l, common.features());
    StrictNode s = config.child("smm");
    s.allow("bits", "gamma", "grad_clip", "sampling_rate", "expected_batch", "rounds", "epochs", "learning_rate",
        "optimizer", "subsampling", "start_seed", "mechanism");
    int bits = s.integer("bits", 8, 2, 64);
    double gamma = s.number("gamma", Math.scalb(1.0, bits - 2), 1e-9, 1e18);
    double q = s.number("sampling_rate", 0.004, 1e-9, 1);
    if (s.has("rounds") && s.has("epochs")) {
      throw s.error("rounds", "and smm.epochs are alternatives; give one");
    }
    int rounds = s.has("rounds") ? s.integer("rounds", null, 1, 10_000_000)
        : (int) Math.min(10_000_000, Math.ceil(s.number("epochs", 4.0, 1e-9, 1e6) / q));
    String opt = s.string("optimizer", "adam").toLowerCase(java.util.Locale.ROOT);
    if (!opt.equals("adam") && !opt.equals("sgd")) {
      throw s.error("optimizer", "must be adam or sgd. Provided value: " + opt);
    }
    dev.helmet.privacy.accounting.SkellamMixtureRdp.Subsampling sub;
    try {
      sub = SmmSpec.subsampling(s.string("subsampling", "general"));
    } catch (IllegalArgumentException e) {
      throw s.error("subsampling", e.getMessage());
    }
    SmmConfig c = new SmmConfig(hidden, bits, gamma, s.number("grad_clip", 1.0, 1e-12, 1e12), q,
        expectedBatch(s, q, common), rounds,
        s.number("learning_rate", 0.005, 1e-12, 1e6), opt.equals("adam"), sub,
        s.integer("start_seed", 1, Integer.MIN_VALUE, Integer.MAX_VALUE), mechanism(s));
    return new SmmSpec(this, common, c, pre);
  }
}
