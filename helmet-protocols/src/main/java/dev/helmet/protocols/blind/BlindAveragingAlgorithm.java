package dev.helmet.protocols.blind;

import dev.helmet.protocols.shared.LearnerDefaults;
import dev.helmet.protocols.shared.LinearInputs;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.SensitivityBound;
import dev.helmet.core.learn.SmoothnessBound;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
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
public final class BlindAveragingAlgorithm implements Algorithm {
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
        new Parameter("learner.batch_size", "--batch-size", Type.INTEGER, String.valueOf(LearnerDefaults.BATCH_SIZE),
            "local mini-batch size"),
        new Parameter("learner.smoothness", "--smoothness", Type.TEXT, "tight",
            "smoothness bound of the loss: tight or paper"),
        new Parameter("learner.sensitivity", "--sensitivity", Type.TEXT, "tight",
            "sensitivity bound of the trained model: tight (2 G / (Lambda n), G the loss's gradient bound: "
                + "c' for svm and logreg, sqrt(2) c' for softmax) or paper (Lambda R added to G: the papers' "
                + "noise, for reproducing them)"),
        new Parameter("learner.huber_h", "--huber-h", Type.NUMBER, String.valueOf(LearnerConfig.DEFAULT_HUBER_H),
            "Huber relaxation of the SVM loss"),
        LinearInputs.clipBound(), LinearInputs.normalise(),
        new Parameter("noise", "--noise", Type.TEXT, "discrete-gaussian",
            "discrete-gaussian (exact, on the fixed-point grid) or gaussian (continuous, floating point; the "
                + "papers' mechanism)"));
  }

  @Override
  public Set<String> keys() {
    return Set.of("learner", "noise");
  }

  /**
   * The softmax learner's settings tuned for {@code features} ({@link BlindAveragingDefaults#softmaxFor}:
   * scatter and HOG), wherever {@code config} leaves them unset and trains softmax.
   */
  @Override
  public ObjectNode withFeatureDefaults(ObjectNode config, String features) {
    BlindAveragingDefaults.Tuned t = BlindAveragingDefaults.softmaxFor(features);
    if (t == null) {
      return config;
    }
    ObjectNode out = config.deepCopy();
    ObjectNode learner = out.has("learner") ? (ObjectNode) out.get("learner") : out.putObject("learner");
    if (learner.has("kind") && !learner.get("kind").asText().equalsIgnoreCase("softmax")) {
      return config;
    }
    if (!learner.has("lambda")) {
      learner.put("lambda", t.lambda());
    }
    if (!learner.has("radius")) {
      learner.put("radius", t.radius());
    }
    if (!learner.has("epochs")) {
      learner.put("epochs", t.epochs());
    }
    if (!learner.has("batch_size")) {
      learner.put("batch_size", t.batchSize());
    }
    return out;
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
    SmoothnessBound smoothness = tightOrPaper(l, "smoothness", SmoothnessBound.TIGHT, SmoothnessBound.PAPER);
    SensitivityBound sensitivity = tightOrPaper(l, "sensitivity", SensitivityBound.TIGHT, SensitivityBound.PAPER);
    LearnerConfig learner = new LearnerConfig(kind,
        l.number("lambda", LearnerDefaults.lambda(kind), 1e-12, 1e12),
        l.number("radius", LearnerDefaults.radius(kind), 1e-12, 1e12),
        l.integer("epochs", LearnerDefaults.epochs(kind), 1, 100_000),
        l.integer("batch_size", LearnerDefaults.BATCH_SIZE, 1, 1_000_000),
        smoothness,
        l.number("huber_h", LearnerConfig.DEFAULT_HUBER_H, 1e-9, 1e9),
        sensitivity);
    Preprocessing pre = LinearInputs.preprocessing(l, common.features());
    NoiseKind noise;
    try {
      noise = NoiseKind.parse(config.string("noise", NoiseKind.DISCRETE_GAUSSIAN.id()));
    } catch (IllegalArgumentException e) {
      throw config.error("noise", e.getMessage());
    }
    return new BlindAveragingSpec(this, common, learner, pre, noise);
  }

  /** A learner setting that is "tight" (the default) or "paper". */
  private static <E> E tightOrPaper(StrictNode l, String key, E tight, E paper) {
    return switch (l.string(key, "tight").toLowerCase(Locale.ROOT)) {
      case "tight" -> tight;
      case "paper" -> paper;
      default -> throw l.error(key, "must be tight or paper. Provided value: " + l.string(key, ""));
    };
  }
}
