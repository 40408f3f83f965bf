package dev.helmet.protocols.dpfl;

import dev.helmet.protocols.dpsgd.DpSgdModel;
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
import dev.helmet.protocols.privacy.Protection;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Federated DP-SGD ({@link DpFl}) of the softmax model or an MLP ({@link DpSgdModel}) as an {@link
 * Algorithm}: one summation per SGD round. Its settings sit under {@code dpfl:}; the model and the
 * public preprocessing under {@code learner:} ({@code kind: softmax} by default, or {@code kind: mlp}
 * with {@code hidden}).
 */
public final class DpFlAlgorithm implements Algorithm {
  public static final String ID = "dp-fl";

  @Override
  public String id() {
    return ID;
  }

  /**
   * A hundred parties: every one of federated DP-SGD's rounds sums all parties through secure
   * aggregation, whose cost per round grows with the parties (the default 50 rounds of 1,000
   * parties took 12-25 minutes on 2 shared cores; of 100 about a minute).
   */
  @Override
  public int defaultParties() {
    return 100;
  }

  @Override
  public String summary() {
    return "federated DP-SGD of the softmax model or an MLP: every round each party sums its Poisson-sampled "
        + "clipped gradients plus its noise share, one summation per round";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(
        new Parameter("learner.kind", "--learner", Type.TEXT, "softmax", "the model: softmax or mlp"),
        new Parameter("learner.hidden", "--hidden", Type.TEXT, "80",
            "the MLP's hidden layer widths (ReLU), for --learner mlp"),
        new Parameter("dpfl.sampling_rate", "--sampling-rate", Type.NUMBER, "0.1",
            "each record joins a round's batch with probability Q (Poisson)", "sampling_rate"),
        new Parameter("dpfl.grad_clip", "--grad-clip", Type.NUMBER, "1", "per-example gradient L2 bound C", "clip"),
        new Parameter("dpfl.rounds", "--rounds", Type.INTEGER, "epochs / Q", "DP-SGD rounds, one summation each"),
        new Parameter("dpfl.epochs", "--dp-epochs", Type.NUMBER, "5",
            "passes over the data when rounds is not given (rounds = epochs / Q)", "epochs"),
        new Parameter("dpfl.learning_rate", "--learning-rate", Type.NUMBER, "2 (sgd), 0.005 (adam)",
            "the server's step size on the mean clipped gradient", "learning_rate"),
        new Parameter("dpfl.optimizer", "--optimizer", Type.TEXT, "sgd", "sgd or adam (the server's update rule)"),
        new Parameter("dpfl.start_seed", "--start-seed", Type.INTEGER, "1",
            "public seed of the MLP's initial model (the softmax model starts at zero)"),
        new Parameter("dpfl.noise_split", "--noise-split", Type.TEXT, "honest",
            "honest (the honest fraction's parties alone add the full noise), all-trusted (each adds 1/W of it, "
                + "as central DP-SGD) or sqrt-w-penalty (each adds all of it: the Helmet papers' baseline)"),
        new Parameter("dpfl.accountant", "--accountant", Type.TEXT, "pld (rdp under add-remove)", "pld or rdp"),
        new Parameter("dpfl.neighbours", "--neighbours", Type.TEXT, "replace-one",
            "the neighbouring relation: replace-one (Helmet's) or add-remove (needs expected_batch)"),
        new Parameter("dpfl.expected_batch", "--expected-batch", Type.NUMBER, "Q x the contributors' records",
            "the public number each round's summed gradient is divided by; needed under add-remove"),
        LinearInputs.clipBound(), LinearInputs.normalise());
  }

  @Override
  public Set<String> keys() {
    return Set.of("learner", "dpfl");
  }

  @Override
  public AlgorithmSpec configure(StrictNode config, Common common) {
    common.requireClasses(ID);
    StrictNode l = config.child("learner");
    l.allow("kind", "hidden", "clip_bound", "normalise", "feature_bounds");
    String kind = l.string("kind", LearnerKind.SOFTMAX.id()).trim().toLowerCase(Locale.ROOT);
    boolean mlp = kind.equals(LearnerKind.MLP.id());
    if (!mlp && !kind.equals(LearnerKind.SOFTMAX.id())) {
      throw l.error("kind", "must be softmax or mlp: dp-fl trains the softmax model or an MLP. Provided value: "
          + l.string("kind", ""));
    }
    if (!mlp && l.has("hidden")) {
      throw l.error("hidden", "applies to the mlp learner only (learner.kind: mlp, --learner mlp); the learner is "
          + "softmax");
    }
    int[] hidden = mlp ? MlpLayers.hidden(l) : null;
    if (common.protection().unit() != Protection.Unit.RECORD) {
      throw new IllegalArgumentException("dp-fl protects records; the protection unit is "
          + common.protection().describe());
    }
    Preprocessing pre = LinearInputs.preprocessing(l, common.features());
    StrictNode d = config.child("dpfl");
    d.allow("sampling_rate", "grad_clip", "rounds", "epochs", "learning_rate", "noise_split", "accountant",
        "neighbours", "expected_batch", "optimizer", "start_seed");
    DpSgdModel.Optimizer optimizer;
    try {
      optimizer = DpSgdModel.Optimizer.parse(d.string("optimizer", DpSgdModel.Optimizer.SGD.id()));
    } catch (IllegalArgumentException e) {
      throw d.error("optimizer", e.getMessage());
    }
    if (!mlp && d.has("start_seed")) {
      throw d.error("start_seed", "applies to the mlp learner only (learner.kind: mlp, --learner mlp); the softmax "
          + "model starts at zero");
    }
    int startSeed = d.integer("start_seed", 1, Integer.MIN_VALUE, Integer.MAX_VALUE);
    double q = d.number("sampling_rate", 0.1, 1e-9, 1);
    if (d.has("rounds") && d.has("epochs")) {
      throw d.error("rounds", "and dpfl.epochs are alternatives; give one");
    }
    int rounds = d.has("rounds") ? d.integer("rounds", null, 1, 10_000_000)
        : (int) Math.min(10_000_000, Math.ceil(d.number("epochs", 5.0, 1e-9, 1e6) / q));
    NeighbourRelation relation;
    DpFl.NoiseSplit split;
    try {
      relation = NeighbourRelation.parse(d.string("neighbours", "replace-one"));
    } catch (IllegalArgumentException e) {
      throw d.error("neighbours", e.getMessage());
    }
    try {
      split = DpFl.NoiseSplit.parse(d.string("noise_split", "honest"));
    } catch (IllegalArgumentException e) {
      throw d.error("noise_split", e.getMessage());
    }
    String accountant = d.string("accountant", relation == NeighbourRelation.REPLACE_ONE ? "pld" : "rdp");
    if (relation == NeighbourRelation.ADD_OR_REMOVE_ONE && !d.has("expected_batch")) {
      throw d.error("expected_batch", "is required under add-remove neighbours: the number of records is private "
          + "there, so the step's normaliser must be a public number");
    }
    double expected = d.has("expected_batch") ? d.number("expected_batch", null, 1e-9, 1e12) : Double.NaN;
    // Adam's default step is SPEC 6's (Adam on the same kind of noisy mean gradient); SGD's is today's.
    double lr = d.number("learning_rate", optimizer == DpSgdModel.Optimizer.ADAM ? 0.005 : 2.0, 1e-12, 1e12);
    DpFl.Config c = new DpFl.Config(q, d.number("grad_clip", 1.0, 1e-12, 1e12), rounds, lr, common.epsilon(),
        common.delta(), common.honestFraction(), split, accountant, common.ringBits(), relation, expected);
    DpSgdModel model = mlp
        ? DpSgdModel.mlp(new Mlp(MlpLayers.widths(common.features(), hidden, common.classes())), optimizer, startSeed)
        : DpSgdModel.softmax(common.classes(), common.features() + 1, optimizer);
    return new DpFlSpec(this, common, c, pre, model);
  }
}
