package dev.helmet.protocols.dpfl;

import dev.helmet.protocols.dpsgd.DpSgdModel;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.Terms;

/** DP-FL's settings, and through {@link #plan} its rounds. */
final class DpFlSpec implements AlgorithmSpec {
  private final Algorithm algorithm;
  private final Common common;
  private final DpFl.Config config;
  private final Preprocessing preprocessing;
  private final DpSgdModel model;

  /** The softmax model, trained by SGD (the Helmet papers' baseline). */
  DpFlSpec(Algorithm algorithm, Common common, DpFl.Config config, Preprocessing preprocessing) {
    this(algorithm, common, config, preprocessing, DpSgdModel.softmax(common.classes(), common.features() + 1,
        DpSgdModel.Optimizer.SGD));
  }

  DpFlSpec(Algorithm algorithm, Common common, DpFl.Config config, Preprocessing preprocessing, DpSgdModel model) {
    Checks.require(model.classes() == common.classes() && model.cols() == common.features() + 1, "the model "
        + model.describe() + " does not read " + common.features() + " features into " + common.classes()
        + " classes");
    this.algorithm = algorithm;
    this.common = common;
    this.config = config;
    this.preprocessing = preprocessing;
    this.model = model;
  }

  @Override
  public Algorithm algorithm() {
    return algorithm;
  }

  /** The ring's encoding is sized for the largest party's clipped sum, n_i C. */
  @Override
  public boolean planDependsOnSizes() {
    return true;
  }

  @Override
  public Common common() {
    return common;
  }

  DpFl.Config config() {
    return config;
  }

  DpSgdModel model() {
    return model;
  }

  @Override
  public ObjectNode toConfig() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    ObjectNode l = o.putObject("learner");
    l.put("kind", model.kind().id());
    if (model.net() != null) {
      var hidden = l.putArray("hidden");
      for (int k = 1; k < model.net().layers(); k++) {
        hidden.add(model.net().width(k));
      }
    }
    dev.helmet.protocols.shared.LinearInputs.putPreprocessing(l, preprocessing);
    ObjectNode d = o.putObject("dpfl");
    d.put("sampling_rate", config.samplingRate());
    d.put("grad_clip", config.clip());
    d.put("rounds", config.rounds());
    d.put("learning_rate", config.learningRate());
    d.put("noise_split", config.split().id());
    d.put("accountant", config.accountant());
    d.put("neighbours", config.neighbours().id());
    if (!Double.isNaN(config.expectedBatch())) {
      d.put("expected_batch", config.expectedBatch());
    }
    d.put("optimizer", model.optimizer().id());
    if (model.net() != null) {
      d.put("start_seed", model.startSeed());
    }
    return o;
  }

  @Override
  public Preprocessing preprocessing() {
    return preprocessing;
  }

  @Override
  public LearnerKind modelKind() {
    return model.kind();
  }

  @Override
  public int rounds() {
    return config.rounds();
  }

  @Override
  public int length() {
    return model.length();
  }

  @Override
  public String describe() {
    return String.format(java.util.Locale.ROOT, "%s by federated DP-SGD: %d rounds, sampling rate %s, gradient "
        + "clip %s, %slearning rate %s, noise split %s, %s accountant, %s neighbours; %s", model.describe(),
        config.rounds(), num(config.samplingRate()), num(config.clip()),
        model.optimizer() == DpSgdModel.Optimizer.ADAM ? "Adam " : "", num(config.learningRate()),
        config.split().id(), config.accountant(), config.neighbours().id(), preprocessing.describe());
  }

  private static String num(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }

  @Override
  public dev.helmet.privacy.event.NeighbourRelation neighbours() {
    return config.neighbours();
  }

  @Override
  public Terms terms() {
    return new Terms(model.kind().id(), false, config.split().id());
  }

  /** A party's preprocessed rows (for the MLP also read without the intercept): its gradients every round. */
  @Override
  public String rosterProblem(int parties, int minContributors) {
    return config.split() == DpFl.NoiseSplit.HONEST ? dev.helmet.protocols.shared.HonestParties.honestProblem(
        minContributors, parties, config.honestFraction()) : null;
  }

  @Override
  public Local prepare(DesignMatrix data, long seed) {
    Checks.require(data.rows() > 0, "a party needs at least one record");
    return model.records(data);
  }

  @Override
  public PublicPlan plan(int[] sizes, int minContributors, boolean secureNoise) {
    return DpFlPlan.of(config, model, sizes, minContributors, common.publishedParties());
  }

  /**
   * The non-private counterpart. The softmax model: Helmet's learner with its defaults ({@link
   * dev.helmet.protocols.shared.LearnerDefaults}) on the pooled rows. The MLP: the same network, start and update rule on the pooled rows, for the same
   * rounds of q N records drawn with replacement, each record's gradient clipped to C as in the
   * run (the learning rate was chosen for clipped gradients) but no noise.
   */
  @Override
  public Reference reference(DesignMatrix pooled, java.util.SplittableRandom rng) {
    if (model.net() == null) {
      LearnerConfig c = dev.helmet.protocols.shared.LearnerDefaults.learner(model.kind());
      return Reference.ofLearner(c, preprocessing(), pooled, rng, c.kind().id() + ", Helmet's learner: Lambda "
          + Reference.num(c.lambda()) + ", R " + Reference.num(c.radius()));
    }
    return model.noiselessReference(pooled, config.clip(), config.samplingRate(),
        sizesPrivate() ? config.expectedBatch() : Double.NaN, config.rounds(), config.learningRate(), rng);
  }
}
