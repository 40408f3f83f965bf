package dev.helmet.protocols.dpfl;

import dev.helmet.protocols.dpsgd.DpSgdModel;
import dev.helmet.protocols.shared.HonestParties;
import dev.helmet.core.nn.Optimiser;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Memo;
import dev.helmet.privacy.accounting.Accountants;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.PrivacyAccountant;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.protocols.algorithm.NoiseClamp;
import dev.helmet.protocols.privacy.Audience;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * Differentially private federated learning (federated DP-SGD, SPEC 4) of the softmax single-layer
 * perceptron, the baseline both Helmet papers compare against, or of a multi-layer perceptron
 * ({@link DpSgdModel}). Each round every party Poisson-samples its own records with probability q,
 * sums their gradients clipped to L2 norm C, adds its share of the Gaussian noise, and one secure
 * summation adds the parties' vectors; the server divides by the expected batch size (q times the
 * total number of records, public) and takes an SGD (or Adam) step.
 *
 * <p>Privacy: adding or removing one record changes the summed clipped gradient by at most C in
 * L2, so each round is the Poisson-subsampled Gaussian with noise multiplier sigma (noise std sigma C
 * on the sum), composed over the rounds and accounted by RDP or PLD. The noise is split across
 * parties: {@link NoiseSplit#HONEST} (default) so that the honest parties' noise alone has std
 * sigma C (each party adds variance (sigma C)^2 / h, h the guaranteed honest contributors, as in
 * Helmet and the cross-silo paper); {@link NoiseSplit#ALL_TRUSTED}, variance (sigma C)^2 / W per
 * party, which holds only if every party adds its noise; {@link NoiseSplit#SQRT_W_PENALTY}, the
 * Helmet papers' baseline, the full (sigma C)^2 per party.
 */
public final class DpFl {
  private DpFl() {}

  /** How the noise is split across parties. */
  public enum NoiseSplit {
    /** Honest parties alone provide the full noise: variance (sigma C)^2 / h each. */
    HONEST("honest"),
    /** Every party is trusted: variance (sigma C)^2 / W each (as central DP-SGD; no penalty). */
    ALL_TRUSTED("all-trusted"),
    /**
     * The Helmet papers' baseline: every party adds the full (sigma C)^2, so the sum carries sqrt(W)
     * times the central noise (the papers credit DP-FL with "only a sqrt(W) noise penalty").
     */
    SQRT_W_PENALTY("sqrt-w-penalty");

    private final String id;

    NoiseSplit(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }

    public static NoiseSplit parse(String s) {
      for (NoiseSplit n : values()) {
        if (n.id.equalsIgnoreCase(s)) {
          return n;
        }
      }
      throw new IllegalArgumentException("noise split must be honest, all-trusted or sqrt-w-penalty. Provided value: "
          + s);
    }
  }

  /**
   * A DP-FL run.
   *
   * @param samplingRate q: each record joins a round's batch with this probability
   * @param clip C: per-example gradient L2 bound
   * @param rounds T: SGD steps (one secure summation each)
   * @param learningRate the server's step size
   * @param epsilon target eps over all rounds
   * @param delta target delta
   * @param honestFraction t: the fraction of parties trusted to add their noise
   * @param split how the noise is split
   * @param accountant "rdp" or "pld"
   * @param ringBits summation ring (0: choose)
   * @param neighbours the neighbouring relation the guarantee is stated for: replace-one (as
   *     Helmet's, so the two compare; needs the PLD accountant) or add-or-remove (needs a public
   *     {@code expectedBatch})
   * @param expectedBatch the step's normaliser, a public number: the sum of the round's clipped
   *     gradients is divided by it. NaN under replace-one: q times the contributors' records, which
   *     are public there (neighbours keep every party's size). Under add-or-remove the number of
   *     records is itself private, so a normaliser computed from it would leak; it must be given.
   */
  public record Config(
      double samplingRate,
      double clip,
      int rounds,
      double learningRate,
      double epsilon,
      double delta,
      double honestFraction,
      NoiseSplit split,
      String accountant,
      int ringBits,
      NeighbourRelation neighbours,
      double expectedBatch) {
    public Config {
      Checks.require(samplingRate > 0 && samplingRate <= 1, "sampling rate must be in (0, 1]. Provided value: "
          + samplingRate);
      Checks.positive("clip", clip);
      Checks.positive("rounds", rounds);
      Checks.positive("learning rate", learningRate);
      Checks.positive("epsilon", epsilon);
      Checks.openUnit("delta", delta);
      Checks.halfOpenUnit("honest fraction", honestFraction);
      Checks.notNull("noise split", split);
      Checks.require(accountant.equals("rdp") || accountant.equals("pld"),
          "accountant must be rdp or pld. Provided value: " + accountant);
      Checks.notNull("neighbours", neighbours);
      Checks.require(neighbours == NeighbourRelation.ADD_OR_REMOVE_ONE || accountant.equals("pld"),
          "replace-one neighbours need the pld accountant (the RDP of the Poisson-subsampled Gaussian is known for "
              + "add-or-remove neighbours only)");
      if (neighbours == NeighbourRelation.ADD_OR_REMOVE_ONE) {
        Checks.require(expectedBatch > 0 && Double.isFinite(expectedBatch), "under add-or-remove neighbours the "
            + "number of records is private, so the step's normaliser must be a public expected batch size > 0. "
            + "Provided value: " + expectedBatch);
      } else {
        Checks.require(Double.isNaN(expectedBatch) || expectedBatch > 0 && Double.isFinite(expectedBatch),
            "expected batch size must be positive. Provided value: " + expectedBatch);
      }
    }

    /** Replace-one neighbours (Helmet's relation), the PLD accountant, q times the records as normaliser. */
    public static Config replaceOne(double samplingRate, double clip, int rounds, double learningRate, double epsilon,
        double delta, double honestFraction, NoiseSplit split, int ringBits) {
      return new Config(samplingRate, clip, rounds, learningRate, epsilon, delta, honestFraction, split, "pld",
          ringBits, NeighbourRelation.REPLACE_ONE, Double.NaN);
    }

    /** The accounted event of one round with noise multiplier sigma. */
    public DpEvent roundEvent(double sigma) {
      return new PoissonSampledDpEvent(samplingRate, new GaussianDpEvent(sigma), neighbours);
    }

    /** The accounted event for noise multiplier sigma over all rounds. */
    public DpEvent event(double sigma) {
      return new SelfComposedDpEvent(roundEvent(sigma), rounds);
    }

    Supplier<PrivacyAccountant> accountants() {
      return Accountants.named(accountant);
    }

    /**
     * The smallest noise multiplier meeting (epsilon, mechanismDelta) over all rounds (never
     * overshooting). Memoised: every simulated party and the coordinator derive the same plan.
     */
    public double noiseMultiplier(double mechanismDelta) {
      return CALIBRATIONS.get(new Calibrated(this, mechanismDelta));
    }
  }

  private record Calibrated(Config config, double mechanismDelta) {}

  private static final Memo<Calibrated, Double> CALIBRATIONS = new Memo<>(64,
      k -> Calibration.noiseMultiplier(k.config()::event, k.config().accountants(), k.config().epsilon(),
          k.mechanismDelta(), k.config().accountant().equals("pld") ? 1e-4 : 1e-8));

  /**
   * The public half of a DP-FL run: everything derived from the configuration, the parties' sizes
   * (public, as in Helmet) and the fewest contributors a round may sum. The in-process simulation
   * and the networked coordinator and participants all derive it with this same code, so a
   * participant computes its own noise and refuses to run more rounds than were accounted.
   */
  public static final class Plan {
    private final Config config;
    private final int parties;
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

    private Plan(Config c, DpSgdModel model, int[] sizes, int minContributors, int publishedParties) {
      Checks.require(sizes.length >= 1, "DP-FL needs at least one party");
      Checks.require(minContributors >= 1 && minContributors <= sizes.length,
          "min contributors must be in [1, " + sizes.length + "]. Provided value: " + minContributors);
      this.config = c;
      this.parties = sizes.length;
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
    public static Plan of(Config c, int[] sizes, int minContributors, int classes, int cols) {
      return of(c, DpSgdModel.softmax(classes, cols, DpSgdModel.Optimizer.SGD), sizes, minContributors);
    }

    /**
     * The plan of {@code model} for parties of the given sizes.
     *
     * @param minContributors the fewest parties a round's sum may have (W in-process)
     */
    public static Plan of(Config c, DpSgdModel model, int[] sizes, int minContributors) {
      return of(c, model, sizes, minContributors, 0);
    }

    /**
     * As above, with the honest fraction a fraction of {@code publishedParties} (0: of the roster):
     * a networked session counts its colluders against the parties it published (T3-3).
     */
    public static Plan of(Config c, DpSgdModel model, int[] sizes, int minContributors, int publishedParties) {
      return new Plan(c, model, sizes.clone(), minContributors, publishedParties);
    }

    public Config config() {
      return config;
    }

    /** The noise multiplier sigma (noise std sigma C on each round's sum of clipped gradients). */
    public double noiseMultiplier() {
      return sigma;
    }

    /** Each party's noise std (before the clamp). */
    public double partyStd() {
      return partyStd;
    }

    /** The summation ring's encoding. */
    public FixedPointEncoding encoding() {
      return encoding;
    }

    /** The model's length: classes x columns for the softmax model, the MLP's parameter count. */
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
    public PrivacyCharge charge() {
      return new PrivacyCharge(config.accountant(), config.roundEvent(sigma), config.rounds(), mechanismDelta,
          config.delta(), config.neighbours().describe(), "record");
    }


    /**
     * The privacy ledger of the released model: every round summed at least the plan's minimum of
     * contributors (the summation refuses fewer), so the accounted eps is the plan's.
     */
    public dev.helmet.privacy.ledger.PrivacyLedger ledger(String summationName, boolean summationRevealsInputs) {
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
      return new dev.helmet.privacy.ledger.PrivacyLedger("dp-fl (federated DP-SGD, one summation per round)",
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
  }
}
