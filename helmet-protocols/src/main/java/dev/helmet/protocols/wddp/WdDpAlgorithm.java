package dev.helmet.protocols.wddp;

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
import java.util.Locale;
import java.util.Set;

/**
 * Weighted distributed DP ERM (Kang et al. 2021, SPEC section 5) as an {@link Algorithm}: every
 * party runs T steps of full-batch noisy gradient descent from a public random start on its own
 * data and sends its model, weighted by its share of the records, through one summation. With
 * {@code weighting: uniform} it is Jayaraman et al. 2018's unweighted average; with one party
 * holding all the data, Wang et al. 2017's centralized noisy GD. Settings under {@code wddp:}
 * (named like {@code dpfl:} and {@code crosssilo:}; {@code wd_dp:}, its old name, is still read);
 * the model and the public preprocessing under {@code learner:}.
 */
public final class WdDpAlgorithm implements Algorithm {
  public static final String ID = "wd-dp";
  /** The section of its settings. */
  public static final String SECTION = "wddp";
  /**
   * The section's old name, still read, and the one its canonical form ({@link WdDpSpec#toConfig})
   * keeps writing: those bytes are what a coordinator publishes to participants of earlier builds
   * and what model files already record.
   */
  public static final String OLD_SECTION = "wd_dp";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public boolean fitsRegression() {
    return true;
  }

  @Override
  public String summary() {
    return "weighted distributed DP ERM (Kang et al.): each party runs noisy full-batch gradient descent on its own "
        + "data, one summation averages the models weighted by the parties' sizes";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(
        new Parameter("learner.kind", "--learner", Type.TEXT, "logreg for 2 classes, softmax for more, linreg for "
            + "numeric targets", "the model: logreg (2 classes), softmax, or linreg (regression)"),
        new Parameter(SECTION + ".loss", "--loss", Type.TEXT, "squared",
            "linreg's loss: squared, or pl (squared + ||theta||^2 + 3 sin^2 ||theta||, the paper's non-convex "
                + "Polyak-Lojasiewicz loss)", "loss"),
        new Parameter(SECTION + ".radius", "--radius", Type.NUMBER, String.valueOf(WdDpConfig.DEFAULT_RADIUS),
            "R, linreg's model is projected onto the ball of radius R after every step (its gradient bound G = (R c' "
                + "+ 1) c' rests on it)", "radius").withAliases("--wd-dp-radius"),
        new Parameter(SECTION + ".steps", "--steps", Type.INTEGER, String.valueOf(WdDpConfig.DEFAULT_STEPS),
            "T, full-batch noisy gradient steps per party", "steps"),
        new Parameter(SECTION + ".step_size", "--step-size", Type.NUMBER, "1/beta",
            "eta, the step size (0: 1/beta of the loss)", "step_size"),
        new Parameter(SECTION + ".weighting", "--weighting", Type.TEXT, "sizes",
            "sizes (n_j / n, Kang et al.) or uniform (1 / m, Jayaraman et al.)", "weighting"),
        new Parameter(SECTION + ".weight_noise_fraction", "--weight-noise-fraction", Type.NUMBER, "0",
            "the share f of eps and delta spent on the paper's noise on the weights (eps2 = f eps); the weights are "
                + "public under replace-one, so that noise protects no record and is not charged",
            "weight_noise_fraction"),
        new Parameter(SECTION + ".start_seed", "--start-seed", Type.INTEGER, "1",
            "public seed of the shared random start", "start_seed"),
        new Parameter(SECTION + ".accountant", "--accountant", Type.TEXT, "gaussian",
            "gaussian (exact curve of T composed Gaussians), pld or rdp", "accountant")
            .withAliases("--wd-dp-accountant"),
        new Parameter("learner.clip_bound", "--clip", Type.NUMBER, "1",
            "public L2 bound c of an input row (a constant, never computed from the data); wd-dp normalises rows to "
                + "norm 1 as in the paper, so G and beta are those of unit inputs (c' = sqrt 2 with the intercept)"),
        LinearInputs.normalise());
  }

  @Override
  public Set<String> keys() {
    return Set.of("learner", SECTION, OLD_SECTION);
  }

  @Override
  public java.util.Map<String, String> oldKeys() {
    return java.util.Map.of(OLD_SECTION, SECTION);
  }

  @Override
  public AlgorithmSpec configure(StrictNode config, Common common) {
    StrictNode l = config.child("learner");
    l.allow("kind", "clip_bound", "normalise", "feature_bounds", "target_bounds");
    LearnerKind kind;
    try {
      kind = l.has("kind") ? LearnerKind.parse(l.string("kind", null))
          : common.regression() ? LearnerKind.LINREG : common.classes() == 2 ? LearnerKind.LOGREG
              : LearnerKind.SOFTMAX;
    } catch (IllegalArgumentException e) {
      throw l.error("kind", e.getMessage());
    }
    if (common.regression() != (kind == LearnerKind.LINREG)) {
      throw l.error("kind", common.regression()
          ? "must be linreg: the data has numeric targets (regression). Provided value: " + kind.id()
          : "linreg fits numeric targets and the data has " + common.classes() + " classes; use logreg or softmax");
    }
    if (kind == LearnerKind.LINREG && !l.has("target_bounds")) {
      throw l.error("target_bounds", "is required for regression: the squared loss is Lipschitz only for bounded "
          + "targets, so every target is clipped to public bounds and scaled to [-1, 1]. Give them with "
          + "--target-bounds LO:HI (never computed from the data)");
    }
    if (kind == LearnerKind.SVM) {
      throw l.error("kind", "must be logreg or softmax: wd-dp needs a smooth Lipschitz loss. Provided value: svm");
    }
    if (kind == LearnerKind.LOGREG && common.classes() != 2) {
      throw l.error("kind", "logreg separates 2 classes and the data has " + common.classes() + "; use softmax");
    }
    if (common.protection().unit() != Protection.Unit.RECORD) {
      throw new IllegalArgumentException("wd-dp protects records; the protection unit is "
          + common.protection().describe());
    }
    Preprocessing pre = LinearInputs.preprocessing(l, common.features(), WdDpConfig.DEFAULT_CLIP);
    if (config.has(SECTION) && config.has(OLD_SECTION)) {
      throw config.error(OLD_SECTION, "is the old name of " + SECTION + "; give one of them");
    }
    StrictNode d = config.child(config.has(OLD_SECTION) ? OLD_SECTION : SECTION);
    d.allow("steps", "step_size", "weighting", "weight_noise_fraction", "start_seed", "accountant", "loss",
        "radius");
    String loss = null;
    double radius = 0;
    if (kind == LearnerKind.LINREG) {
      loss = d.string("loss", "squared").toLowerCase(Locale.ROOT);
      if (!loss.equals("squared") && !loss.equals("pl")) {
        throw d.error("loss", "must be squared or pl. Provided value: " + loss);
      }
      radius = d.number("radius", WdDpConfig.DEFAULT_RADIUS, 1e-6, 1e6);
    } else if (d.has("loss") || d.has("radius")) {
      throw d.error(d.has("loss") ? "loss" : "radius", "applies to linreg (regression) only; " + kind.id()
          + " uses its own loss, unconstrained");
    }
    String weighting = d.string("weighting", "sizes").toLowerCase(Locale.ROOT);
    if (!weighting.equals("sizes") && !weighting.equals("uniform")) {
      throw d.error("weighting", "must be sizes or uniform. Provided value: " + weighting);
    }
    String accountant = d.string("accountant", "gaussian").toLowerCase(Locale.ROOT);
    if (!List.of("gaussian", "pld", "rdp").contains(accountant)) {
      throw d.error("accountant", "must be gaussian, pld or rdp. Provided value: " + accountant);
    }
    if (weighting.equals("uniform") && d.has("weight_noise_fraction")
        && d.number("weight_noise_fraction", 0.0, 0, 0.99) > 0) {
      throw d.error("weight_noise_fraction", "applies to size weights (n_j/n); uniform weights 1/m have no size to "
          + "hide");
    }
    WdDpConfig c = new WdDpConfig(kind, loss, radius, d.integer("steps", WdDpConfig.DEFAULT_STEPS, 1, 1_000_000),
        d.number("step_size", 0.0, 0, 1e6), weighting.equals("uniform"),
        d.number("weight_noise_fraction", 0.0, 0, 0.99), d.integer("start_seed", 1, Integer.MIN_VALUE,
            Integer.MAX_VALUE), accountant);
    return new WdDpSpec(this, common, c, pre);
  }
}
