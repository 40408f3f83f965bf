package dev.helmet.protocols.crosssilo;

import dev.helmet.protocols.shared.LinearInputs;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import dev.helmet.privacy.mechanism.GaussianProjection;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.protocols.algorithm.Aggregate;
import dev.helmet.protocols.algorithm.Algorithm;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PartySums;
import dev.helmet.protocols.algorithm.ModelState;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.algorithm.Setup;
import dev.helmet.protocols.algorithm.SetupParty;
import dev.helmet.protocols.algorithm.Terms;
import dev.helmet.protocols.dpsgd.DpSgdModel;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.List;
import java.util.Map;

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
    return new Plan(new CrossSiloPlan(config, model, sizes, minContributors, common.epsilon(), common.delta(),
        common.ringBits(), common.honestFraction()));
  }

  /** The non-private counterpart: the same model, start, update rule and clipping, without noise. */
  @Override
  public Reference reference(DesignMatrix pooled, java.util.SplittableRandom rng) {
    return model.noiselessReference(pooled, config.clip(), config.samplingRate(),
        sizesPrivate() ? config.expectedBatch() : Double.NaN, config.rounds(), config.learningRate(), rng);
  }

  /** The public plan behind the algorithm interface. */
  private static final class Plan implements PublicPlan {
    private final CrossSiloPlan plan;
    /**
     * Whether an in-process runner holds this plan: it then runs the SWOR setup for all parties
     * itself; a networked party takes its side of the setup from {@link #contributor(int, Local,
     * NoiseFactory, long, SetupParty)}.
     */
    private volatile boolean inProcess;
    private SworBatches batches;

    Plan(CrossSiloPlan plan) {
      this.plan = plan;
    }

    /** Under SWOR the plan holds its run's batch sampler (the batch of the step last asked for). */
    @Override
    public boolean servesOneRun() {
      return plan.config().swor() != null;
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
      return plan.sigma();
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
      return plan.summary();
    }

    /** The SWOR batches, set up once (the mixnet runs on first use). */
    private synchronized SworBatches batches() {
      if (!inProcess) {
        throw new IllegalArgumentException("sampling without replacement needs the token mixnet's setup: a "
            + "networked party runs it through the coordinator's board before round 0");
      }
      if (batches == null) {
        CrossSiloConfig.Swor w = plan.config().swor();
        batches = w.idealMixnet() ? SworBatches.ideal(plan.sizes(), w.batch())
            : SworBatches.mixnet(plan.sizes(), w.batch(), Runtime.getRuntime().availableProcessors());
      }
      return batches;
    }

    /**
     * Party {@code party}'s sample for {@code round}: its own Poisson draw, or its records in the SWOR
     * batch (from its own side of the setup when it ran over a board, else from the in-process run).
     */
    private int[] sample(int party, int round, int size, RandomBits sampling, MixnetSetup.Party own) {
      if (plan.config().swor() == null) {
        return DpSgdModel.poissonSample(size, plan.config().samplingRate(), sampling);
      }
      return own != null ? own.records(round) : batches().records(party, round);
    }

    @Override
    public Setup setup(byte[] sessionId) {
      CrossSiloConfig.Swor w = plan.config().swor();
      return w == null || w.idealMixnet() ? null : new MixnetSetup(plan.sizes(), w.batch(), sessionId);
    }

    private static RandomBits sampling(NoiseFactory noise, long seed) {
      // The batches must stay secret (amplification by subsampling assumes no one knows them): from
      // the party's own SecureRandom; seeded only alongside the insecure test noise.
      return noise.isSecure() ? RandomBits.secure() : RandomBits.insecureForTesting(seed);
    }

    private double[] unpack(byte[] state) {
      double[] theta = ModelState.unpack(state, plan.model().length(), CrossSiloAlgorithm.ID);
      return theta;
    }

    /**
     * A summation that reveals group sums is admitted when the noise was sized for groups that
     * small ({@code crosssilo.noise_group}); each revealed sum then holds a full noise share.
     */
    @Override
    public void admit(dev.helmet.secagg.summation.SecureSummation summation, int parties) {
      inProcess = true;
      int g = summation.smallestRevealedSum(parties);
      int sized = plan.config().noiseGroup() > 0 ? plan.config().noiseGroup() : parties;
      if (!summation.revealsInputs() && g < sized) {
        throw new IllegalArgumentException(summation.name() + " shows the server the sum of every group of " + g
            + " parties; size the noise for such groups with --noise-group " + g + " (crosssilo.noise_group), so "
            + "each group's sum is DP by itself");
      }
    }

    @Override
    public Contributor contributor(int party, Local local, NoiseFactory noise, long seed) {
      return contributor(party, local, noise, seed, null);
    }

    @Override
    public Contributor contributor(int party, Local local, NoiseFactory noise, long seed, SetupParty setup) {
      if (setup != null && !(setup instanceof MixnetSetup.Party)) {
        throw new IllegalArgumentException("party " + party + "'s setup is not cross-silo's token mixnet");
      }
      MixnetSetup.Party mixnet = (MixnetSetup.Party) setup;
      if (!(local instanceof DpSgdModel.Records rows)) {
        throw new IllegalArgumentException("party " + party + "'s local state is not cross-silo's");
      }
      RandomBits sampling = sampling(noise, seed);
      GaussianNoise own = noise.gaussian(party);
      CrossSiloConfig c = plan.config();
      FixedPointEncoding enc = plan.encoding();
      double bound = plan.bound();
      return (round, state) -> {
        double[] theta = unpack(state);
        return () -> {
          // Its sample (possibly empty) and its noise share: a party always answers with its noise.
          int[] sample = sample(party, round, rows.size(), sampling, mixnet);
          double[] y = plan.signal(round, theta, rows, sample);
          own.addTo(y, plan.partyStd());
          long[] e = new long[y.length];
          for (int j = 0; j < y.length; j++) {
            e[j] = enc.encode(Math.max(-bound, Math.min(bound, y[j])));
          }
          return e;
        };
      };
    }

    @Override
    public ServerRole server() {
      CrossSiloConfig c = plan.config();
      double[] theta = plan.model().start();
      Optimiser.State adam = plan.model().adam(c.learningRate());
      int[] sizes = plan.sizes();
      return new ServerRole() {
        @Override
        public byte[] state(int round) {
          return ModelState.pack(theta);
        }

        @Override
        public void step(int round, double[] sum, int[] contributors) {
          Checks.require(sum.length == plan.length(), "sum of length " + sum.length + ", inputs of " + plan.length());
          long records = 0;
          for (int i : contributors) {
            records += sizes[i];
          }
          GaussianProjection p = plan.projection(round);
          double[] full = p == null ? sum : p.backProject(sum);
          DpSgdModel.descend(adam, theta, full, plan.normaliser(records), c.learningRate());
        }

        @Override
        public Model model() {
          return plan.model().model(theta);
        }
      };
    }

    @Override
    public Aggregate aggregate(List<? extends Local> locals, long[] seeds, NoiseFactory noise) {
      inProcess = true;
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
      CrossSiloConfig c = plan.config();
      int d = plan.model().length();
      return new Aggregate() {
        @Override
        public String description() {
          return "simulated (the parties' noise drawn as one Gaussian" + (plan.config().projection() > 0
              ? ", every record's gradient projected and clipped to C~ as each party does" : "") + "; no messages)";
        }

        @Override
        public double[] sum(int round, byte[] state, int threads) {
          double[] snapshot = unpack(state);
          double[] y;
          if (plan.config().projection() > 0) {
            // Each record's projection is clipped by itself (the parties' inputs' sum, as in
            // contributor), so the parties' records go through one buffer: P once per batch of records.
            ProjectedClippedSum projected = plan.projectedSum(round);
            for (int i = 0; i < w; i++) {
              projected.add(plan.model(), rows[i], snapshot, c.clip(), sample(i, round, rows[i].size(), sampling[i],
                  null));
            }
            y = projected.sum();
          } else {
            y = PartySums.sum(threads, w, d, (acc, i) -> plan.model().addClippedGradients(rows[i], snapshot,
                c.clip(), sample(i, round, rows[i].size(), sampling[i], null), acc));
          }
          centre.addTo(y, std);
          return y;
        }
      };
    }
  }
}
