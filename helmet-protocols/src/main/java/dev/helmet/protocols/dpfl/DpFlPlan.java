package dev.helmet.protocols.dpfl;

import dev.helmet.core.learn.Model;
import dev.helmet.core.nn.Optimiser;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.protocols.algorithm.Aggregate;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.ModelState;
import dev.helmet.protocols.algorithm.NoiseClamp;
import dev.helmet.protocols.algorithm.PartySums;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.dpfl.DpFl.Config;
import dev.helmet.protocols.dpfl.DpFl.NoiseSplit;
import dev.helmet.protocols.dpsgd.DpSgdModel;
import dev.helmet.protocols.privacy.Audience;
import dev.helmet.protocols.shared.HonestParties;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The public half of a DP-FL run: everything derived from the configuration, the parties' sizes
 * (public, as in Helmet) and the fewest contributors a round may sum. The in-process simulation
 * and the networked coordinator and participants all derive it with this same code, so a
 * participant computes its own noise and refuses to run more rounds than were accounted.
 */
final class DpFlPlan implements PublicPlan {
  private final Config config;
  private final int parties;
  /** Every party's number of records: the server's step normaliser counts the contributors' (replace-one). */
  private final int[] sizes;
  /** The parties the honest fraction counts colluders of: the published number, at least the roster (T3-3). */
  private final int colluderBase;
  private final int minContributors;
  private final DpSgdModel model;
  private final double sigma;
  private final double mechanismDelta;
  private final double clampStds;
  private final double partyStd;
  private final double bound;
  private final FixedPointEncoding encoding;
  /** {@link #epsilon()} and {@link #perPartyEpsilon()}, once computed (null before). */
  private volatile Double epsilon;
  private volatile Double perPartyEpsilon;

  private DpFlPlan(Config c, DpSgdModel model, int[] sizes, int minContributors, int publishedParties) {
    Checks.require(sizes.length >= 1, "DP-FL needs at least one party");
    Checks.require(minContributors >= 1 && minContributors <= sizes.length,
        "min contributors must be in [1, " + sizes.length + "]. Provided value: " + minContributors);
    this.config = c;
    this.parties = sizes.length;
    this.sizes = sizes;
    this.colluderBase = HonestParties.colluderBase(sizes.length, publishedParties);
    this.minContributors = minContributors;
    this.model = Checks.notNull("model", model);
    int w = sizes.length;
    int d = model.length();
    int maxLocal = 0;
    for (int n : sizes) {
      Checks.require(n >= 1, "every party needs at least one record");
      maxLocal = Math.max(maxLocal, n);
    }
    // Encoding: a party's clipped sum has per-coordinate magnitude at most n_i C (every record's
    // clipped gradient has L2 norm, so every coordinate, at most C, for either model); its noise is
    // clamped ({@link NoiseClamp}: at least 12 standard deviations, the tail charged to delta).
    NoiseClamp clamp = NoiseClamp.of((double) c.rounds() * w * d, c.epsilon(), c.delta());
    this.clampStds = clamp.stds();
    this.mechanismDelta = c.delta() - clamp.deltaTail();
    this.sigma = c.noiseMultiplier(mechanismDelta);
    // The noise is sized for the fewest contributors a round may have: with more, there is only
    // more noise. Honest: the guaranteed honest contributors among them alone give std sigma C.
    double honest = switch (c.split()) {
      case HONEST -> HonestParties.noiseHonest(minContributors, colluderBase, c.honestFraction());
      case ALL_TRUSTED -> minContributors;
      case SQRT_W_PENALTY -> 1;
    };
    if (honest <= 0) {
      throw new IllegalArgumentException("honest fraction " + c.honestFraction() + " of " + w + " parties leaves no "
          + "honest party among " + minContributors + " contributors");
    }
    this.partyStd = sigma * c.clip() / Math.sqrt(honest);
    this.bound = maxLocal * c.clip() + clampStds * partyStd;
    this.encoding = FixedPointEncoding.choose(c.ringBits(), bound, w);
  }

  /**
   * The plan of the softmax model trained by SGD for parties of the given sizes.
   *
   * @param minContributors the fewest parties a round's sum may have (W in-process)
   * @param classes the number of classes
   * @param cols the design matrix's columns (features plus the intercept)
   */
  static DpFlPlan of(Config c, int[] sizes, int minContributors, int classes, int cols) {
    return of(c, DpSgdModel.softmax(classes, cols, DpSgdModel.Optimizer.SGD), sizes, minContributors);
  }

  /**
   * The plan of {@code model} for parties of the given sizes.
   *
   * @param minContributors the fewest parties a round's sum may have (W in-process)
   */
  static DpFlPlan of(Config c, DpSgdModel model, int[] sizes, int minContributors) {
    return of(c, model, sizes, minContributors, 0);
  }

  /**
   * As above, with the honest fraction a fraction of {@code publishedParties} (0: of the roster):
   * a networked session counts its colluders against the parties it published (T3-3).
   */
  static DpFlPlan of(Config c, DpSgdModel model, int[] sizes, int minContributors, int publishedParties) {
    return new DpFlPlan(c, model, sizes.clone(), minContributors, publishedParties);
  }

  Config config() {
    return config;
  }

  /** The noise multiplier sigma (noise std sigma C on each round's sum of clipped gradients). */
  @Override
  public double noiseMultiplier() {
    return sigma;
  }

  /** Each party's noise std (before the clamp). */
  public double partyStd() {
    return partyStd;
  }

  /** The summation ring's encoding. */
  @Override
  public FixedPointEncoding encoding() {
    return encoding;
  }

  /** The rounds (SGD steps), one summation each. */
  @Override
  public int rounds() {
    return config.rounds();
  }

  /** The model's length: classes x columns for the softmax model, the MLP's parameter count. */
  @Override
  public int length() {
    return model.length();
  }

  /** What is trained, and the server's update rule. */
  public DpSgdModel model() {
    return model;
  }

  public int parties() {
    return parties;
  }

  @Override
  public int minContributors() {
    return minContributors;
  }

  /**
   * The eps achieved over all rounds (at most the target), at the configured delta. Computed once
   * per plan: the plan is immutable, and a PLD evaluation takes tens of milliseconds, which every
   * release's ledger would otherwise pay again (an audit builds thousands of ledgers from one plan).
   */
  public double epsilon() {
    Double e = epsilon;
    if (e == null) {
      e = config.accountants().get().compose(config.event(sigma)).epsilon(mechanismDelta);
      epsilon = e; // a race computes the same value twice, never a different one
    }
    return e;
  }

  /** The eps against a server that sees one party's noised sum each round (its own noise alone), once per plan. */
  private double perPartyEpsilon() {
    Double e = perPartyEpsilon;
    if (e == null) {
      e = config.accountants().get()
          .compose(new SelfComposedDpEvent(config.roundEvent(partyStd / config.clip()), config.rounds()))
          .epsilon(mechanismDelta);
      perPartyEpsilon = e;
    }
    return e;
  }

  /**
   * One party's input to a round: the sum of its Poisson-sampled, clipped gradients at
   * {@code theta} plus its share of the noise, clamped to the encoding's bound and encoded.
   *
   * @param sampling the party's own secret randomness for the Poisson sample
   */
  public long[] input(DpSgdModel.Records local, double[] theta, RandomBits sampling, GaussianNoise noise) {
    checkModel(theta);
    double[] g = new double[length()];
    model.addClippedGradients(local, theta, config.clip(), config.samplingRate(), sampling, g);
    noise.addTo(g, partyStd);
    long[] e = new long[g.length];
    for (int j = 0; j < g.length; j++) {
      e[j] = encoding.encode(Math.max(-bound, Math.min(bound, g[j])));
    }
    return e;
  }

  /**
   * The public number B a round's sum is divided by: under replace-one neighbours {@code q n}, n
   * the contributors' records in total (every party's size is public there), so the step uses the
   * expected batch size of the parties actually summed; under add-or-remove the configured
   * expected batch size (the number of records is private there).
   */
  public double normaliser(long contributorRecords) {
    Checks.positive("contributor records", contributorRecords);
    return config.neighbours() == NeighbourRelation.REPLACE_ONE && Double.isNaN(config.expectedBatch())
        ? config.samplingRate() * contributorRecords : config.expectedBatch();
  }

  /** The server's SGD step: {@code theta -= lr * sum / B}, B the {@link #normaliser}. */
  public void step(double[] theta, double[] sum, long contributorRecords) {
    checkModel(theta);
    DpSgdModel.descend(null, theta, sum, normaliser(contributorRecords), config.learningRate());
  }

  /**
   * The server's step by a stateful update rule (Adam): {@code optimiser} updates {@code theta}
   * from the noisy mean clipped gradient {@code sum / B}; SGD when {@code optimiser} is null.
   */
  public void step(Optimiser.State optimiser, double[] theta, double[] sum, long contributorRecords) {
    checkModel(theta);
    DpSgdModel.descend(optimiser, theta, sum, normaliser(contributorRecords), config.learningRate());
  }

  /** The most parties that may collude with the server and leave the noise calibrated. */
  @Override
  public int colluders() {
    return switch (config.split()) {
      case HONEST -> colluderBase - HonestParties.honestContributors(colluderBase, colluderBase,
          config.honestFraction());
      case ALL_TRUSTED -> 0;
      case SQRT_W_PENALTY -> minContributors - 1; // one honest party's noise is the full noise
    };
  }

  /**
   * What the run costs every party's data per released round, from this public plan alone: a
   * party charges its own ledger with {@code charge().epsilon(k)} after k rounds it contributed
   * to, never with a number it is sent.
   */
  @Override
  public PrivacyCharge charge() {
    return new PrivacyCharge(config.accountant(), config.roundEvent(sigma), config.rounds(), mechanismDelta,
        config.delta(), config.neighbours().describe(), "record");
  }


  /**
   * The privacy ledger of the released model: every round summed at least the plan's minimum of
   * contributors (the summation refuses fewer), so the accounted eps is the plan's, whatever
   * {@code contributors} is.
   */
  @Override
  public PrivacyLedger ledger(int contributors, String summationName, boolean summationRevealsInputs) {
    java.util.Map<String, Object> details = new java.util.LinkedHashMap<>();
    details.put("model", model.describe());
    details.put("optimizer", model.optimizer().id());
    details.put("noise_multiplier", sigma);
    details.put("sampling_rate", config.samplingRate());
    details.put("rounds", config.rounds());
    details.put("gradient_clip", config.clip());
    details.put("learning_rate", config.learningRate());
    details.put("noise_split", config.split().id());
    details.put("honest_fraction", config.honestFraction());
    details.put("parties", parties);
    details.put("min_contributors", minContributors);
    details.put("party_noise_std", partyStd);
    details.put("noise_sampler", dev.helmet.protocols.dpsgd.ContinuousNoise.SAMPLER);
    details.put("step_normaliser", Double.isNaN(config.expectedBatch())
        ? "q x records of the round's contributors (public under replace-one)"
        : "expected batch size " + config.expectedBatch());
    details.put("delta_clamp_tail", config.delta() - mechanismDelta);
    details.put("summation", summationName);
    details.put("summation_reveals_inputs", summationRevealsInputs);
    details.put("ring_bits", encoding.ringBits());
    details.put("fractional_bits", encoding.fractionalBits());
    double eps = epsilon();
    String relation = config.neighbours().describe();
    java.util.List<Guarantee> guarantees = new java.util.ArrayList<>();
    // All-trusted: the noise is split W ways with nobody left out, so a participant that subtracts
    // its own share sees less than the calibrated noise; the audience says so (privacy review turn
    // 3, finding 4).
    String trust = config.split() == NoiseSplit.ALL_TRUSTED
        ? " (all-trusted noise split: only if every party adds its noise share and no participant subtracts its "
            + "own; a participant that does sees (W - 1) / W of the noise variance)"
        : "";
    guarantees.add(new Guarantee(Audience.releasedModel(summationName, summationRevealsInputs, colluders(),
        config.split() != NoiseSplit.ALL_TRUSTED) + trust + "; covers every round's model", relation, "record", eps, config.delta()));
    if (summationRevealsInputs) {
      // In the clear the server sees each party's noised gradient sum every round: one party's own
      // noise (std partyStd on a sum of sensitivity C) protects that party's records.
      double perParty = perPartyEpsilon();
      guarantees.add(new Guarantee(Audience.serverInTheClear(), relation, "record", perParty, config.delta()));
      details.put("epsilon_against_server_per_party", perParty);
    }
    return new PrivacyLedger("dp-fl (federated DP-SGD, one summation per round)",
        relation, "record", config.event(sigma).describe(), config.accountant(), eps, config.delta(), details,
        guarantees);
  }

  /** Refuses a model of the wrong length or with a non-finite value (it would void the clipping). */
  public void checkModel(double[] theta) {
    Checks.require(theta.length == length(), "a model of " + theta.length + " values; this plan's has " + length());
    for (int j = 0; j < theta.length; j++) {
      if (!Double.isFinite(theta[j])) {
        throw new IllegalArgumentException("model value " + j + " is not finite: " + theta[j]);
      }
    }
  }

  /** The public figures for reports. */
  @Override
  public Map<String, Object> summary() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("accountant", config.accountant());
    m.put("noise_multiplier", sigma);
    m.put("noise_split", config.split().id());
    m.put("sampling_rate", config.samplingRate());
    m.put("clip", config.clip());
    m.put("learning_rate", config.learningRate());
    m.put("model", model.describe());
    m.put("optimizer", model.optimizer().id());
    m.put("neighbours", config.neighbours().id());
    m.put("noise_sampler", dev.helmet.protocols.dpsgd.ContinuousNoise.SAMPLER);
    m.put("ring_bits", encoding.ringBits());
    return m;
  }

  @Override
  public Contributor contributor(int party, Local local, NoiseFactory noise, long seed) {
    if (!(local instanceof DpSgdModel.Records rows)) {
      throw new IllegalArgumentException("party " + party + "'s local state is not dp-fl's");
    }
    RandomBits sampling = noise.secretBits(seed);
    GaussianNoise own = noise.gaussian(party);
    return (round, state) -> {
      double[] theta = ModelState.unpack(state, length(), "dp-fl");
      return () -> input(rows, theta, sampling, own);
    };
  }

  @Override
  public ServerRole server() {
    double[] theta = model.start();
    Optimiser.State adam = model.adam(config.learningRate());
    return new ServerRole() {
      @Override
      public byte[] state(int round) {
        return ModelState.pack(theta);
      }

      @Override
      public void step(int round, double[] sum, int[] contributors) {
        long records = 0;
        for (int i : contributors) {
          records += sizes[i];
        }
        DpFlPlan.this.step(adam, theta, sum, records);
      }

      @Override
      public Model model() {
        return model.model(theta);
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
      sampling[i] = noise.secretBits(seeds[i]);
    }
    // The sum of W independent N(0, s^2) draws is N(0, W s^2).
    double std = partyStd * Math.sqrt(w);
    GaussianNoise centre = noise.gaussian(w);
    return new Aggregate() {
      @Override
      public String description() {
        return "simulated (the parties' noise drawn as one Gaussian; no messages)";
      }

      @Override
      public double[] sum(int round, byte[] state, int threads) {
        double[] snapshot = ModelState.unpack(state, length(), "dp-fl");
        int d = length();
        double[] sum = PartySums.sum(threads, w, d, (acc, i) -> model.addClippedGradients(rows[i], snapshot,
            config.clip(), config.samplingRate(), sampling[i], acc));
        centre.addTo(sum, std);
        return sum;
      }
    };
  }
}
