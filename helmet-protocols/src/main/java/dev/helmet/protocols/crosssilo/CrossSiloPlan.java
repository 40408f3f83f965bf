package dev.helmet.protocols.crosssilo;

import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Memo;
import dev.helmet.privacy.accounting.Accountants;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.ProjectionSensitivity;
import dev.helmet.privacy.accounting.SworAmplification;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.mechanism.GaussianProjection;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.protocols.algorithm.NoiseClamp;
import dev.helmet.protocols.crosssilo.CrossSiloConfig.NoiseSplit;
import dev.helmet.protocols.dpsgd.DpSgdModel;
import dev.helmet.protocols.privacy.Audience;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a cross-silo run derives from its public settings and the roster: the noise
 * multiplier sigma calibrated for the target (eps, delta), each party's share of the noise, the
 * ring, and the guarantee. The coordinator and every party compute it with this same code, so a
 * party never takes anyone's word for its noise or its privacy charge.
 *
 * <p><b>Privacy.</b> One step releases the sum over the parties of their Poisson-sampled (rate q,
 * each party sampling its own records with its own SecureRandom) gradients clipped to L2 norm C,
 * plus the parties' Gaussian noise shares; a party whose sample is empty still sends its share.
 * For neighbouring data sets (replace one record, or add or remove one) the sum of clipped gradients
 * moves by at most C (replace-one: the pair of means +-1 relative to C, the bounded relation of
 * Koskela et al.'s accountant), so a step is the Poisson-subsampled Gaussian mechanism with noise
 * multiplier sigma when the noise that the adversary does not know has std at least sigma C. Over
 * the rounds the steps compose, accounted with the PLD (FFT) accountant. How much of the noise the
 * adversary does not know depends on the split (paper Sec. 3.2): with {@code colluders}, each of
 * the M contributors (M the fewest a step may have) adds variance sigma^2 C^2 / (M - T - 1): T
 * colluders and the observing party itself (which sees the aggregate and knows its own share)
 * remove T + 1 shares, and the M - T - 1 others still sum to sigma^2 C^2. With {@code
 * trusted-hardware} each adds sigma^2 C^2 / M, which holds only if no share leaves its enclave.
 * With {@code local} each adds the full sigma^2 C^2, so each party's message is DP by itself.
 *
 * <p><b>Sampling without replacement</b> (paper Sec. 3.4): each step's batch is a uniform subset of
 * b of all n records ({@link SworBatches}); the coalition (the T + 1 largest parties, the worst case
 * from the public sizes) knows which of its own tokens are drawn, so given m honest records in the
 * batch each honest record is in it with probability m / n_H, in a batch of fixed size m; the step
 * is accounted as the mixture over the hypergeometric m of Dong, Roth and Su's C_{m/n_H}, the bound
 * of fixed-size sampling ({@link SworAmplification}: exact, the paper's slack form, or the worst
 * case b / n_H), under replace-one neighbours only.
 *
 * <p><b>Projection</b> (Sec. 3.5, Algorithm 3), "project then clip" (design note 1.5, doubt 5):
 * parties send the sum over their sampled records of clip_{C~}(P_t^T clip_C(g_i)), P_t (d x k,
 * entries N(0, 1/k)) public and fresh each step, every record's projected gradient scaled down to
 * C~ = C r(k, delta') by itself ({@link ProjectedClippedSum}). One record therefore moves a step's
 * k-dimensional sum by at most C~ (add or remove; each of the replace-one pair's two vectors is
 * within C~), deterministically and for any P_t and any theta_t, so the step is the subsampled
 * Gaussian mechanism at multiplier sigma relative to C~, with no slack: the accounted event is the
 * same as without projection. Adversary: anyone holding the released model and every round's
 * noisy sum (the server with T colluding parties and the observing party, as above), including a
 * malicious server that picks theta_t after seeing P_t; neighbours replace-one or add-or-remove,
 * as configured. P_t's seed (projection_seed and the step) and theta_t are public and may be known
 * before the data: that is harmless, since no step of the argument uses their independence from
 * the data. What each party checks itself: it derives P_t from the session's public seed, sigma
 * and its noise share from this plan, and clips its own records' projections; nothing the server
 * sends (theta_t only) enters the bound. Theorem 2's chi^2 argument (a record's projection exceeds
 * C~ with probability delta' when P is drawn independently of it) is used only to choose C~: an
 * honest record independent of P is clipped with probability about delta', so the clip rarely
 * changes an honest run. (Before, the noise was sized for C~ with that slack charged to delta, and
 * the public, fixed seed let a crafted record reach 2-4x C~: privacy review turn 3, finding 2.)
 *
 * <p>Gaussian noise is unbounded and the ring is not: each share is clamped ({@link NoiseClamp})
 * and the tail is charged to delta.
 */
final class CrossSiloPlan {
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
    this.shares = honestShares(config, minContributors);
    checkSummation(config, sizes.length, honestFraction);
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
    this.sigma = calibrate(config, (int) Math.min(total, Integer.MAX_VALUE), (int) known, epsilon, mechanismDelta);
    this.partyStd = sigma * config.clip() * clipRatio / Math.sqrt(shares);
    // A party's signal has L2 norm at most n_i C (unprojected), or n_i C~ when projecting: each of its
    // at most n_i records adds a projection clipped to C~. So every coordinate is within that too.
    this.bound = maxLocal * config.clip() * clipRatio + clamp.stds() * partyStd;
    this.encoding = FixedPointEncoding.choose(ringBits, bound, sizes.length);
  }

  /**
   * The accounted event of one step at noise multiplier {@code s} (relative to the clip, or to C~
   * when projecting: each record's projection is clipped to C~, so the event is the same, with no
   * slack): the Poisson-subsampled Gaussian, or under SWOR the amplification of {@link
   * SworAmplification} for n records of which the coalition knows nKnown, each step accounted with
   * the pair a fixed-size batch attains under replace-one (not Poisson's: privacy review turn 3,
   * finding 1).
   */
  static DpEvent roundEvent(CrossSiloConfig c, int n, int nKnown, double s) {
    DpEvent step;
    if (c.swor() == null) {
      step = new PoissonSampledDpEvent(c.samplingRate(), new GaussianDpEvent(s), c.neighbours());
    } else {
      SworAmplification.Analysis a = switch (c.swor().analysis()) {
        case "worst-case" -> new SworAmplification.WorstCase();
        case "slack" -> new SworAmplification.Slack(c.swor().slack());
        default -> new SworAmplification.Exact();
      };
      step = new SworAmplification(n, nKnown, c.swor().batch()).event(s, a);
    }
    return step;
  }

  private DpEvent roundEvent(double s) {
    return roundEvent(config, (int) Math.min(records, Integer.MAX_VALUE), (int) maliciousRecords, s);
  }

  private static double calibrate(CrossSiloConfig c, int n, int nKnown, double epsilon, double mechanismDelta) {
    return CALIBRATIONS.get(new Calibrated(c, c.swor() == null ? 0 : n, c.swor() == null ? 0 : nKnown, epsilon,
        mechanismDelta));
  }

  private record Calibrated(CrossSiloConfig config, int n, int nKnown, double epsilon, double mechanismDelta) {}

  /** Memoised: every simulated party and the coordinator derive the same plan. */
  private static final Memo<Calibrated, Double> CALIBRATIONS = new Memo<>(32,
      k -> Calibration.noiseMultiplier(s -> new SelfComposedDpEvent(roundEvent(k.config(), k.n(), k.nKnown(), s),
          k.config().rounds()), Accountants.named(k.config().accountant()), k.epsilon(), k.mechanismDelta(),
          k.config().accountant().equals("pld") ? 1e-4 : 1e-8));

  /**
   * The number of noise shares that must sum to the full variance: M - T - 1, M or 1.
   *
   * @throws IllegalArgumentException if M - T - 1 < 1, saying what would do
   */
  static int honestShares(CrossSiloConfig c, int minContributors) {
    return switch (c.split()) {
      case COLLUDERS -> {
        // A revealed group sum must be DP by itself: T colluders may all sit in the smallest group.
        int m = c.noiseGroup() > 0 ? Math.min(c.noiseGroup(), minContributors) : minContributors;
        int h = m - c.colluders() - 1;
        if (h < 1) {
          throw new IllegalArgumentException("the noise split colluders needs more contributors than colluders plus "
              + "one: with " + m + (c.noiseGroup() > 0 ? " parties in a revealed group" : " contributors") + " and T = "
              + c.colluders() + " colluders, M - T - 1 = " + h + " honest parties would be left to add the noise "
              + "(lower --colluders, add parties, or choose --noise-split trusted-hardware or local)");
        }
        yield h;
      }
      case TRUSTED_HARDWARE -> c.noiseGroup() > 0 ? Math.min(c.noiseGroup(), minContributors) : minContributors;
      case LOCAL -> 1;
    };
  }

  /**
   * The noise of the {@code colluders} split survives T + 1 parties with the server; the secure
   * summation must too. The runners set the summation up for floor((1 - t) W) colluding parties
   * (t the honest fraction), so that must be at least T + 1, or the summation would show a smaller
   * coalition more than the noise was sized for.
   */
  static void checkSummation(CrossSiloConfig c, int parties, double honestFraction) {
    if (c.split() != NoiseSplit.COLLUDERS) {
      return;
    }
    int tolerated = parties - dev.helmet.protocols.shared.HonestParties.honestContributors(parties, parties,
        honestFraction);
    if (tolerated < c.colluders() + 1) {
      throw new IllegalArgumentException("the secure summation is set up for " + tolerated + " colluding part"
          + (tolerated == 1 ? "y" : "ies") + " of " + parties + " (honest fraction " + honestFraction + "), fewer than "
          + "the T + 1 = " + (c.colluders() + 1) + " the noise is sized for (T colluders and the observing party); "
          + "set --honest-fraction to at most " + num(1 - (double) (c.colluders() + 1) / parties) + " or lower "
          + "--colluders");
    }
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

  int minContributors() {
    return minContributors;
  }

  double sigma() {
    return sigma;
  }

  /** The length of every input: k when projecting, else the model's. */
  int length() {
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

  FixedPointEncoding encoding() {
    return encoding;
  }

  /** The shares whose variances sum to sigma^2 C^2 (M - T - 1, M, or 1). */
  int shares() {
    return shares;
  }

  /** The coalition the released model's guarantee survives, besides the server. */
  int colluders() {
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

  PrivacyCharge charge() {
    return new PrivacyCharge(config.accountant(), roundEvent(sigma), config.rounds(), mechanismDelta, delta,
        config.neighbours().describe(), "record");
  }

  /** The eps of all planned rounds at the target delta (at most the target). */
  double epsilon() {
    return charge().epsilon();
  }

  /** eps when the unknown noise has multiplier {@code s} instead of sigma (more colluders than planned). */
  private double epsilonAt(double s) {
    if (s <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    // through PrivacyCharge's memo: every party of a simulation, and the coordinator, ask for the same
    return new PrivacyCharge(config.accountant(), roundEvent(s), config.rounds(), mechanismDelta, delta,
        config.neighbours().describe(), "record").epsilon();
  }

  /** Whom the released model's guarantee protects against, naming T and the split. */
  String audience(String summation, boolean revealsInputs) {
    String base = Audience.releasedModel(summation, revealsInputs, colluders());
    return switch (config.split()) {
      case COLLUDERS -> base + " (T = " + config.colluders() + " tolerated colluders plus the observing party: each "
          + "of the " + minContributors + " contributors adds 1/" + shares + " of the noise variance)";
      case TRUSTED_HARDWARE -> base + " (assumes every party's noise share stays inside trusted hardware, which "
          + "Helmet does not provide: each party adds 1/" + shares + " of the noise variance, so one curious party "
          + "already removes part of it)";
      case LOCAL -> base + " (each party adds the full noise: every party's message is protected by itself)";
    };
  }

  PrivacyLedger ledger(String summation, boolean revealsInputs) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("model", model.describe());
    details.put("optimizer", model.optimizer().id());
    details.put("noise_split", config.split().id());
    details.put("tolerated_colluders", config.colluders());
    details.put("noise_shares", shares);
    details.put("noise_multiplier", sigma);
    details.put("party_noise_std", partyStd);
    if (config.swor() == null) {
      details.put("sampling", "poisson (each party samples its own records with its own SecureRandom)");
      details.put("sampling_rate", config.samplingRate());
    } else {
      details.put("sampling", "without replacement from the global token list (" + (config.swor().idealMixnet()
          ? "ideal: uniform batches drawn without running the mixnet, for experiments"
          : "onion mixnet of X25519 and AES-GCM layers run by the parties before round 0, joint seed by "
          + "commit-reveal") + ")");
      details.put("batch", config.swor().batch());
      details.put("swor_analysis", config.swor().analysis());
      details.put("records_known_to_coalition", maliciousRecords);
      details.put("swor_worst_case_fraction", new SworAmplification((int) records, (int) maliciousRecords,
          config.swor().batch()).worstCaseFraction());
    }
    details.put("rounds", config.rounds());
    details.put("gradient_clip", config.clip());
    details.put("learning_rate", config.learningRate());
    details.put("parties", sizes.length);
    details.put("min_contributors", minContributors);
    details.put("noise_sampler", dev.helmet.protocols.dpsgd.ContinuousNoise.SAMPLER);
    details.put("step_normaliser", Double.isNaN(config.expectedBatch())
        ? "q x records of the round's contributors (public under replace-one)"
        : "expected batch size " + config.expectedBatch());
    details.put("delta_clamp_tail", delta - mechanismDelta);
    details.put("summation", summation);
    details.put("summation_reveals_inputs", revealsInputs);
    details.put("ring_bits", encoding.ringBits());
    details.put("fractional_bits", encoding.fractionalBits());
    if (config.projection() > 0) {
      details.put("projection_dimension", config.projection());
      details.put("projection_clip_ratio", clipRatio);
      details.put("projection_clip", projectedClip());
      details.put("projection_clip_tail", config.projectionSlack());
      details.put("projection_clipping", "project then clip: each record's projected gradient is clipped to C~ = C "
          + "r(k, delta') (delta' = projection_clip_tail, the chance an honest record independent of P exceeds it; "
          + "not charged), so one record moves a step's sum by at most C~ for any P and any model");
      details.put("projection_seed", "public (from projection_seed and the step), fixed before the data: harmless, "
          + "the bound above does not use P's independence from the data or the model (a malicious server "
          + "choosing the model after seeing P is covered)");
    }
    details.putAll(degradation());
    double eps = epsilon();
    String relation = config.neighbours().describe();
    List<Guarantee> guarantees = new ArrayList<>();
    guarantees.add(new Guarantee(audience(summation, revealsInputs) + "; covers every round's model", relation,
        "record", eps, delta));
    if (config.split() == NoiseSplit.LOCAL) {
      guarantees.add(new Guarantee("anyone who sees one party's messages (the server even in the clear, or every "
          + "other party colluding): that party's records", relation, "record", eps, delta));
    }
    return new PrivacyLedger("cross-silo DP-SGD (Heikkila et al. 2020): distributed Gaussian noise, one summation "
        + "per step", relation, "record", new SelfComposedDpEvent(roundEvent(sigma), config.rounds()).describe(), config.accountant(), eps, delta,
        details, guarantees);
  }

  /**
   * How the guarantee degrades when more parties collude than planned (paper Sec. 3.2): with T' > T
   * colluders the unknown noise multiplier falls to sigma sqrt((M - T' - 1) / (M - T - 1)); with k
   * enclaves of the trusted-hardware split compromised, to sigma sqrt((M - k) / M).
   */
  private Map<String, Object> degradation() {
    Map<String, Object> m = new LinkedHashMap<>();
    if (config.split() == NoiseSplit.LOCAL) {
      return m;
    }
    Map<String, Object> eps = new LinkedHashMap<>();
    for (int extra = 1; extra <= 2; extra++) {
      int left = config.split() == NoiseSplit.COLLUDERS ? shares - extra : minContributors - extra;
      if (left < 1) {
        break;
      }
      double s = sigma * Math.sqrt((double) left / shares);
      String key = config.split() == NoiseSplit.COLLUDERS ? "T=" + (config.colluders() + extra)
          : "compromised=" + extra;
      eps.put(key, epsilonAt(s));
    }
    m.put(config.split() == NoiseSplit.COLLUDERS ? "epsilon_if_more_collude" : "epsilon_if_enclaves_compromised",
        eps);
    return m;
  }

  /** The public figures for reports. */
  Map<String, Object> summary() {
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

  static String num(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }
}
