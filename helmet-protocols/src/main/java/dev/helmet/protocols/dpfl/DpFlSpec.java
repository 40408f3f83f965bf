package dev.helmet.protocols.dpfl;

import dev.helmet.protocols.dpsgd.DpSgdModel;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.Model;
import dev.helmet.core.nn.Optimiser;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.protocols.algorithm.Aggregate;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PartySums;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.algorithm.Terms;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    return new Plan(DpFl.Plan.of(config, model, sizes, minContributors, common.publishedParties()), sizes.clone());
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

  /** A round's state ({@link dev.helmet.protocols.algorithm.ModelState}). */
  static byte[] pack(double[] params) {
    return dev.helmet.protocols.algorithm.ModelState.pack(params);
  }

  /** Reads a round's state, refusing another version, a wrong length or a non-finite value. */
  static double[] unpack(byte[] state, int length) {
    return dev.helmet.protocols.algorithm.ModelState.unpack(state, length, "dp-fl");
  }

  /** The public plan: {@link DpFl.Plan} behind the algorithm interface. */
  private static final class Plan implements PublicPlan {
    private final DpFl.Plan plan;
    private final int[] sizes;

    Plan(DpFl.Plan plan, int[] sizes) {
      this.plan = plan;
      this.sizes = sizes;
    }

    @Override
    public int rounds() {
      return plan.config().rounds();
    }

    @Override
    public int length() {
      return plan.length();
    }

    @Override
    public FixedPointEncoding encoding() {
      return plan.encoding();
    }

    @Override
    public int minContributors() {
      return plan.minContributors();
    }

    @Override
    public double noiseMultiplier() {
      return plan.noiseMultiplier();
    }

    @Override
    public int colluders() {
      return plan.colluders();
    }

    @Override
    public PrivacyCharge charge() {
      return plan.charge();
    }

    @Override
    public PrivacyLedger ledger(int contributors, String summation, boolean revealsInputs) {
      return plan.ledger(summation, revealsInputs);
    }

    @Override
    public Map<String, Object> summary() {
      DpFl.Config c = plan.config();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("accountant", c.accountant());
      m.put("noise_multiplier", plan.noiseMultiplier());
      m.put("noise_split", c.split().id());
      m.put("sampling_rate", c.samplingRate());
      m.put("clip", c.clip());
      m.put("learning_rate", c.learningRate());
      m.put("model", plan.model().describe());
      m.put("optimizer", plan.model().optimizer().id());
      m.put("neighbours", c.neighbours().id());
      m.put("noise_sampler", dev.helmet.protocols.dpsgd.ContinuousNoise.SAMPLER);
      m.put("ring_bits", plan.encoding().ringBits());
      return m;
    }

    private static RandomBits sampling(NoiseFactory noise, long seed) {
      // The batches must stay secret (amplification by subsampling assumes no one knows them): from
      // the party's own SecureRandom; seeded only alongside the insecure test noise.
      return noise.isSecure() ? RandomBits.secure() : RandomBits.insecureForTesting(seed);
    }

    @Override
    public Contributor contributor(int party, Local local, NoiseFactory noise, long seed) {
      if (!(local instanceof DpSgdModel.Records rows)) {
        throw new IllegalArgumentException("party " + party + "'s local state is not dp-fl's");
      }
      RandomBits sampling = sampling(noise, seed);
      GaussianNoise own = noise.gaussian(party);
      return (round, state) -> {
        double[] theta = unpack(state, plan.length());
        return () -> plan.input(rows, theta, sampling, own);
      };
    }

    @Override
    public ServerRole server() {
      DpFl.Config c = plan.config();
      double[] theta = plan.model().start();
      Optimiser.State adam = plan.model().adam(c.learningRate());
      return new ServerRole() {
        @Override
        public byte[] state(int round) {
          return pack(theta);
        }

        @Override
        public void step(int round, double[] sum, int[] contributors) {
          long records = 0;
          for (int i : contributors) {
            records += sizes[i];
          }
          plan.step(adam, theta, sum, records);
        }

        @Override
        public Model model() {
          return plan.model().model(theta);
        }
      };
    }

    @Override
    public Aggregate aggregate(List<? extends Local> locals, long[] seeds, NoiseFactory noise) {
      int w = locals.size();
      DpSgdModel.Records[] rows = new DpSgdModel.Records[w];
      RandomBits[] sampling = new RandomBits[w];
      for (int i = 0; i < w; i++) {
        rows[i] = (DpSgdModel.Records) locals.get(i);
        sampling[i] = sampling(noise, seeds[i]);
      }
      // The sum of W independent N(0, s^2) draws is N(0, W s^2).
      double std = plan.partyStd() * Math.sqrt(w);
      GaussianNoise centre = noise.gaussian(w);
      DpFl.Config c = plan.config();
      return new Aggregate() {
        @Override
        public String description() {
          return "simulated (the parties' noise drawn as one Gaussian; no messages)";
        }

        @Override
        public double[] sum(int round, byte[] state, int threads) {
          double[] snapshot = unpack(state, plan.length());
          int d = plan.length();
          double[] sum = PartySums.sum(threads, w, d, (acc, i) -> plan.model().addClippedGradients(rows[i], snapshot,
              c.clip(), c.samplingRate(), sampling[i], acc));
          centre.addTo(sum, std);
          return sum;
        }
      };
    }
  }
}
