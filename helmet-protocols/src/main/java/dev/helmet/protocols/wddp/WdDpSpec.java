package dev.helmet.protocols.wddp;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.NoisyDescent;
import dev.helmet.core.learn.NoisyGradientDescent;
import dev.helmet.core.learn.NoisyRegression;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.Terms;
import java.math.BigDecimal;
import java.util.Locale;

/** WD-DP's settings, and through {@link #plan} its one round. */
final class WdDpSpec implements AlgorithmSpec {
  private final Algorithm algorithm;
  private final Common common;
  private final WdDpConfig config;
  private final Preprocessing preprocessing;

  WdDpSpec(Algorithm algorithm, Common common, WdDpConfig config, Preprocessing preprocessing) {
    this.algorithm = algorithm;
    this.common = common;
    this.config = config;
    this.preprocessing = preprocessing;
  }

  @Override
  public Algorithm algorithm() {
    return algorithm;
  }

  @Override
  public Common common() {
    return common;
  }

  WdDpConfig config() {
    return config;
  }

  /** The local learner every party runs (public: from the settings alone). */
  NoisyDescent learnerOf() {
    if (config.kind() == LearnerKind.LINREG) {
      // targets are scaled to [-1, 1] by the public target bounds: B = 1
      return new NoisyRegression(config.loss().equals("pl") ? NoisyRegression.Loss.POLYAK_LOJASIEWICZ
          : NoisyRegression.Loss.SQUARED, preprocessing.inputNormBound(), common.features(), config.steps(),
          config.stepSize(), config.radius(), 1);
    }
    NoisyGradientDescent.Loss loss = config.kind() == LearnerKind.LOGREG
        ? NoisyGradientDescent.Loss.LOGISTIC : NoisyGradientDescent.Loss.SOFTMAX;
    return new NoisyGradientDescent(loss, preprocessing.inputNormBound(), common.features(), common.classes(),
        config.steps(), config.stepSize());
  }

  @Override
  public ObjectNode toConfig() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    ObjectNode l = o.putObject("learner");
    l.put("kind", config.kind().id());
    dev.helmet.protocols.shared.LinearInputs.putPreprocessing(l, preprocessing);
    // The section's old name: these are the bytes participants of earlier builds read.
    ObjectNode d = o.putObject(WdDpAlgorithm.OLD_SECTION);
    d.put("steps", config.steps());
    d.put("step_size", config.stepSize());
    d.put("weighting", config.uniform() ? "uniform" : "sizes");
    d.put("weight_noise_fraction", config.weightNoiseFraction());
    d.put("start_seed", config.startSeed());
    d.put("accountant", config.accountant());
    if (config.loss() != null) {
      d.put("loss", config.loss());
      d.put("radius", config.radius());
    }
    return o;
  }

  @Override
  public Preprocessing preprocessing() {
    return preprocessing;
  }

  @Override
  public LearnerKind modelKind() {
    return config.kind();
  }

  @Override
  public int rounds() {
    return 1;
  }

  @Override
  public int length() {
    return (config.kind() == LearnerKind.SOFTMAX ? common.classes() : 1) * (common.features() + 1);
  }

  @Override
  public String describe() {
    NoisyDescent gd = learnerOf();
    String model = config.loss() == null ? config.kind().id()
        : config.kind().id() + " (" + (config.loss().equals("pl") ? "Polyak-Lojasiewicz" : "squared") + " loss, R "
            + num(config.radius()) + ")";
    return String.format(Locale.ROOT, "%s by noisy full-batch gradient descent: %d steps, step size %s%s, %s weights"
        + "%s; %s", model, config.steps(), num(gd.stepSize()),
        config.stepSize() == 0 ? " (1/beta)" : "", config.uniform() ? "uniform (1/m)" : "size (n_j/n)",
        config.weightNoiseFraction() > 0 ? ", weight noise share " + num(config.weightNoiseFraction()) : "",
        preprocessing.describe());
  }

  static String num(double v) {
    return BigDecimal.valueOf(v).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
  }

  /** Each party's own noise protects its records alone: no party relies on another's noise. */
  @Override
  public Terms terms() {
    return new Terms(config.kind().id(), false, "own");
  }

  /** A party's preprocessed rows: its local training runs once the plan (its noise) is known. */
  record Rows(DesignMatrix design) implements Local {
    @Override
    public int size() {
      return design.rows();
    }
  }

  @Override
  public Local prepare(DesignMatrix data, long seed) {
    Checks.require(data.rows() > 0, "a party needs at least one record");
    return new Rows(data);
  }

  /** Wang et al.'s procedure without noise: T noiseless full-batch steps from the same public start. */
  @Override
  public Reference reference(DesignMatrix pooled, java.util.SplittableRandom rng) {
    NoisyDescent gd = learnerOf();
    return new Reference(gd.train(pooled, gd.start(config.startSeed()), 0, () -> 0.0),
        "non-private centralized (noiseless full-batch gradient descent, the same " + config.steps()
            + " steps, step size and start) on the pooled data", 0);
  }

  /** The mean loss every party descends (unregularised, as in the paper; PL adds its own terms). */
  @Override
  public NoisyDescent objective() {
    return learnerOf();
  }

  @Override
  public PublicPlan plan(int[] sizes, int minContributors, boolean secureNoise) {
    return new WdDpPlan(this, sizes.clone(), minContributors, secureNoise);
  }
}
