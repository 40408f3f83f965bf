package dev.helmet.protocols.blind;

import dev.helmet.protocols.shared.HonestParties;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.protocols.algorithm.ServerRole;
import dev.helmet.protocols.privacy.Audience;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Distributed DP-Helmet's blind averaging (Helmet Alg. 3; SPEC 1.3) as the public plan of one run:
 * every party trains locally (phase I, {@link BlindAveragingSpec#prepare}), adds calibrated Gaussian noise
 * once, and one summation averages the noised models (phase II, {@link #contributor} and {@link
 * #server}). Nothing else is communicated.
 *
 * <p>The plan is built from public information only (the learner, the preprocessing, every party's
 * local size and the privacy target): a networked party and the coordinator each build the same
 * plan and so agree on the noise, the encoding and the accounting without trusting one another's
 * arithmetic. A plan never samples noise itself.
 *
 * <p>The noised model is scaled by {@code n_i / w}, clamped per coordinate to a public bound
 * (almost never active: the bound is at least 10 noise standard deviations above the largest
 * possible value, and the chance that it fires is charged to delta), encoded into the ring and
 * summed. The released model is the decoded sum divided by the mean local size, i.e. the
 * size-weighted average of the noised local models. It is not re-projected per party (SPEC 1.3:
 * that would break the argument).
 */
final class BlindAveragingPlan implements PublicPlan {
  /**
   * Least noise tail width, in standard deviations, of the per-coordinate clamp. A clamp that fires
   * makes the mechanism differ from the unclamped one, so the union bound over all clamped values is
   * charged to delta (see {@link ClampTail}); at 10 standard deviations a Gaussian tail is below
   * 1.6e-23.
   */
  static final double TAIL_STDS = 10;

  private final Learner learner;
  private final Preprocessing preprocessing;
  private final int[] sizes;
  private final BlindAveragingPrivacy privacy;
  private final int minContributors;
  private final int plannedHonest;
  private final NoiseKind kind;
  private final NoisePlan noise;

  /**
   * The plan for parties of the given sizes.
   *
   * @param learner the local learner (with its bounds) every party trains
   * @param sizes every party's number of records, in roster order (public)
   * @param ringBits the summation ring: 32 or 64, or 0 to choose (32 bits when they leave at least 20
   *     fractional bits, else 64)
   * @param secureNoise whether the parties draw their noise from {@link NoiseFactory#secure()} (for
   *     the ledger's description)
   * @throws IllegalArgumentException if no honest party's noise is guaranteed, or the target cannot be met
   */
  BlindAveragingPlan(Learner learner, Preprocessing preprocessing, int[] sizes, BlindAveragingPrivacy privacy, NoiseKind kind,
      int ringBits, boolean secureNoise) {
    this.learner = Checks.notNull("learner", learner);
    this.preprocessing = Checks.notNull("preprocessing", preprocessing);
    this.privacy = Checks.notNull("privacy", privacy);
    this.kind = Checks.notNull("noise kind", kind);
    this.sizes = sizes.clone();
    int w = sizes.length;
    Checks.positive("parties", w);
    for (int i = 0; i < w; i++) {
      if (sizes[i] <= 0) {
        throw new IllegalArgumentException("party " + i + " has local size " + sizes[i] + "; every party needs data");
      }
    }
    this.minContributors = privacy.minContributors(w);
    Checks.inRange("min contributors", minContributors, 1, w);
    double t = privacy.honestFraction();
    this.plannedHonest = HonestParties.noiseHonest(minContributors, privacy.colluderBase(w), t);
    if (plannedHonest <= 0) {
      throw new IllegalArgumentException(String.format(
          "with %d of %d parties contributing and honest fraction %s, no honest party's noise is "
              + "guaranteed; raise the honest fraction or the minimum number of contributors", minContributors, w, t));
    }
    double scaled = BlindAveragingAccounting.scaledSensitivity(learner, privacy.protection(), sizes);
    this.noise = kind == NoiseKind.GAUSSIAN
        ? new GaussianPlan(learner, this.sizes, privacy, scaled, plannedHonest, secureNoise, ringBits)
        : new DiscreteGaussianPlan(learner, this.sizes, privacy, scaled, plannedHonest, secureNoise, ringBits);
  }

  /** One summation: blind averaging releases once. */
  @Override
  public int rounds() {
    return 1;
  }

  /** The model's size: every party's input is its whole model. */
  @Override
  public int length() {
    return learner.outputRows() * learner.inputDimension();
  }

  /** The ring encoding every party uses. */
  @Override
  public FixedPointEncoding encoding() {
    return noise.encoding();
  }

  /** The fewest contributors the noise is calibrated for. */
  @Override
  public int minContributors() {
    return minContributors;
  }

  /** The noise multiplier on the released sum (noise std / L2 sensitivity). */
  @Override
  public double noiseMultiplier() {
    return noise.noiseMultiplier();
  }

  /**
   * What the release costs every party's data, from this public plan alone: the one release at
   * the planned honest contributors (more contributors only add noise, so this bounds the
   * achieved guarantee). A party charges its own ledger with this, never with a number it is
   * sent.
   */
  @Override
  public PrivacyCharge charge() {
    return new PrivacyCharge(noise.accountantId(), noise.achievedEvent(plannedHonest), 1,
        privacy.delta() - noise.deltaTail(), privacy.delta(), BlindAveragingAccounting.neighbours(privacy.protection()),
        privacy.protection().describe());
  }

  /** The most parties that may collude with the server: floor((1 - t) w). */
  @Override
  public int colluders() {
    int base = privacy.colluderBase(sizes.length);
    return base - HonestParties.honestContributors(base, base, privacy.honestFraction());
  }

  /**
   * Party {@code party}'s summation input: its model noised once, scaled by n_i / w, clamped and
   * encoded. Only the party itself computes this, with its own noise.
   */
  long[] input(int party, LinearModel model, NoiseFactory noiseSource) {
    Checks.inRange("party", party, 0, sizes.length - 1);
    if (model.weights().length != length()) {
      throw new IllegalArgumentException("party " + party + "'s model has " + model.weights().length
          + " weights; the plan expects " + length());
    }
    return noise.input(party, model.weights(), noiseSource);
  }

  /**
   * The released model from the decoded sum: {@code sum = (1/w) sum_i n_i f_priv,i} over the
   * contributors, divided by their mean size (total / w), is the size-weighted mean model.
   */
  LinearModel model(double[] decodedSum, int[] contributors) {
    int w = sizes.length;
    long totalSize = 0;
    for (int i : contributors) {
      totalSize += sizes[i];
    }
    double meanSize = (double) totalSize / w;
    double[] sum = decodedSum.clone();
    for (int j = 0; j < sum.length; j++) {
      sum[j] /= meanSize;
    }
    return new LinearModel(learner.outputRows(), learner.inputDimension(), sum);
  }

  /** The sensitivity of the sum of the scaled contributions. */
  double scaledSensitivity() {
    return BlindAveragingAccounting.scaledSensitivity(learner, privacy.protection(), sizes);
  }

  /** The largest per-party sensitivity of one release, before the n_i / w scaling. */
  double perPartySensitivity() {
    double s = 0;
    for (int n : sizes) {
      s = Math.max(s, BlindAveragingAccounting.scaledSensitivity(learner, privacy.protection(), new int[] {n}) / n);
    }
    return s;
  }

  /**
   * The ledger of a release that summed {@code contributors} parties: the guarantee achieved with
   * the honest parties among them, from this public plan alone.
   */
  @Override
  public PrivacyLedger ledger(int contributors, String summationName, boolean summationRevealsInputs) {
    int w = sizes.length;
    int m = minContributors;
    FixedPointEncoding encoding = noise.encoding();
    double t = privacy.honestFraction();
    double actualHonest = HonestParties.noiseHonest(contributors, privacy.colluderBase(w), t);
    DpEvent achieved = noise.achievedEvent(actualHonest);
    double achievedEps = achieved == null
        ? Double.POSITIVE_INFINITY
        : noise.accountant().compose(achieved).epsilon(privacy.delta() - noise.deltaTail());
    double perPartySensitivity = perPartySensitivity();
    int minSize = Integer.MAX_VALUE;
    int maxSize = 0;
    for (int n : sizes) {
      minSize = Math.min(minSize, n);
      maxSize = Math.max(maxSize, n);
    }
    double scaled = BlindAveragingAccounting.scaledSensitivity(learner, privacy.protection(), sizes);
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("target_epsilon", privacy.epsilon());
    details.put("noise_multiplier", noise.noiseMultiplier());
    details.put("releases", learner.releases());
    details.put("sensitivity", perPartySensitivity);
    details.put("scaled_sensitivity", scaled);
    noise.describe(details);
    details.put("lipschitz", learner.lipschitz());
    details.put("sensitivity_bound", learner.config().sensitivity().name().toLowerCase(java.util.Locale.ROOT));
    details.put("gradient_bound", learner.gradientBound());
    details.put("smoothness", learner.smoothness());
    details.put("lambda", learner.config().lambda());
    details.put("radius", learner.config().radius());
    details.put("input_norm_bound", preprocessing.inputNormBound());
    details.put("honest_fraction", t);
    details.put("parties", w);
    details.put("contributors", contributors);
    details.put("min_contributors", m);
    details.put("min_local_size", minSize);
    details.put("max_local_size", maxSize);
    details.put("local_sizes_public", true);
    details.put("delta_clamp_tail", noise.deltaTail());
    details.put("summation", summationName);
    details.put("summation_reveals_inputs", summationRevealsInputs);
    details.put("ring_bits", encoding.ringBits());
    details.put("fractional_bits", encoding.fractionalBits());
    String relation = BlindAveragingAccounting.neighbours(privacy.protection());
    String unit = privacy.protection().describe();
    List<Guarantee> guarantees = new ArrayList<>();
    guarantees.add(new Guarantee(Audience.releasedModel(summationName, summationRevealsInputs, colluders()),
        relation, unit, achievedEps, privacy.delta()));
    if (summationRevealsInputs) {
      // In the clear the server sees each party's noised model: one party's own noise, the event
      // of a single honest contributor, protects that party's records.
      double perParty = noise.accountant().compose(noise.achievedEvent(1)).epsilon(privacy.delta() - noise.deltaTail());
      guarantees.add(new Guarantee(Audience.serverInTheClear(), relation, unit, perParty, privacy.delta()));
      details.put("epsilon_against_server_per_party", perParty);
    }
    PrivacyLedger ledger = new PrivacyLedger(
        "helmet-blind-averaging (output perturbation, one summation)",
        relation,
        unit,
        achieved == null ? "no honest noise guaranteed" : achieved.describe(),
        noise.accountantName(),
        achievedEps,
        privacy.delta(),
        details,
        guarantees);
    return ledger;
  }

  /** The public figures for reports: the noise, its multiplier, the sensitivities, the releases and the ring. */
  @Override
  public Map<String, Object> summary() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("noise", kind.id());
    m.put("noise_multiplier", noiseMultiplier());
    m.put("sensitivity", perPartySensitivity());
    m.put("scaled_sensitivity", scaledSensitivity());
    m.put("releases", learner.releases());
    m.put("ring_bits", encoding().ringBits());
    return m;
  }

  /** Party {@code party}'s one input: its trained model ({@link BlindAveragingSpec#prepare}) noised once. */
  @Override
  public Contributor contributor(int party, Local local, NoiseFactory noiseSource, long seed) {
    if (!(local instanceof BlindAveragingSpec.Trained t)) {
      throw new IllegalArgumentException("party " + party + "'s local state is not a trained helmet model");
    }
    return (round, state) -> {
      Checks.require(round == 0, "blind averaging has one round; round " + round + " was opened");
      Checks.require(state.length == 0, "blind averaging's round carries no state; " + state.length + " bytes came");
      return () -> input(party, t.model(), noiseSource);
    };
  }

  /** The server: one step, the decoded sum over the contributors' mean size ({@link #model}). */
  @Override
  public ServerRole server() {
    return new ServerRole() {
      private LinearModel model;

      @Override
      public byte[] state(int round) {
        Checks.require(round == 0, "blind averaging has one round");
        return new byte[0];
      }

      @Override
      public void step(int round, double[] sum, int[] contributors) {
        Checks.require(round == 0 && model == null, "blind averaging steps once");
        model = BlindAveragingPlan.this.model(sum, contributors);
      }

      @Override
      public LinearModel model() {
        Checks.require(model != null, "no round has been summed");
        return model;
      }
    };
  }

  static int maxOf(int[] sizes) {
    int m = 0;
    for (int s : sizes) {
      m = Math.max(m, s);
    }
    return m;
  }

  static void requireTailFits(double deltaTail, double delta, int w) {
    if (deltaTail >= delta / 2) {
      throw new IllegalArgumentException("delta " + delta + " is too small for " + w
          + " parties (the clamp tail alone needs " + deltaTail + ")");
    }
  }

  /**
   * Picks the ring: 32 bits if they leave at least 20 fractional bits (or all the bits the cap
   * allows), else 64.
   */
  static FixedPointEncoding chooseEncoding(int ringBits, double bound, int parties, int maxFractionalBits) {
    if (ringBits != 0) {
      return FixedPointEncoding.forBound(ringBits, bound, parties, maxFractionalBits);
    }
    try {
      FixedPointEncoding e32 = FixedPointEncoding.forBound(32, bound, parties, maxFractionalBits);
      if (e32.fractionalBits() >= Math.min(20, maxFractionalBits)) {
        return e32;
      }
    } catch (IllegalArgumentException e) {
      // fall through to 64 bits
    }
    return FixedPointEncoding.forBound(64, bound, parties, maxFractionalBits);
  }
}
