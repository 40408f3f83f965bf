package dev.helmet.protocols.crosssilo;

import dev.helmet.core.util.Memo;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.protocols.dpsgd.DpSgdModel;
import dev.helmet.protocols.privacy.Audience;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import dev.helmet.privacy.accounting.Accountants;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.SworAmplification;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.protocols.algorithm.NoiseClamp;
import dev.helmet.protocols.crosssilo.CrossSiloConfig.NoiseSplit;

/**
 * How cross-silo's steps are accounted, and why: the event of one step (Poisson or without
 * replacement), the noise multiplier calibrated for the target over all steps, the number of noise
 * shares a split needs, the check that the secure summation tolerates the coalition the noise is
 * sized for, and the released model's ledger (whom it protects against, and how the guarantee
 * degrades when more parties collude than planned). {@link CrossSiloPlan} derives its numbers from
 * these.
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
final class CrossSiloAccounting {
  private CrossSiloAccounting() {}

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

  static double calibrate(CrossSiloConfig c, int n, int nKnown, double epsilon, double mechanismDelta) {
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
          + "set --honest-fraction to at most " + CrossSiloPlan.num(1 - (double) (c.colluders() + 1) / parties) + " or lower "
          + "--colluders");
    }
  }

  /** Whom the released model's guarantee protects against, naming T and the split. */
  static String audience(CrossSiloPlan p, String summation, boolean revealsInputs) {
    CrossSiloConfig config = p.config();
    int minContributors = p.minContributors();
    int shares = p.shares();
    String base = Audience.releasedModel(summation, revealsInputs, p.colluders());
    return switch (config.split()) {
      case COLLUDERS -> base + " (T = " + config.colluders() + " tolerated colluders plus the observing party: each "
          + "of the " + minContributors + " contributors adds 1/" + shares + " of the noise variance)";
      case TRUSTED_HARDWARE -> base + " (assumes every party's noise share stays inside trusted hardware, which "
          + "Helmet does not provide: each party adds 1/" + shares + " of the noise variance, so one curious party "
          + "already removes part of it)";
      case LOCAL -> base + " (each party adds the full noise: every party's message is protected by itself)";
    };
  }

  /** The ledger of the released model of plan {@code p}, for {@link CrossSiloPlan#ledger}. */
  static PrivacyLedger ledger(CrossSiloPlan p, String summation, boolean revealsInputs) {
    CrossSiloConfig config = p.config();
    DpSgdModel model = p.model();
    FixedPointEncoding encoding = p.encoding();
    double delta = p.delta();
    long maliciousRecords = p.recordsKnownToCoalition();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("model", model.describe());
    details.put("optimizer", model.optimizer().id());
    details.put("noise_split", config.split().id());
    details.put("tolerated_colluders", config.colluders());
    details.put("noise_shares", p.shares());
    details.put("noise_multiplier", p.sigma());
    details.put("party_noise_std", p.partyStd());
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
      details.put("swor_worst_case_fraction", new SworAmplification((int) p.records(), (int) maliciousRecords,
          config.swor().batch()).worstCaseFraction());
    }
    details.put("rounds", config.rounds());
    details.put("gradient_clip", config.clip());
    details.put("learning_rate", config.learningRate());
    details.put("parties", p.sizes().length);
    details.put("min_contributors", p.minContributors());
    details.put("noise_sampler", dev.helmet.protocols.dpsgd.ContinuousNoise.SAMPLER);
    details.put("step_normaliser", Double.isNaN(config.expectedBatch())
        ? "q x records of the round's contributors (public under replace-one)"
        : "expected batch size " + config.expectedBatch());
    details.put("delta_clamp_tail", delta - p.mechanismDelta());
    details.put("summation", summation);
    details.put("summation_reveals_inputs", revealsInputs);
    details.put("ring_bits", encoding.ringBits());
    details.put("fractional_bits", encoding.fractionalBits());
    if (config.projection() > 0) {
      details.put("projection_dimension", config.projection());
      details.put("projection_clip_ratio", p.clipRatio());
      details.put("projection_clip", p.projectedClip());
      details.put("projection_clip_tail", config.projectionSlack());
      details.put("projection_clipping", "project then clip: each record's projected gradient is clipped to C~ = C "
          + "r(k, delta') (delta' = projection_clip_tail, the chance an honest record independent of P exceeds it; "
          + "not charged), so one record moves a step's sum by at most C~ for any P and any model");
      details.put("projection_seed", "public (from projection_seed and the step), fixed before the data: harmless, "
          + "the bound above does not use P's independence from the data or the model (a malicious server "
          + "choosing the model after seeing P is covered)");
    }
    details.putAll(degradation(p));
    double eps = p.epsilon();
    String relation = config.neighbours().describe();
    List<Guarantee> guarantees = new ArrayList<>();
    guarantees.add(new Guarantee(audience(p, summation, revealsInputs) + "; covers every round's model", relation,
        "record", eps, delta));
    if (config.split() == NoiseSplit.LOCAL) {
      guarantees.add(new Guarantee("anyone who sees one party's messages (the server even in the clear, or every "
          + "other party colluding): that party's records", relation, "record", eps, delta));
    }
    return new PrivacyLedger("cross-silo DP-SGD (Heikkila et al. 2020): distributed Gaussian noise, one summation "
        + "per step", relation, "record", new SelfComposedDpEvent(p.roundEvent(p.sigma()), config.rounds()).describe(),
        config.accountant(), eps, delta, details, guarantees);
  }

  /**
   * How the guarantee degrades when more parties collude than planned (paper Sec. 3.2): with T' > T
   * colluders the unknown noise multiplier falls to sigma sqrt((M - T' - 1) / (M - T - 1)); with k
   * enclaves of the trusted-hardware split compromised, to sigma sqrt((M - k) / M).
   */
  private static Map<String, Object> degradation(CrossSiloPlan p) {
    CrossSiloConfig config = p.config();
    int shares = p.shares();
    Map<String, Object> m = new LinkedHashMap<>();
    if (config.split() == NoiseSplit.LOCAL) {
      return m;
    }
    Map<String, Object> eps = new LinkedHashMap<>();
    for (int extra = 1; extra <= 2; extra++) {
      int left = config.split() == NoiseSplit.COLLUDERS ? shares - extra : p.minContributors() - extra;
      if (left < 1) {
        break;
      }
      double s = p.sigma() * Math.sqrt((double) left / shares);
      String key = config.split() == NoiseSplit.COLLUDERS ? "T=" + (config.colluders() + extra)
          : "compromised=" + extra;
      eps.put(key, p.epsilonAt(s));
    }
    m.put(config.split() == NoiseSplit.COLLUDERS ? "epsilon_if_more_collude" : "epsilon_if_enclaves_compromised",
        eps);
    return m;
  }
}
