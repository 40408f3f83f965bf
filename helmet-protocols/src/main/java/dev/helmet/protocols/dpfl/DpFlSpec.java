package dev.helmet.protocols.dpfl;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LearnerKind;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
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
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.algorithm.Terms;
import dev.helmet.protocols.helmet.HelmetDefaults;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** DP-FL's settings, and through {@link #plan} its rounds. */
final class DpFlSpec implements AlgorithmSpec {
  /** The first byte of a round's state: the encoding's version. */
  static final byte STATE_V1 = 1;

  private final Algorithm algorithm;
  private final Common common;
  private final DpFl.Config config;
  private final Preprocessing preprocessing;

  DpFlSpec(Algorithm algorithm, Common common, DpFl.Config config, Preprocessing preprocessing) {
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

  DpFl.Config config() {
    return config;
  }

  @Override
  public ObjectNode toConfig() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    ObjectNode l = o.putObject("learner");
    l.put("kind", LearnerKind.SOFTMAX.id());
    dev.helmet.protocols.helmet.HelmetAlgorithm.putPreprocessing(l, preprocessing);
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
    return o;
  }

  @Override
  public Preprocessing preprocessing() {
    return preprocessing;
  }

  /** The model file records the softmax model; its hyperparameters are DP-FL's, in the ledger. */
  @Override
  public LearnerConfig learner() {
    return HelmetDefaults.learner(LearnerKind.SOFTMAX);
  }

  @Override
  public int rounds() {
    return config.rounds();
  }

  @Override
  public int length() {
    return common.classes() * (common.features() + 1);
  }

  @Override
  public String describe() {
    return String.format(java.util.Locale.ROOT, "softmax by federated DP-SGD: %d rounds, sampling rate %s, gradient "
        + "clip %s, learning rate %s, noise split %s, %s accountant, %s neighbours; %s", config.rounds(),
        num(config.samplingRate()), num(config.clip()), num(config.learningRate()), config.split().id(),
        config.accountant(), config.neighbours().id(), preprocessing.describe());
  }

  private static String num(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }

  @Override
  public Terms terms() {
    return new Terms(LearnerKind.SOFTMAX.id(), false, config.split().id());
  }

  /** A party's preprocessed rows: DP-FL computes its gradients on them every round. */
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

  @Override
  public PublicPlan plan(int[] sizes, int minContributors, boolean secureNoise) {
    return new Plan(DpFl.Plan.of(config, sizes, minContributors, common.classes(), common.features() + 1),
        sizes.clone());
  }

  /** A round's state: version 1, then the model's doubles, little-endian, class-major. */
  static byte[] pack(double[] theta) {
    ByteBuffer b = ByteBuffer.allocate(1 + 8 * theta.length).order(ByteOrder.LITTLE_ENDIAN);
    b.put(STATE_V1);
    for (double v : theta) {
      b.putDouble(v);
    }
    return b.array();
  }

  /** Reads a round's state, refusing another version, a wrong length or a non-finite value. */
  static double[] unpack(byte[] state, int length) {
    Checks.require(state.length == 1 + 8L * length && state[0] == STATE_V1, "a dp-fl round state must be version "
        + STATE_V1 + " with " + length + " doubles (" + (1 + 8L * length) + " bytes); " + state.length + " bytes came"
        + (state.length > 0 ? " of version " + state[0] : ""));
    ByteBuffer b = ByteBuffer.wrap(state, 1, state.length - 1).order(ByteOrder.LITTLE_ENDIAN);
    double[] theta = new double[length];
    for (int j = 0; j < length; j++) {
      theta[j] = b.getDouble();
      Checks.require(Double.isFinite(theta[j]), "model value " + j + " of the round state is not finite");
    }
    return theta;
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
      m.put("neighbours", c.neighbours().id());
      m.put("noise_sampler", DpFl.Plan.NOISE_SAMPLER);
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
      if (!(local instanceof Rows rows)) {
        throw new IllegalArgumentException("party " + party + "'s local state is not dp-fl's");
      }
      RandomBits sampling = sampling(noise, seed);
      GaussianNoise own = noise.gaussian(party);
      return (round, state) -> {
        double[] theta = unpack(state, plan.length());
        return () -> plan.input(rows.design(), theta, sampling, own);
      };
    }

    @Override
    public ServerRole server() {
      double[] theta = new double[plan.length()];
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
          plan.step(theta, sum, records);
        }

        @Override
        public LinearModel model() {
          return new LinearModel(plan.classes(), plan.cols(), theta.clone());
        }
      };
    }

    @Override
    public Aggregate aggregate(List<? extends Local> locals, long[] seeds, NoiseFactory noise) {
      int w = locals.size();
      DesignMatrix[] rows = new DesignMatrix[w];
      RandomBits[] sampling = new RandomBits[w];
      for (int i = 0; i < w; i++) {
        rows[i] = ((Rows) locals.get(i)).design();
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
          int chunks = Math.min(w, Math.max(1, threads) * 4);
          double[][] partial = new double[chunks][d];
          Parallel.forEach(threads, chunks, k -> {
            double[] acc = partial[k];
            Arrays.fill(acc, 0);
            for (int i = k; i < w; i += chunks) {
              ClippedGradients.add(rows[i], snapshot, plan.classes(), c.clip(), c.samplingRate(), sampling[i], acc);
            }
          });
          double[] sum = new double[d];
          for (double[] acc : partial) {
            for (int j = 0; j < d; j++) {
              sum[j] += acc[j];
            }
          }
          centre.addTo(sum, std);
          return sum;
        }
      };
    }
  }
}
