package dev.helmet.protocols.crosssilo;

import dev.helmet.core.util.Checks;
import dev.helmet.core.learn.Model;
import dev.helmet.core.nn.Optimiser;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.protocols.algorithm.Aggregate;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.ModelState;
import dev.helmet.protocols.algorithm.PartySums;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.algorithm.Setup;
import dev.helmet.protocols.algorithm.SetupParty;
import dev.helmet.privacy.accounting.ProjectionSensitivity;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.mechanism.GaussianProjection;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.protocols.algorithm.NoiseClamp;
import dev.helmet.protocols.dpsgd.DpSgdModel;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a cross-silo run derives from its public settings and the roster: the noise
 * multiplier sigma calibrated for the target (eps, delta), each party's share of the noise, the
 * ring, and the guarantee. The coordinator and every party compute it with this same code, so a
 * party never takes anyone's word for its noise or its privacy charge.
 *
 * <p>The privacy argument, and how a step is accounted: {@link CrossSiloAccounting}. Under
 * sampling without replacement the plan also holds its run's batch sampler ({@link #servesOneRun}).
 */
final class CrossSiloPlan implements PublicPlan {
  private final CrossSiloConfig config;
  private final DpSgdModel model;
  private final int[] sizes;
  private final int minContributors;
  private final double epsilon;
  private final double delta;
  private final double mechanismDelta;
  private final double sigma;
  private final int shares;
  private final double partyStd;
  private final double bound;
  private final FixedPointEncoding encoding;
  private final int length;
  private final double clipRatio;
  private final long records;
  private final long maliciousRecords;
  /**
   * Whether an in-process runner holds this plan: it then runs the SWOR setup for all parties
   * itself; a networked party takes its side of the setup from {@link #contributor(int, Local,
   * NoiseFactory, long, SetupParty)}.
   */
  private volatile boolean inProcess;
  private SworBatches batches;

  CrossSiloPlan(CrossSiloConfig config, DpSgdModel model, int[] sizes, int minContributors, double epsilon,
      double delta, int ringBits, double honestFraction) {
    Checks.require(sizes.length >= 1, "cross-silo needs at least one party");
    Checks.require(minContributors >= 1 && minContributors <= sizes.length,
        "min contributors must be in [1, " + sizes.length + "]. Provided value: " + minContributors);
    this.config = config;
    this.model = model;
    this.sizes = sizes.clone();
    this.minContributors = minContributors;
    this.epsilon = epsilon;
    this.delta = delta;
    int maxLocal = 0;
    for (int n : sizes) {
      Checks.require(n >= 1, "every party needs at least one record");
      maxLocal = Math.max(maxLocal, n);
    }
    this.shares = CrossSiloAccounting.honestShares(config, minContributors);
    CrossSiloAccounting.checkSummation(config, sizes.length, honestFraction);
    long total = 0;
    for (int n : sizes) {
      total += n;
    }
    this.records = total;
    // Under SWOR the coalition knows which of its own tokens each step draws: its records are the
    // colluders' (the largest parties, the worst case), known from the public sizes.
    int[] sorted = sizes.clone();
    java.util.Arrays.sort(sorted);
    long known = 0;
    for (int i = 0; i < Math.min(colluders(), sorted.length); i++) {
      known += sorted[sorted.length - 1 - i];
    }
    this.maliciousRecords = known;
    if (config.swor() != null) {
      Checks.require(total <= Integer.MAX_VALUE, "sampling without replacement takes at most 2^31 - 1 records");
      Checks.require(config.swor().batch() <= total - known, "the batch of " + config.swor().batch() + " exceeds the "
          + (total - known) + " records outside the coalition");
    }
    int k = config.projection();
    Checks.require(k < model.length(), "the projection dimension must be below the model's " + model.length()
        + " parameters. Provided value: " + k);
    this.length = k > 0 ? k : model.length();
    this.clipRatio = k > 0 ? ProjectionSensitivity.clipRatio(k, config.projectionSlack()) : 1;
    NoiseClamp clamp = NoiseClamp.of((double) config.rounds() * sizes.length * length, epsilon, delta);
    this.mechanismDelta = delta - clamp.deltaTail();
    this.sigma = CrossSiloAccounting.calibrate(config, (int) Math.min(total, Integer.MAX_VALUE), (int) known, epsilon,
        mechanismDelta);
    this.partyStd = sigma * config.clip() * clipRatio / Math.sqrt(shares);
    // A party's signal has L2 norm at most n_i C (unprojected), or n_i C~ when projecting: each of its
    // at most n_i records adds a projection clipped to C~. So every coordinate is within that too.
    this.bound = maxLocal * config.clip() * clipRatio + clamp.stds() * partyStd;
    this.encoding = FixedPointEncoding.choose(ringBits, bound, sizes.length);
  }

  /** The accounted event of one step at noise multiplier {@code s}, for this roster. */
  DpEvent roundEvent(double s) {
    return CrossSiloAccounting.roundEvent(config, (int) Math.min(records, Integer.MAX_VALUE), (int) maliciousRecords,
        s);
  }

  CrossSiloConfig config() {
    return config;
  }

  DpSgdModel model() {
    return model;
  }

  int[] sizes() {
    return sizes.clone();
  }

  @Override
  public int minContributors() {
    return minContributors;
  }

  double sigma() {
    return sigma;
  }

  /** The noise multiplier sigma (relative to C, or to C~ when projecting). */
  @Override
  public double noiseMultiplier() {
    return sigma;
  }

  @Override
  public int rounds() {
    return config.rounds();
  }

  /** The length of every input: k when projecting, else the model's. */
  @Override
  public int length() {
    return length;
  }

  /** C~/C: the projected clip bound over the clip (1 without projection). */
  double clipRatio() {
    return clipRatio;
  }

  /**
   * Step {@code round}'s projection P (d x k), or null without projection. Its seed is public and
   * fixed before the data; the guarantee does not depend on it (see the class note).
   */
  GaussianProjection projection(int round) {
    return config.projection() > 0 ? new GaussianProjection(config.projectionSeed() * 0x9e3779b97f4a7c15L + round + 1,
        model.length(), config.projection()) : null;
  }

  /** C~ = C r(k, delta'): the bound on each record's projected gradient (C without projection). */
  double projectedClip() {
    return config.clip() * clipRatio;
  }

  /** An empty projected sum for step {@code round} (projection only). */
  ProjectedClippedSum projectedSum(int round) {
    Checks.require(config.projection() > 0, "no projection is configured");
    return new ProjectedClippedSum(projection(round), projectedClip());
  }

  /**
   * A party's input before its noise share at step {@code round}: the sum over {@code sample} of its
   * records' gradients at theta clipped to C (length d), or with a projection the sum of their
   * projections each clipped to C~ (length k). The sensitivity the noise is sized for, C or C~,
   * holds for this sum whatever theta and P are.
   */
  double[] signal(int round, double[] theta, DpSgdModel.Records rows, int[] sample) {
    if (config.projection() == 0) {
      double[] g = new double[model.length()];
      model.addClippedGradients(rows, theta, config.clip(), sample, g);
      return g;
    }
    ProjectedClippedSum s = projectedSum(round);
    s.add(model, rows, theta, config.clip(), sample);
    return s.sum();
  }

  /** Each party's noise std (before the clamp). */
  double partyStd() {
    return partyStd;
  }

  /** The clamp on a party's input coordinates: its largest clipped sum plus the noise clamp. */
  double bound() {
    return bound;
  }

  @Override
  public FixedPointEncoding encoding() {
    return encoding;
  }

  /** The target delta. */
  double delta() {
    return delta;
  }

  /** The delta left to the mechanism once the noise clamp's tail is charged. */
  double mechanismDelta() {
    return mechanismDelta;
  }

  /** Every party's records together (public sizes). */
  long records() {
    return records;
  }

  /** The records the coalition (the T + 1 largest parties, the worst case) holds and so knows of. */
  long recordsKnownToCoalition() {
    return maliciousRecords;
  }

  /** The shares whose variances sum to sigma^2 C^2 (M - T - 1, M, or 1). */
  int shares() {
    return shares;
  }

  /** The coalition the released model's guarantee survives, besides the server. */
  @Override
  public int colluders() {
    return switch (config.split()) {
      case COLLUDERS -> config.colluders() + 1;
      case TRUSTED_HARDWARE -> 0;
      case LOCAL -> sizes.length - 1;
    };
  }

  /** The step's public normaliser: q times the contributors' records (replace-one) or the expected batch. */
  double normaliser(long contributorRecords) {
    Checks.positive("contributor records", contributorRecords);
    if (config.swor() != null) {
      return config.swor().batch();
    }
    return config.neighbours() == NeighbourRelation.REPLACE_ONE && Double.isNaN(config.expectedBatch())
        ? config.samplingRate() * contributorRecords : config.expectedBatch();
  }

  @Override
  public PrivacyCharge charge() {
    return new PrivacyCharge(config.accountant(), roundEvent(sigma), config.rounds(), mechanismDelta, delta,
        config.neighbours().describe(), "record");
  }

  /** The eps of all planned rounds at the target delta (at most the target). */
  double epsilon() {
    return charge().epsilon();
  }

  /** eps when the unknown noise has multiplier {@code s} instead of sigma (more colluders than planned). */
  double epsilonAt(double s) {
    if (s <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    // through PrivacyCharge's memo: every party of a simulation, and the coordinator, ask for the same
    return new PrivacyCharge(config.accountant(), roundEvent(s), config.rounds(), mechanismDelta, delta,
        config.neighbours().describe(), "record").epsilon();
  }

  /**
   * The ledger of the released model ({@link CrossSiloAccounting#ledger}): every step summed at
   * least the plan's minimum of contributors (the summation refuses fewer), so the accounted eps is
   * the plan's, whatever {@code contributors} is.
   */
  @Override
  public PrivacyLedger ledger(int contributors, String summation, boolean revealsInputs) {
    return CrossSiloAccounting.ledger(this, summation, revealsInputs);
  }

  /** The public figures for reports. */
  @Override
  public Map<String, Object> summary() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("accountant", config.accountant());
    m.put("noise_multiplier", sigma);
    m.put("noise_split", config.split().id());
    m.put("tolerated_colluders", config.colluders());
    m.put("noise_shares", shares);
    m.put("sampling", config.swor() == null ? "poisson" : "swor");
    if (config.swor() == null) {
      m.put("sampling_rate", config.samplingRate());
    } else {
      m.put("batch", config.swor().batch());
      m.put("swor_analysis", config.swor().analysis());
      m.put("swor_mixnet", config.swor().idealMixnet() ? "ideal" : "real");
      m.put("records_known_to_coalition", maliciousRecords);
    }
    m.put("clip", config.clip());
    m.put("learning_rate", config.learningRate());
    m.put("model", model.describe());
    m.put("optimizer", model.optimizer().id());
    m.put("neighbours", config.neighbours().id());
    m.put("noise_sampler", dev.helmet.protocols.dpsgd.ContinuousNoise.SAMPLER);
    m.put("ring_bits", encoding.ringBits());
    if (config.projection() > 0) {
      m.put("projection_dimension", config.projection());
      m.put("projection_clip_ratio", clipRatio);
      m.put("projection_clipping", "per record, after projecting");
    }
    return m;
  }

  /** Under SWOR the plan holds its run's batch sampler (the batch of the step last asked for). */
  @Override
  public boolean servesOneRun() {
    return config.swor() != null;
  }

  /** The SWOR batches, set up once (the mixnet runs on first use). */
  private synchronized SworBatches batches() {
    if (!inProcess) {
      throw new IllegalArgumentException("sampling without replacement needs the token mixnet's setup: a "
          + "networked party runs it through the coordinator's board before round 0");
    }
    if (batches == null) {
      CrossSiloConfig.Swor w = config.swor();
      batches = w.idealMixnet() ? SworBatches.ideal(sizes(), w.batch())
          : SworBatches.mixnet(sizes(), w.batch(), Runtime.getRuntime().availableProcessors());
    }
    return batches;
  }

  /**
   * Party {@code party}'s sample for {@code round}: its own Poisson draw, or its records in the SWOR
   * batch (from its own side of the setup when it ran over a board, else from the in-process run).
   */
  private int[] sample(int party, int round, int size, RandomBits sampling, MixnetSetup.Party own) {
    if (config.swor() == null) {
      return DpSgdModel.poissonSample(size, config.samplingRate(), sampling);
    }
    return own != null ? own.records(round) : batches().records(party, round);
  }

  @Override
  public Setup setup(byte[] sessionId) {
    CrossSiloConfig.Swor w = config.swor();
    return w == null || w.idealMixnet() ? null : new MixnetSetup(sizes(), w.batch(), sessionId);
  }

  private double[] unpack(byte[] state) {
    return ModelState.unpack(state, model.length(), CrossSiloAlgorithm.ID);
  }

  /**
   * A summation that reveals group sums is admitted when the noise was sized for groups that
   * small ({@code crosssilo.noise_group}); each revealed sum then holds a full noise share.
   */
  @Override
  public void admit(dev.helmet.secagg.summation.SecureSummation summation, int parties) {
    inProcess = true;
    int g = summation.smallestRevealedSum(parties);
    int sized = config.noiseGroup() > 0 ? config.noiseGroup() : parties;
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
    RandomBits sampling = noise.secretBits(seed);
    GaussianNoise own = noise.gaussian(party);
    FixedPointEncoding enc = encoding;
    return (round, state) -> {
      double[] theta = unpack(state);
      return () -> {
        // Its sample (possibly empty) and its noise share: a party always answers with its noise.
        int[] sample = sample(party, round, rows.size(), sampling, mixnet);
        double[] y = signal(round, theta, rows, sample);
        own.addTo(y, partyStd);
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
    CrossSiloConfig c = config;
    double[] theta = model.start();
    Optimiser.State adam = model.adam(c.learningRate());
    int[] sizes = sizes();
    return new ServerRole() {
      @Override
      public byte[] state(int round) {
        return ModelState.pack(theta);
      }

      @Override
      public void step(int round, double[] sum, int[] contributors) {
        Checks.require(sum.length == length(), "sum of length " + sum.length + ", inputs of " + length());
        long records = 0;
        for (int i : contributors) {
          records += sizes[i];
        }
        GaussianProjection p = projection(round);
        double[] full = p == null ? sum : p.backProject(sum);
        DpSgdModel.descend(adam, theta, full, normaliser(records), c.learningRate());
      }

      @Override
      public Model model() {
        return model.model(theta);
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
      sampling[i] = noise.secretBits(seeds[i]);
    }
    // The sum of W independent N(0, s^2) draws is N(0, W s^2).
    double std = partyStd * Math.sqrt(w);
    GaussianNoise centre = noise.gaussian(w);
    CrossSiloConfig c = config;
    int d = model.length();
    return new Aggregate() {
      @Override
      public String description() {
        return "simulated (the parties' noise drawn as one Gaussian" + (config.projection() > 0
            ? ", every record's gradient projected and clipped to C~ as each party does" : "") + "; no messages)";
      }

      @Override
      public double[] sum(int round, byte[] state, int threads) {
        double[] snapshot = unpack(state);
        double[] y;
        if (config.projection() > 0) {
          // Each record's projection is clipped by itself (the parties' inputs' sum, as in
          // contributor), so the parties' records go through one buffer: P once per batch of records.
          ProjectedClippedSum projected = projectedSum(round);
          for (int i = 0; i < w; i++) {
            projected.add(model, rows[i], snapshot, c.clip(), sample(i, round, rows[i].size(), sampling[i],
                null));
          }
          y = projected.sum();
        } else {
          y = PartySums.sum(threads, w, d, (acc, i) -> model.addClippedGradients(rows[i], snapshot,
              c.clip(), sample(i, round, rows[i].size(), sampling[i], null), acc));
        }
        centre.addTo(y, std);
        return y;
      }
    };
  }

  static String num(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }
}
