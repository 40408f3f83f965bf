package dev.helmet.protocols.shared;

import dev.helmet.core.preprocess.FeatureScaling;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.protocols.algorithm.Parameter;
import dev.helmet.protocols.algorithm.Parameter.Type;
import dev.helmet.protocols.config.StrictNode;

/**
 * The public input settings every algorithm on linear models shares: the row bound c, whether rows
 * are normalised, and the public feature and target bounds, parsed from and written to an
 * algorithm's {@code learner:} section. Moved here from helmet's algorithm so that no algorithm
 * imports another's package.
 */
public final class LinearInputs {
  private LinearInputs() {}

  /** The public row bound, shared by every algorithm on linear models. */
  public static Parameter clipBound() {
    return new Parameter("learner.clip_bound", "--clip", Type.NUMBER, String.valueOf(CommonDefaults.CLIP_BOUND),
        "public L2 bound c of an input row (a constant, never computed from the data)");
  }

  /** Whether rows are scaled to norm c, shared by every algorithm on linear models. */
  public static Parameter normalise() {
    return new Parameter("learner.normalise", "--normalise", Type.BOOLEAN, String.valueOf(CommonDefaults.NORMALISE),
        "scale every row to norm exactly c (false: only clip longer rows)");
  }


  /** The public preprocessing under {@code learner:}. */
  public static Preprocessing preprocessing(StrictNode learner, int features) {
    return preprocessing(learner, features, CommonDefaults.CLIP_BOUND);
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
        learner.bool("normalise", CommonDefaults.NORMALISE), scaling, target);
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
