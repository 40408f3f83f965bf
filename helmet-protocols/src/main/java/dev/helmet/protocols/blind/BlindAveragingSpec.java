package dev.helmet.protocols.blind;

import dev.helmet.protocols.shared.HonestParties;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.Terms;
import java.util.Locale;
import java.util.SplittableRandom;

/** Blind averaging's settings, and through {@link #plan} its one-round run ({@link BlindAveragingPlan}). */
public final class BlindAveragingSpec implements AlgorithmSpec {
  private final Algorithm algorithm;
  private final Common common;
  private final LearnerConfig learnerConfig;
  private final Preprocessing preprocessing;
  private final NoiseKind noise;
  private final Learner learner;

  BlindAveragingSpec(Algorithm algorithm, Common common, LearnerConfig learner, Preprocessing preprocessing, NoiseKind noise) {
    this.algorithm = algorithm;
    this.common = common;
    this.learnerConfig = learner;
    this.preprocessing = preprocessing;
    this.noise = noise;
    this.learner = new Learner(learner, preprocessing.inputNormBound(), common.features(), common.classes());
  }

  @Override
  public Algorithm algorithm() {
    return algorithm;
  }

  @Override
  public Common common() {
    return common;
  }

  @Override
  public ObjectNode toConfig() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    ObjectNode l = o.putObject("learner");
    l.put("kind", learnerConfig.kind().id());
    l.put("lambda", learnerConfig.lambda());
    l.put("radius", learnerConfig.radius());
    l.put("epochs", learnerConfig.epochs());
    l.put("batch_size", learnerConfig.batchSize());
    l.put("smoothness", learnerConfig.smoothness().name().toLowerCase(Locale.ROOT));
    l.put("huber_h", learnerConfig.huberH());
    l.put("sensitivity", learnerConfig.sensitivity().name().toLowerCase(Locale.ROOT));
    dev.helmet.protocols.shared.LinearInputs.putPreprocessing(l, preprocessing);
    o.put("noise", noise.id());
    return o;
  }

  @Override
  public Preprocessing preprocessing() {
    return preprocessing;
  }

  /** The local learner's hyperparameters, the same for every party. */
  public LearnerConfig learner() {
    return learnerConfig;
  }

  @Override
  public LearnerKind modelKind() {
    return learnerConfig.kind();
  }

  /** The noise kind. */
  NoiseKind noise() {
    return noise;
  }

  @Override
  public int rounds() {
    return 1;
  }

  @Override
  public int length() {
    return learner.outputRows() * learner.inputDimension();
  }

  @Override
  public String describe() {
    return String.format(Locale.ROOT, "%s, Lambda %s, R %s, %d epochs, batch %d, %s; %s noise",
        learnerConfig.kind().id(), num(learnerConfig.lambda()), num(learnerConfig.radius()), learnerConfig.epochs(),
        learnerConfig.batchSize(), preprocessing.describe(), noise.id());
  }

  /** A number without trailing zeros. */
  static String num(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }

  @Override
  public Terms terms() {
    return new Terms(learnerConfig.kind().id(), noise == NoiseKind.DISCRETE_GAUSSIAN, "honest");
  }

  /** A party's trained, not yet noised model: private, it never leaves the party. */
  record Trained(LinearModel model, int size) implements Local {}

  @Override
  public String rosterProblem(int parties, int minContributors) {
    return HonestParties.honestProblem(minContributors, parties, common.honestFraction());
  }

  @Override
  public Local prepare(DesignMatrix data, long seed) {
    return prepare(data, seed, dev.helmet.core.util.Progress.NONE);
  }

  @Override
  public Local prepare(DesignMatrix data, long seed, dev.helmet.core.util.Progress progress) {
    Checks.require(data.rows() > 0, "a party needs at least one point");
    return new Trained(learner.train(data, new SplittableRandom(seed), progress), data.rows());
  }

  @Override
  public PublicPlan plan(int[] sizes, int minContributors, boolean secureNoise) {
    BlindAveragingPrivacy privacy = new BlindAveragingPrivacy(common.epsilon(), common.delta(), common.honestFraction(),
        common.protection(), minContributors, 0, common.publishedParties());
    return new BlindAveragingPlan(learner, preprocessing, sizes, privacy, noise, common.ringBits(), secureNoise);
  }

  /** The same learner and hyperparameters on the pooled rows. */
  @Override
  public Reference reference(DesignMatrix pooled, java.util.SplittableRandom rng) {
    return Reference.ofLearner(learnerConfig, preprocessing, pooled, rng,
        learnerConfig.kind().id() + ", same hyperparameters");
  }
}
