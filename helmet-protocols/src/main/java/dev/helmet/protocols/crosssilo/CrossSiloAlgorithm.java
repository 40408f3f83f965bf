package dev.helmet.protocols.crosssilo;

import dev.helmet.protocols.shared.LinearInputs;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.nn.Mlp;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.MlpLayers;
import dev.helmet.protocols.algorithm.Parameter;
import dev.helmet.protocols.algorithm.Parameter.Type;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.dpsgd.DpSgdModel;
import dev.helmet.protocols.privacy.Protection;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Cross-silo DP federated learning (Heikkilä, Koskela, Shimizu, Kaski, Honkela, "Differentially
 * private cross-silo federated learning", 2020; SPEC 2.3 and 7) as an {@link Algorithm}: a few
 * data-rich parties train one model by DP-SGD, each adding only its share of the Gaussian noise,
 * sized so that the guarantee survives T parties colluding with the server ({@link CrossSiloPlan}).
 * Its settings sit under {@code crosssilo:}; the model under {@code learner:} (an MLP by default, as
 * in the paper, or the softmax model). The summation is the runner's choice (secure aggregation,
 * compute servers, or simulated), as for every algorithm.
 */
public final class CrossSiloAlgorithm implements Algorithm {
  public static final String ID = "cross-silo";
  static final String SECTION = "crosssilo";

  @Override
  public String id() {
    return ID;
  }

  /** Ten parties: a few data-rich ones, as in the paper and docs/cross-silo.md (10 x 6,000 MNIST records). */
  @Override
  public int defaultParties() {
    return 10;
  }

  @Override
  public String summary() {
    return "cross-silo DP-SGD (Heikkila et al.): a few data-rich parties, each adding its share of the noise so the "
        + "guarantee survives T colluders; one summation per step";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(
        new Parameter("learner.kind", "--learner", Type.TEXT, "mlp", "the model: mlp or softmax"),
        new Parameter("learner.hidden", "--hidden", Type.TEXT, "80",
            "the MLP's hidden layer widths (ReLU), for --learner mlp"),
        new Parameter(SECTION + ".colluders", "--colluders", Type.INTEGER, "0",
            "T: parties that may collude with the server; with --noise-split colluders each party adds 1/(M - T - 1) "
                + "of the noise variance (M: the fewest contributors)", "colluders"),
        new Parameter(SECTION + ".noise_split", "--noise-split", Type.TEXT, "colluders",
            "colluders (survives T colluders and the observing party), trusted-hardware (1/M each: "
                + "assumes no share leaves its enclave) or local (each party adds all of it)", "noise_split"),
        new Parameter(SECTION + ".neighbours", "--neighbours", Type.TEXT, "replace-one",
            "the neighbouring relation: replace-one (Helmet's) or add-remove (needs expected_batch)"),
        new Parameter(SECTION + ".sampling_rate", "--sampling-rate", Type.NUMBER, "0.008",
            "each record joins a step's batch with probability Q (Poisson, each party sampling its own)",
            "sampling_rate"),
        new Parameter(SECTION + ".sampling", "--sampling", Type.TEXT, "poisson",
            "poisson (each party samples its own records) or swor (a global batch of --batch-size records without "
                + "replacement, drawn over a token list shuffled by an onion mixnet; replace-one neighbours)"),
        new Parameter(SECTION + ".batch", "--batch-size", Type.INTEGER, "none (needed for swor)",
            "b: the fixed batch size under --sampling swor").withAliases("--batch"),
        new Parameter(SECTION + ".swor_analysis", "--swor-analysis", Type.TEXT, "exact",
            "exact (the hypergeometric mixture), slack (the paper's, with --swor-slack per step) or worst-case"),
        new Parameter(SECTION + ".swor_slack", "--swor-slack", Type.NUMBER, "1e-10",
            "the per-step slack of --swor-analysis slack (paid every step)"),
        new Parameter(SECTION + ".swor_mixnet", "--swor-mixnet", Type.TEXT, "real",
            "real (the onion mixnet, in process) or ideal (uniform batches without the cryptography; experiments)"),
        new Parameter(SECTION + ".expected_batch", "--expected-batch", Type.NUMBER, "Q x the contributors' records",
            "the public number each step's summed gradient is divided by; needed under add-remove"),
        new Parameter(SECTION + ".rounds", "--rounds", Type.INTEGER, "epochs / Q", "DP-SGD rounds, one summation each"),
        new Parameter(SECTION + ".epochs", "--dp-epochs", Type.NUMBER, "10",
            "passes over the data when rounds is not given (rounds = epochs / Q)", "epochs"),
        new Parameter(SECTION + ".grad_clip", "--grad-clip", Type.NUMBER, "2.5", "per-example gradient L2 bound C",
            "clip"),
        new Parameter(SECTION + ".learning_rate", "--learning-rate", Type.NUMBER, "0.0009 (adam), 2 (sgd)",
            "the server's step size on the mean clipped gradient", "learning_rate"),
        new Parameter(SECTION + ".optimizer", "--optimizer", Type.TEXT, "adam", "sgd or adam (the server's update rule)"),
        new Parameter(SECTION + ".accountant", "--accountant", Type.TEXT, "pld (rdp under add-remove)", "pld or rdp"),
        new Parameter(SECTION + ".start_seed", "--start-seed", Type.INTEGER, "1",
            "public seed of the MLP's initial model"),
        new Parameter(SECTION + ".noise_group", "--noise-group", Type.INTEGER, "0",
            "g: size the noise shares so that the sum of any g parties is DP by itself, for a summation that shows "
                + "the server each group's sum (--summation groups --mask-group g); 0: only the total is shown",
            "noise_group"),
        new Parameter(SECTION + ".projection", "--projection-dim", Type.INTEGER, "0",
            "k: each party sends the sum of its records' projected gradients P^T g, each clipped to C~ = C "
                + "r(k, delta'), plus its noise share; P a fresh public d x k Gaussian matrix per step (0: none)",
            "projection"),
        new Parameter(SECTION + ".projection_slack", "--projection-slack", Type.NUMBER, "delta / (20 c rounds)",
            "delta': sets the projected clip C~ = C r(k, delta'), the bound an honest record's projection independent "
                + "of P exceeds with probability delta' (c = 2 under replace-one, 1 under add-remove); a record "
                + "beyond C~ is clipped to it, so delta' is not charged to delta"),
        new Parameter(SECTION + ".projection_seed", "--projection-seed", Type.INTEGER, "1",
            "seed of the public projections P_t (each step's from it and the step): changes which P is used, "
                + "not the guarantee, which holds for any P since each record's projection is clipped to C~"),
        LinearInputs.clipBound(), LinearInputs.normalise());
  }

  @Override
  public Set<String> keys() {
    return Set.of("learner", SECTION);
  }

  @Override
  public AlgorithmSpec configure(StrictNode config, Common common) {
    common.requireClasses(ID);
    if (common.protection().unit() != Protection.Unit.RECORD) {
      throw new IllegalArgumentException(ID + " protects records; the protection unit is "
          + common.protection().describe());
    }
    StrictNode l = config.child("learner");
    l.allow("kind", "hidden", "clip_bound", "normalise", "feature_bounds");
    String kind = l.string("kind", LearnerKind.MLP.id()).trim().toLowerCase(Locale.ROOT);
    boolean mlp = kind.equals(LearnerKind.MLP.id());
    if (!mlp && !kind.equals(LearnerKind.SOFTMAX.id())) {
      throw l.error("kind", "must be mlp or softmax: cross-silo trains an MLP or the softmax model. Provided value: "
          + l.string("kind", ""));
    }
    if (!mlp && l.has("hidden")) {
      throw l.error("hidden", "applies to the mlp learner only; the learner is softmax");
    }
    int[] hidden = mlp ? MlpLayers.hidden(l) : null;
    Preprocessing pre = LinearInputs.preprocessing(l, common.features());
    StrictNode d = config.child(SECTION);
    d.allow("colluders", "noise_split", "neighbours", "sampling", "sampling_rate", "expected_batch", "rounds",
        "epochs", "batch", "swor_analysis", "swor_slack", "swor_mixnet", "grad_clip", "learning_rate", "optimizer", "accountant", "start_seed", "noise_group", "projection",
        "projection_slack", "projection_seed");
    String sampling = d.string("sampling", "poisson").trim().toLowerCase(Locale.ROOT);
    if (!sampling.equals("poisson") && !sampling.equals("swor")) {
      throw d.error("sampling", "must be poisson or swor. Provided value: " + sampling);
    }
    for (String key : new String[] {"batch", "swor_analysis", "swor_slack", "swor_mixnet"}) {
      if (sampling.equals("poisson") && d.has(key)) {
        throw d.error(key, "applies to sampling swor only");
      }
    }
    DpSgdModel.Optimizer optimizer;
    try {
      optimizer = DpSgdModel.Optimizer.parse(d.string("optimizer", DpSgdModel.Optimizer.ADAM.id()));
    } catch (IllegalArgumentException e) {
      throw d.error("optimizer", e.getMessage());
    }
    CrossSiloConfig.NoiseSplit split;
    try {
      split = CrossSiloConfig.NoiseSplit.parse(d.string("noise_split", "colluders"));
    } catch (IllegalArgumentException e) {
      throw d.error("noise_split", e.getMessage());
    }
    NeighbourRelation relation;
    try {
      relation = NeighbourRelation.parse(d.string("neighbours", "replace-one"));
    } catch (IllegalArgumentException e) {
      throw d.error("neighbours", e.getMessage());
    }
    if (relation == NeighbourRelation.ADD_OR_REMOVE_ONE && !d.has("expected_batch")) {
      throw d.error("expected_batch", "is required under add-remove neighbours: the number of records is private "
          + "there, so the step's normaliser must be a public number");
    }
    if (!mlp && d.has("start_seed")) {
      throw d.error("start_seed", "applies to the mlp learner only; the softmax model starts at zero");
    }
    double q = d.number("sampling_rate", 0.008, 1e-9, 1);
    if (d.has("rounds") && d.has("epochs")) {
      throw d.error("rounds", "and crosssilo.epochs are alternatives; give one");
    }
    int rounds = d.has("rounds") ? d.integer("rounds", null, 1, 10_000_000)
        : (int) Math.min(10_000_000, Math.ceil(d.number("epochs", 10.0, 1e-9, 1e6) / q));
    double expected = d.has("expected_batch") ? d.number("expected_batch", null, 1e-9, 1e12) : Double.NaN;
    double lr = d.number("learning_rate", optimizer == DpSgdModel.Optimizer.ADAM ? 9e-4 : 2.0, 1e-12, 1e12);
    String accountant = d.string("accountant", relation == NeighbourRelation.REPLACE_ONE ? "pld" : "rdp");
    int colluders = d.integer("colluders", 0, 0, 1_000_000);
    int k = d.integer("projection", 0, 0, 1 << 24);
    if (k == 0 && (d.has("projection_slack") || d.has("projection_seed"))) {
      throw d.error(d.has("projection_slack") ? "projection_slack" : "projection_seed", "applies only with a "
          + "projection (crosssilo.projection, --projection-dim k > 0)");
    }
    // The default delta' is the one that spent 5 % of delta over all steps when it was charged
    // (c rounds delta' = delta / 20): the same C~ as before, now a clip rather than a charge.
    int c2 = relation == NeighbourRelation.REPLACE_ONE ? 2 : 1;
    double slack = k == 0 ? 0 : d.number("projection_slack", common.delta() / (20.0 * c2 * rounds), 1e-300, 0.5);
    long projectionSeed = d.integer("projection_seed", 1, Integer.MIN_VALUE, Integer.MAX_VALUE);
    CrossSiloConfig.Swor swor = null;
    if (sampling.equals("swor")) {
      String analysis = d.string("swor_analysis", "exact");
      String mixnet = d.string("swor_mixnet", "real");
      if (!mixnet.equals("real") && !mixnet.equals("ideal")) {
        throw d.error("swor_mixnet", "must be real or ideal. Provided value: " + mixnet);
      }
      if (!analysis.equals("slack") && d.has("swor_slack")) {
        throw d.error("swor_slack", "applies to swor_analysis slack only");
      }
      try {
        swor = new CrossSiloConfig.Swor(d.integer("batch", null, 1, Integer.MAX_VALUE), analysis,
            analysis.equals("slack") ? d.number("swor_slack", 1e-10, 1e-300, 0.5) : 0, mixnet.equals("ideal"));
      } catch (IllegalArgumentException e) {
        throw d.error("swor_analysis", e.getMessage());
      }
    }
    CrossSiloConfig c;
    try {
      c = new CrossSiloConfig(colluders, split, relation, q, expected, rounds, d.number("grad_clip", 2.5, 1e-12, 1e12),
          lr, accountant, k, slack, projectionSeed, d.integer("noise_group", 0, 0, 1_000_000), swor);
    } catch (IllegalArgumentException e) {
      throw d.error(swor != null ? "sampling" : k > 0 ? "projection" : "accountant", e.getMessage());
    }
    int startSeed = d.integer("start_seed", 1, Integer.MIN_VALUE, Integer.MAX_VALUE);
    DpSgdModel model = mlp
        ? DpSgdModel.mlp(new Mlp(MlpLayers.widths(common.features(), hidden, common.classes())), optimizer, startSeed)
        : DpSgdModel.softmax(common.classes(), common.features() + 1, optimizer);
    return new CrossSiloSpec(this, common, c, pre, model);
  }
}
