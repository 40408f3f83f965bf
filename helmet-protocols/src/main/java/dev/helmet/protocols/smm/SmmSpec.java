package dev.helmet.protocols.smm;

import dev.helmet.protocols.shared.LinearInputs;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.nn.Examples;
import dev.helmet.core.nn.Mlp;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.SkellamMixtureRdp.Subsampling;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.Terms;
import dev.helmet.privacy.mechanism.RandomizedHadamard;
import java.util.Locale;

/** SMM's settings, and through {@link #plan} its rounds. */
final class SmmSpec implements AlgorithmSpec {
  private final Algorithm algorithm;
  private final Common common;
  private final SmmConfig config;
  private final Preprocessing preprocessing;
  private final Mlp net;

  SmmSpec(Algorithm algorithm, Common common, SmmConfig config, Preprocessing preprocessing) {
    this.algorithm = algorithm;
    this.common = common;
    this.config = config;
    this.preprocessing = preprocessing;
    this.net = new Mlp(config.widths(common.features(), common.classes()));
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
    l.put("kind", LearnerKind.MLP.id());
    var hidden = l.putArray("hidden");
    for (int h : config.hidden()) {
      hidden.add(h);
    }
    LinearInputs.putPreprocessing(l, preprocessing);
    ObjectNode s = o.putObject("smm");
    s.put("bits", config.bits());
    s.put("gamma", config.gamma());
    s.put("grad_clip", config.clip());
    s.put("sampling_rate", config.samplingRate());
    s.put("expected_batch", config.expectedBatch());
    s.put("rounds", config.rounds());
    s.put("learning_rate", config.learningRate());
    s.put("optimizer", config.adam() ? "adam" : "sgd");
    s.put("subsampling", config.subsampling().name().toLowerCase(Locale.ROOT));
    s.put("start_seed", config.startSeed());
    s.put("mechanism", config.mechanism());
    return o;
  }

  @Override
  public Preprocessing preprocessing() {
    return preprocessing;
  }

  /** An MLP (its settings are {@link #toConfig}, which the model file records beside it). */
  @Override
  public LearnerKind modelKind() {
    return LearnerKind.MLP;
  }

  @Override
  public int rounds() {
    return config.rounds();
  }

  @Override
  public int length() {
    return RandomizedHadamard.paddedLength(net.parameterCount());
  }

  /** The MLP's parameters: the inputs are padded to a power of two for the Hadamard rotation. */
  @Override
  public int modelParameters() {
    return net.parameterCount();
  }

  @Override
  public String describe() {
    String by = switch (config.mechanism()) {
      case "ddg" -> "the distributed discrete Gaussian (conditional rounding; the SMM paper's baseline)";
      case "skellam" -> "the distributed Skellam mechanism (conditional rounding; the SMM paper's baseline)";
      case "cpsgd" -> "cpSGD's binomial mechanism (conditional rounding; the SMM paper's baseline)";
      default -> "the Skellam mixture mechanism";
    };
    return String.format(Locale.ROOT, "MLP %s (%d parameters) by %s: %d rounds, sampling "
        + "rate %s, gradient clip %s, gamma %s, %d-bit ring, %s lr %s, %s subsampling bound; %s", net,
        net.parameterCount(), by, config.rounds(), num(config.samplingRate()), num(config.clip()), num(config.gamma()),
        config.bits(), config.adam() ? "Adam" : "SGD", num(config.learningRate()),
        config.mechanism().equals("cpsgd") ? "(eps, delta)" : config.subsampling().name().toLowerCase(Locale.ROOT),
        preprocessing.describe());
  }

  private static String num(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }

  @Override
  public dev.helmet.privacy.event.NeighbourRelation neighbours() {
    return dev.helmet.privacy.event.NeighbourRelation.ADD_OR_REMOVE_ONE;
  }

  @Override
  public Terms terms() {
    return new Terms(LearnerKind.MLP.id(), true, "honest");
  }

  @Override
  public String rosterProblem(int parties, int minContributors) {
    return dev.helmet.protocols.shared.HonestParties.honestProblem(minContributors, parties,
        common.honestFraction());
  }

  /** A party's rows as the MLP reads them. */
  record Rows(Examples examples) implements Local {
    @Override
    public int size() {
      return examples.size();
    }
  }

  @Override
  public Local prepare(DesignMatrix data, long seed) {
    Checks.require(data.rows() > 0, "a party needs at least one record");
    return new Rows(Examples.of(data));
  }

  @Override
  public PublicPlan plan(int[] sizes, int minContributors, boolean secureNoise) {
    return new SmmPlan(config, net, sizes, minContributors, common.epsilon(), common.delta(),
        common.honestFraction(), common.publishedParties());
  }

  /** The non-private counterpart: the same MLP trained by Adam on the pooled rows, without clipping or noise. */
  @Override
  public Reference reference(DesignMatrix pooled, java.util.SplittableRandom rng) {
    Examples x = Examples.of(pooled);
    double[] params = net.initialise(config.startSeed());
    var opt = (config.adam() ? new dev.helmet.core.nn.Adam(config.learningRate())
        : new dev.helmet.core.nn.Sgd(config.learningRate())).start(params.length);
    // The public |B|, not q times the pooled records: the reference's description goes into the
    // summary, and under add-or-remove neighbours the number of records is private.
    int batch = (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(config.expectedBatch())));
    int steps = config.rounds();
    double[] g = new double[params.length];
    int[] idx = new int[batch];
    for (int t = 0; t < steps; t++) {
      for (int j = 0; j < batch; j++) {
        idx[j] = rng.nextInt(x.size());
      }
      java.util.Arrays.fill(g, 0);
      net.gradientSum(params, x, idx, g);
      for (int j = 0; j < g.length; j++) {
        g[j] /= batch;
      }
      opt.update(params, g);
    }
    return new Reference(new dev.helmet.core.nn.MlpModel(net, params), "non-private centralized (the same MLP, "
        + (config.adam() ? "Adam" : "SGD") + ", " + steps + " steps of " + batch + " records, no clipping or noise) "
        + "on the pooled data", 0);
  }

  SmmConfig config() {
    return config;
  }

  static Subsampling subsampling(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "general" -> Subsampling.GENERAL;
      case "paper" -> Subsampling.PAPER;
      default -> throw new IllegalArgumentException("must be general or paper. Provided value: " + s);
    };
  }
}
