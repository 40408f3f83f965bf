package dev.helmet.protocols.helmet;

import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.SensitivityBound;
import dev.helmet.core.learn.SmoothnessBound;
import dev.helmet.core.preprocess.FeatureScaling;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.ExperimentVariant;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.protocols.algorithm.Parameter;
import dev.helmet.protocols.algorithm.Parameter.Type;
import dev.helmet.protocols.config.StrictNode;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Distributed DP-Helmet's blind averaging as an {@link Algorithm}: one round; each party trains
 * locally, noises its model once and one summation averages the models. Its settings sit under
 * {@code learner:} (the local learner and the public preprocessing) and {@code noise:}.
 */
public final class HelmetAlgorithm implements Algorithm {
  public static final String ID = "helmet";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public String summary() {
    return "blind averaging (Distributed DP-Helmet): each party trains locally, adds calibrated noise once, "
        + "one summation averages the models";
  }

  @Override
  public List<Parameter> parameters() {
    return List.of(
        new Parameter("learner.kind", "--learner", Type.TEXT, "softmax", "the local model: softmax, svm or logreg"),
        new Parameter("learner.lambda", "--lambda", Type.NUMBER, "softmax 0.5, svm 2, logreg 1",
            "L2 regularisation strength Lambda", "lambda"),
        new Parameter("learner.radius", "--radius", Type.NUMBER, "softmax 2, svm 0.5, logreg 1",
            "L2 radius R the local model is projected onto", "radius"),
        new Parameter("learner.epochs", "--epochs", Type.INTEGER, "50", "local training epochs", "epochs"),
        new Parameter("learner.batch_size", "--batch-size", Type.INTEGER, String.valueOf(HelmetDefaults.BATCH_SIZE),
            "local mini-batch size"),
        new Parameter("learner.smoothness", "--smoothness", Type.TEXT, "tight",
            "smoothness bound of the loss: tight or paper"),
        new Parameter("learner.sensitivity", "--sensitivity", Type.TEXT, "tight",
            "sensitivity bound of the trained model: tight (2 G / (Lambda n), G the loss's gradient bound: "
                + "c' for svm and logreg, sqrt(2) c' for softmax) or paper (Lambda R added to G: the papers' "
                + "noise, for reproducing them)"),
        new Parameter("learner.huber_h", "--huber-h", Type.NUMBER, String.valueOf(LearnerConfig.DEFAULT_HUBER_H),
            "Huber relaxation of the SVM loss"),
        clipBound(), normalise(),
        new Parameter("noise", "--noise", Type.TEXT, "discrete-gaussian",
            "discrete-gaussian (exact, on the fixed-point grid) or gaussian (continuous, floating point; the "
                + "papers' mechanism)"));
  }

  /** The public row bound, shared by every algorithm on linear models. */
  public static Parameter clipBound() {
    return new Parameter("learner.clip_bound", "--clip", Type.NUMBER, String.valueOf(HelmetDefaults.CLIP_BOUND),
        "public L2 bound c of an input row (a constant, never computed from the data)");
  }

  /** Whether rows are scaled to norm c, shared by every algorithm on linear models. */
  public static Parameter normalise() {
    return new Parameter("learner.normalise", "--normalise", Type.BOOLEAN, String.valueOf(HelmetDefaults.NORMALISE),
        "scale every row to norm exactly c (false: only clip longer rows)");
  }

  @Override
  public Set<String> keys() {
    return Set.of("learner", "noise");
  }

  @Override
  public AlgorithmSpec configure(StrictNode config, Common common) {
    common.requireClasses(ID);
    StrictNode l = config.child("learner");
    l.allow("kind", "lambda", "radius", "epochs", "batch_size", "smoothness", "sensitivity", "huber_h", "clip_bound", "normalise",
        "feature_bounds");
    LearnerKind kind;
    try {
      kind = LearnerKind.parse(l.string("kind", "softmax"));
    } catch (IllegalArgumentException e) {
      throw l.error("kind", e.getMessage());
    }
    if (!kind.classifier() || !kind.linear()) {
      throw l.error("kind", "must be softmax, svm or logreg: Helmet's learners are linear classifiers (linreg is "
          + "wd-dp's, mlp is smm's). Provided value: " + kind.id());
    }
    SmoothnessBound smoothness = switch (l.string("smoothness", "tight").toLowerCase(Locale.ROOT)) {
      case "tight" -> SmoothnessBound.TIGHT;
      case "paper" -> SmoothnessBound.PAPER;
      default -> throw l.error("smoothness", "must be tight or paper. Provided value: " + l.string("smoothness", ""));
    };
    SensitivityBound sensitivity = switch (l.string("sensitivity", "tight").toLowerCase(Locale.ROOT)) {
      case "tight" -> SensitivityBound.TIGHT;
      case "paper" -> SensitivityBound.PAPER;
      default -> throw l.error("sensitivity", "must be tight or paper. Provided value: "
          + l.string("sensitivity", ""));
    };
    LearnerConfig learner = new LearnerConfig(kind,
        l.number("lambda", HelmetDefaults.lambda(kind), 1e-12, 1e12),
        l.number("radius", HelmetDefaults.radius(kind), 1e-12, 1e12),
        l.integer("epochs", HelmetDefaults.epochs(kind), 1, 100_000),
        l.integer("batch_size", HelmetDefaults.BATCH_SIZE, 1, 1_000_000),
        smoothness,
        l.number("huber_h", LearnerConfig.DEFAULT_HUBER_H, 1e-9, 1e9),
        sensitivity);
    Preprocessing pre = preprocessing(l, common.features());
    NoiseKind noise;
    try {
      noise = NoiseKind.parse(config.string("noise", NoiseKind.DISCRETE_GAUSSIAN.id()));
    } catch (IllegalArgumentException e) {
      throw config.error("noise", e.getMessage());
    }
    return new HelmetSpec(this, common, learner, pre, noise);
  }

  @Override
  public String legacyExperimentSection() {
    return "helmet";
  }

  /**
   * The old {@code helmet:} section, {@code {learners: [...], grid: {LEARNER: {lambda, radius,
   * epochs}}}}: one variant per learner, {@code helmet-LEARNER}, with the papers' continuous Gaussian
   * noise and sums in the clear, as experiments ran them.
   */
  @Override
  public List<ExperimentVariant> legacyExperimentVariants(StrictNode h) {
    h.allow("learners", "grid");
    StrictNode g = h.child("grid");
    List<String> learners = h.strings("learners").stream().map(l -> l.toLowerCase(Locale.ROOT)).toList();
    g.allow(new java.util.TreeSet<>(learners).toArray(String[]::new));
    List<ExperimentVariant> out = new java.util.ArrayList<>();
    for (String l : learners) {
      try {
        LearnerKind.parse(l);
      } catch (IllegalArgumentException e) {
        throw h.error("learners", e.getMessage());
      }
      StrictNode lg = g.child(l);
      lg.allow("lambda", "radius", "epochs");
      ObjectNode settings = JsonNodeFactory.instance.objectNode().put("noise", NoiseKind.GAUSSIAN.id());
      ObjectNode learner = settings.putObject("learner").put("kind", l);
      for (String k : new String[] {"lambda", "radius", "epochs"}) {
        if (lg.has(k)) {
          learner.set(k, lg.json().get(k));
        }
      }
      out.add(new ExperimentVariant("helmet-" + l, "plain", settings));
    }
    return out;
  }

  /** The public preprocessing under {@code learner:}. */
  public static Preprocessing preprocessing(StrictNode learner, int features) {
    return preprocessing(learner, features, HelmetDefaults.CLIP_BOUND);
  }

  /** As {@link #preprocessing(StrictNode, int)} with the algorithm's own default clip bound c. */
  public static Preprocessing preprocessing(StrictNode learner, int features, double defaultClip) {
    FeatureScaling scaling = null;
    if (learner.has("feature_bounds")) {
      StrictNode b = learner.child("feature_bounds");
      b.allow("lower", "upper");
      double[] lo = expand(b, "lower", features);
      double[] hi = expand(b, "upper", features);
      try {
        scaling = new FeatureScaling(lo, hi);
      } catch (IllegalArgumentException e) {
        throw learner.error("feature_bounds", e.getMessage());
      }
    }
    dev.helmet.core.preprocess.TargetScaling target = null;
    if (learner.has("target_bounds")) {
      StrictNode b = learner.child("target_bounds");
      b.allow("lower", "upper");
      try {
        target = new dev.helmet.core.preprocess.TargetScaling(b.number("lower", null, -1e300, 1e300),
            b.number("upper", null, -1e300, 1e300));
      } catch (IllegalArgumentException e) {
        throw learner.error("target_bounds", e.getMessage());
      }
    }
    return new Preprocessing(learner.number("clip_bound", defaultClip, 1e-12, 1e12),
        learner.bool("normalise", HelmetDefaults.NORMALISE), scaling, target);
  }

  /** One bound for every feature, or one per feature. */
  private static double[] expand(StrictNode b, String key, int features) {
    java.util.List<Double> v = b.numbers(key, -1e300, 1e300);
    if (v.size() != 1 && v.size() != features) {
      throw b.error(key, "must give one bound for all features or one per feature (" + features + "); "
          + v.size() + " given");
    }
    double[] out = new double[features];
    for (int j = 0; j < features; j++) {
      out[j] = v.get(v.size() == 1 ? 0 : j);
    }
    return out;
  }

  /**
   * A bounds section {@code {lower: [...], upper: [...]}} as a user writes it: whole numbers as ints
   * (a configuration read back from JSON holds IntNodes, and IntNode != DoubleNode or LongNode, so a
   * resumed experiment's settings compare equal).
   */
  public static com.fasterxml.jackson.databind.node.ObjectNode boundsNode(double[] lower, double[] upper) {
    var o = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    var lo = o.putArray("lower");
    var hi = o.putArray("upper");
    for (int j = 0; j < lower.length; j++) {
      lo.add(number(lower[j]));
      hi.add(number(upper[j]));
    }
    return o;
  }

  /** A scalar bounds section {@code {lower: lo, upper: hi}}, whole numbers as ints. */
  public static com.fasterxml.jackson.databind.node.ObjectNode boundsNode(double lower, double upper) {
    var o = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    o.set("lower", number(lower));
    o.set("upper", number(upper));
    return o;
  }

  private static com.fasterxml.jackson.databind.node.ValueNode number(double v) {
    var f = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    return v == Math.rint(v) && Math.abs(v) < Integer.MAX_VALUE ? f.numberNode((int) v) : f.numberNode(v);
  }

  /** Writes the public preprocessing into a learner section (canonical form: every bound listed). */
  public static void putPreprocessing(com.fasterxml.jackson.databind.node.ObjectNode learner, Preprocessing pre) {
    learner.put("clip_bound", pre.clipBound());
    learner.put("normalise", pre.normalise());
    if (pre.scaling() != null) {
      var b = learner.putObject("feature_bounds");
      var lo = b.putArray("lower");
      var hi = b.putArray("upper");
      for (double v : pre.scaling().lower()) {
        lo.add(v);
      }
      for (double v : pre.scaling().upper()) {
        hi.add(v);
      }
    }
    if (pre.target() != null) {
      learner.putObject("target_bounds").put("lower", pre.target().lower()).put("upper", pre.target().upper());
    }
  }
}
