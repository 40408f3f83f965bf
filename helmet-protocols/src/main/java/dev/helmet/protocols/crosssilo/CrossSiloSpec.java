package dev.helmet.protocols.crosssilo;

import dev.helmet.protocols.shared.LinearInputs;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import dev.helmet.protocols.dpsgd.DpSgdModel;

/** Cross-silo's settings, and through {@link #plan} its rounds. */
final class CrossSiloSpec implements AlgorithmSpec {
  private final Algorithm algorithm;
  private final Common common;
  private final CrossSiloConfig config;
  private final Preprocessing preprocessing;
  private final DpSgdModel model;

  CrossSiloSpec(Algorithm algorithm, Common common, CrossSiloConfig config, Preprocessing preprocessing,
      DpSgdModel model) {
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

  CrossSiloConfig config() {
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
    LinearInputs.putPreprocessing(l, preprocessing);
    ObjectNode c = o.putObject(CrossSiloAlgorithm.SECTION);
    c.put("colluders", config.colluders());
    c.put("noise_split", config.split().id());
    c.put("neighbours", config.neighbours().id());
    c.put("sampling", config.swor() == null ? "poisson" : "swor");
    c.put("sampling_rate", config.samplingRate());
    if (config.swor() != null) {
      c.put("batch", config.swor().batch());
      c.put("swor_analysis", config.swor().analysis());
      if (config.swor().analysis().equals("slack")) {
        c.put("swor_slack", config.swor().slack());
      }
      c.put("swor_mixnet", config.swor().idealMixnet() ? "ideal" : "real");
    }
    if (!Double.isNaN(config.expectedBatch())) {
      c.put("expected_batch", config.expectedBatch());
    }
    c.put("rounds", config.rounds());
    c.put("grad_clip", config.clip());
    c.put("learning_rate", config.learningRate());
    c.put("optimizer", model.optimizer().id());
    c.put("accountant", config.accountant());
    if (model.net() != null) {
      c.put("start_seed", model.startSeed());
    }
    c.put("noise_group", config.noiseGroup());
    c.put("projection", config.projection());
    if (config.projection() > 0) {
      c.put("projection_slack", config.projectionSlack());
      c.put("projection_seed", config.projectionSeed());
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
    return config.projection() > 0 ? config.projection() : model.length();
  }

  /** The model's parameters: with a projection the inputs are shorter than the model. */
  @Override
  public int modelParameters() {
    return model.length();
  }

  @Override
  public String describe() {
    String sampling = config.swor() == null ? "Poisson sampling rate " + CrossSiloPlan.num(config.samplingRate())
        : "batches of " + config.swor().batch() + " without replacement (" + (config.swor().idealMixnet()
        ? "ideal mixnet" : "token mixnet") + ", " + config.swor().analysis() + " analysis)";
    return String.format(java.util.Locale.ROOT, "%s by cross-silo DP-SGD: %d rounds, %s, "
        + "gradient clip %s, %slearning rate %s, noise split %s (T = %d), %s accountant, %s neighbours; %s",
        model.describe(), config.rounds(), sampling,
        CrossSiloPlan.num(config.clip()), model.optimizer() == DpSgdModel.Optimizer.ADAM ? "Adam " : "",
        CrossSiloPlan.num(config.learningRate()), config.split().id(), config.colluders(), config.accountant(),
        config.neighbours().id(), preprocessing.describe()) + (config.projection() > 0
        ? "; projected to " + config.projection() + " dimensions, each record's projection clipped to C~ = C r(k, "
        + config.projectionSlack() + ")" : "");
  }

  @Override
  public String notNetworked() {
    return config.swor() == null || !config.swor().idealMixnet() ? null : "the ideal mixnet (swor_mixnet ideal) "
        + "draws the batches in one process without the parties' cryptography: choose swor_mixnet real (the "
        + "default) or sampling poisson for a networked session";
  }

  /** The real mixnet's posts grow with the parties' claims (T3-11): sized for every party claiming max_points. */
  @Override
  public String setupProblem(int parties, long maxPoints) {
    return config.swor() == null || config.swor().idealMixnet() ? null : MixnetSetup.sizeProblem(parties, maxPoints);
  }

  @Override
  public String notDistributed() {
    return config.swor() == null ? null : "sampling swor draws its batches in a setup of all parties (a mixnet, or "
        + "the ideal sampler) that the engine's workers cannot each repeat: choose sampling poisson, or the local engine";
  }

  @Override
  public dev.helmet.privacy.event.NeighbourRelation neighbours() {
    return config.neighbours();
  }

  @Override
  public Terms terms() {
    // The colluders split is the honest split of the other algorithms, sized for T + 1 colluding
    // parties instead of an honest fraction; local noise protects each party by its own share.
    return switch (config.split()) {
      case COLLUDERS -> new Terms(model.kind().id(), false, "honest", config.colluders() + 1);
      case LOCAL -> new Terms(model.kind().id(), false, "own");
      case TRUSTED_HARDWARE -> new Terms(model.kind().id(), false, config.split().id());
    };
  }

  @Override
  public Local prepare(DesignMatrix data, long seed) {
    Checks.require(data.rows() > 0, "a party needs at least one record");
    return model.records(data);
  }

  @Override
  public PublicPlan plan(int[] sizes, int minContributors, boolean secureNoise) {
    return new CrossSiloPlan(config, model, sizes, minContributors, common.epsilon(), common.delta(),
        common.ringBits(), common.honestFraction());
  }

  /** The non-private counterpart: the same model, start, update rule and clipping, without noise. */
  @Override
  public Reference reference(DesignMatrix pooled, java.util.SplittableRandom rng) {
    return model.noiselessReference(pooled, config.clip(), config.samplingRate(),
        sizesPrivate() ? config.expectedBatch() : Double.NaN, config.rounds(), config.learningRate(), rng);
  }
}
