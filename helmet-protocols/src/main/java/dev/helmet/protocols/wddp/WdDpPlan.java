package dev.helmet.protocols.wddp;

import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.learn.NoisyDescent;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.Accountants;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.noise.GaussianNoise;
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
 * WD-DP's public plan for a roster: every number follows from the settings and the parties'
 * sizes, so each party derives its own noise and privacy charge itself.
 *
 * <p>Privacy (replace-one neighbours, per record; party sizes are public, as in every Helmet
 * roster). Party j's T steps are T adaptive Gaussian mechanisms on its mean gradient, of
 * sensitivity {@code 2G / n_j} ({@link NoisyDescent}); with noise std {@code sigma_j = mu
 * 2G / n_j} each has noise multiplier mu, and mu is calibrated so that T of them compose to (eps1,
 * delta1). A record lives in one party, so the T steps of its party are all it enters: its party's
 * model theta_j is (eps1, delta1)-DP for it, and everything else (the clamp, the weight, the sum
 * with the other parties' models, the division by the weights' sum) is post-processing or
 * independent of it. Hence the same guarantee holds against a server that sees each theta_j (the
 * paper's trusted server: a summation in the clear) and, through secure aggregation, against the
 * server colluding with all other parties. Secure aggregation hides the individual models but
 * does not let a party add less noise: the other parties' models are not Gaussian noise around a
 * known value (their noise passes through a nonlinear training), so no amplification is claimed.
 *
 * <p>The weights n_j/n are public (sizes are), so they need no noise for record privacy. The
 * paper's weight noise {@code z_w ~ N(0, sigma_w^2)} (for hiding sizes under add-or-remove
 * neighbours) is available for comparison with {@code weight_noise_fraction f > 0}: it takes eps2 =
 * f eps and delta2 = f delta of the target, its sigma_w is calibrated as one Gaussian mechanism of
 * sensitivity 1/n, and it is not charged (it protects no record here).
 */
final class WdDpPlan implements PublicPlan {
  /** Each coordinate of a party's model is clamped at this many noise standard deviations beyond its drift bound. */
  private static final double CLAMP_STDS = 12;

  private final WdDpSpec spec;
  private final WdDpConfig config;
  private final NoisyDescent gd;
  private final int[] sizes;
  private final int minContributors;
  private final long records;
  private final double eps1;
  private final double delta1;
  private final double mu;
  private final double sigmaWeight;
  private final double modelBound;
  private final double weightBound;
  private final double[] start;
  private final FixedPointEncoding encoding;

  private final boolean secureNoise;

  WdDpPlan(WdDpSpec spec, int[] sizes, int minContributors, boolean secureNoise) {
    Checks.require(sizes.length >= 1, "wd-dp needs at least one party");
    Checks.require(minContributors >= 1 && minContributors <= sizes.length,
        "min contributors must be in [1, " + sizes.length + "]. Provided value: " + minContributors);
    this.spec = spec;
    this.secureNoise = secureNoise;
    this.config = spec.config();
    this.gd = spec.learnerOf();
    this.sizes = sizes;
    this.minContributors = minContributors;
    long n = 0;
    int smallest = Integer.MAX_VALUE;
    for (int s : sizes) {
      Checks.require(s >= 1, "every party needs at least one record");
      n += s;
      smallest = Math.min(smallest, s);
    }
    this.records = n;
    double f = config.weightNoiseFraction();
    double eps = spec.common().epsilon();
    double delta = spec.common().delta();
    this.eps1 = (1 - f) * eps;
    this.delta1 = (1 - f) * delta;
    // PLD evaluations are costly and discretised more coarsely than 1e-4: stop the bisection there (the
    // result still meets the target; it is the bracket's upper end).
    this.mu = config.accountant().equals("pld")
        ? Calibration.noiseMultiplier(s -> stepsEvent(s), Accountants.named("pld"), eps1, delta1, 1e-4)
        : Calibration.noiseMultiplier(s -> stepsEvent(s), Accountants.named(config.accountant()), eps1, delta1);
    this.sigmaWeight = f == 0 ? 0
        : Calibration.noiseMultiplier(GaussianDpEvent::new, Accountants.named("gaussian"), f * eps, f * delta) / n;
    // Public bounds for the ring: a coordinate starts within max|theta_0|, moves by at most eta G per
    // step on the gradient (|g_i| <= ||g|| <= G), and by eta sigma_j sqrt(T) standard deviations on
    // the noise, clamped at CLAMP_STDS of them (the smallest party has the most noise). The clamp is
    // post-processing of theta_j: it costs no privacy, only (with probability below 1e-30 per
    // coordinate) accuracy.
    this.start = gd.start(config.startSeed());
    double startMax = 0;
    for (double v : start) {
      startMax = Math.max(startMax, Math.abs(v));
    }
    double eta = gd.stepSize();
    double sigmaMax = mu * gd.sensitivity(smallest);
    this.modelBound = startMax + eta * config.steps() * gd.lipschitz()
        + CLAMP_STDS * eta * sigmaMax * Math.sqrt(config.steps());
    double maxWeight = 0;
    for (int s : sizes) {
      maxWeight = Math.max(maxWeight, baseWeight(s));
    }
    this.weightBound = maxWeight + CLAMP_STDS * sigmaWeight;
    Checks.require(Double.isFinite(modelBound) && Double.isFinite(weightBound) && modelBound * weightBound < 1e300,
        "the public bound on a party's model is not finite (step size " + eta + ", " + config.steps() + " steps, "
            + "noise std " + sigmaMax + "): choose a smaller step size or fewer steps");
    this.encoding = FixedPointEncoding.choose(spec.common().ringBits(), modelBound * weightBound, sizes.length);
  }

  /** T composed Gaussian mechanisms of noise multiplier {@code multiplier}. */
  private DpEvent stepsEvent(double multiplier) {
    return new SelfComposedDpEvent(new GaussianDpEvent(multiplier), config.steps());
  }

  /** The weight without noise: n_j / n, or 1 / m for uniform weighting (public). */
  double baseWeight(int size) {
    return config.uniform() ? 1.0 / sizes.length : (double) size / records;
  }

  /** The noise std of each step's gradient for a party of {@code size} records: mu 2G / n_j. */
  double stepSigma(int size) {
    return mu * gd.sensitivity(size);
  }

  @Override
  public int rounds() {
    return 1;
  }

  @Override
  public int length() {
    return gd.length();
  }

  @Override
  public FixedPointEncoding encoding() {
    return encoding;
  }

  @Override
  public int minContributors() {
    return minContributors;
  }

  @Override
  public double noiseMultiplier() {
    return mu;
  }

  /** Every party's guarantee rests on its own noise: all the others may collude with the server. */
  @Override
  public int colluders() {
    return sizes.length - 1;
  }

  /** eps1 at delta1 of the T steps (what the released model costs each record). */
  double epsilon() {
    return Accountants.named(config.accountant()).get().compose(stepsEvent(mu)).epsilon(delta1);
  }

  @Override
  public PrivacyCharge charge() {
    return new PrivacyCharge(config.accountant(), stepsEvent(mu), 1, delta1, delta1, "replace one record", "record");
  }

  /**
   * The paper's sigma for party j with its unstated constant set to c = 1, for comparison only:
   * {@code sigma^2 = G^2 T ln(1/delta1) / (n_j^2 eps1^2)} (the paper writes n; a party's own data
   * has n_j records).
   */
  double paperSigmaC1(int size) {
    return gd.lipschitz() * Math.sqrt(config.steps() * Math.log(1 / delta1)) / (size * eps1);
  }

  @Override
  public PrivacyLedger ledger(int contributors, String summation, boolean revealsInputs) {
    double eps = epsilon();
    String relation = "replace one record";
    Map<String, Object> details = new LinkedHashMap<>(summary());
    details.put("summation", summation);
    details.put("summation_reveals_inputs", revealsInputs);
    details.put("trust_mode", revealsInputs ? "trusted-server (the server sees every party's model)"
        : "secure (the server sees only the sum)");
    List<Guarantee> guarantees = new ArrayList<>();
    guarantees.add(new Guarantee(Audience.releasedModel(summation, revealsInputs, colluders()), relation, "record",
        eps, delta1));
    if (revealsInputs) {
      // Each party's model is itself (eps1, delta1)-DP for its records: the same guarantee holds
      // against the server that sees them all.
      guarantees.add(new Guarantee(Audience.serverInTheClear(), relation, "record", eps, delta1));
    }
    return new PrivacyLedger("wd-dp (weighted distributed DP ERM: noisy full-batch gradient descent per party, one "
        + "weighted summation)", relation, "record", stepsEvent(mu).describe(), config.accountant(), eps, delta1,
        details, guarantees);
  }

  @Override
  public Map<String, Object> summary() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("accountant", config.accountant());
    m.put("noise_multiplier", mu);
    m.put("steps", config.steps());
    m.put("step_size", gd.stepSize());
    m.put("lipschitz", gd.lipschitz());
    m.put("smoothness", gd.smoothness());
    m.put("weighting", config.uniform() ? "uniform" : "sizes");
    int smallest = Integer.MAX_VALUE;
    int largest = 0;
    for (int s : sizes) {
      smallest = Math.min(smallest, s);
      largest = Math.max(largest, s);
    }
    m.put("step_noise_std_smallest_party", stepSigma(smallest));
    m.put("step_noise_std_largest_party", stepSigma(largest));
    m.put("paper_sigma_c1_smallest_party", paperSigmaC1(smallest));
    m.put("epsilon_model", eps1);
    m.put("delta_model", delta1);
    m.put("weight_noise_std", sigmaWeight);
    if (sigmaWeight > 0) {
      m.put("weight_noise_note", "the paper's noise on the weights; the weights are public under replace-one, so it "
          + "protects no record and is not charged");
    }
    m.put("noise_multiplier_meaning", "per step; " + config.steps() + " steps compose");
    m.put("sensitivity", "2G/n_j per step (replace one record of party j)");
    m.put("sensitivity_smallest_party", gd.sensitivity(smallest));
    m.put("noise_sampler", secureNoise
        ? "continuous Gaussian in floating point (Box-Muller on AES-256-CTR DRBG bits keyed from SecureRandom) on "
            + "every step's gradient; the guarantee assumes ideal real-valued noise"
        : "SEEDED, NOT SECURE: test only (continuous Gaussian from a seeded generator)");
    m.put("ring_bits", encoding.ringBits());
    return m;
  }

  @Override
  public Contributor contributor(int party, Local local, NoiseFactory noise, long seed) {
    if (!(local instanceof WdDpSpec.Rows rows)) {
      throw new IllegalArgumentException("party " + party + "'s local state is not wd-dp's");
    }
    Checks.require(party >= 0 && party < sizes.length && rows.size() == sizes[party],
        "party " + party + " holds " + rows.size() + " records; the roster says " + (party < sizes.length
            ? sizes[party] : "nothing"));
    GaussianNoise own = noise.gaussian(party);
    return (round, state) -> {
      Checks.require(round == 0, "wd-dp has one round; round " + round + " was opened");
      Checks.require(state.length == 0, "wd-dp's round carries no state; " + state.length + " bytes came");
      return () -> input(rows, own);
    };
  }

  /** Party j's input: its noisy model, clamped to the public bound, times its (noisy) weight, encoded. */
  private long[] input(WdDpSpec.Rows rows, GaussianNoise own) {
    int n = rows.size();
    LinearModel theta = gd.train(rows.design(), start, stepSigma(n), own::nextStandard);
    double weight = baseWeight(n);
    if (sigmaWeight > 0) {
      weight += sigmaWeight * own.nextStandard();
      weight = Math.max(-weightBound, Math.min(weightBound, weight));
    }
    double[] w = theta.weights();
    long[] out = new long[w.length];
    for (int i = 0; i < w.length; i++) {
      if (!Double.isFinite(w[i])) {
        throw new IllegalStateException("local training diverged (model value " + i + " is " + w[i] + "): choose a "
            + "smaller step size");
      }
      double v = Math.max(-modelBound, Math.min(modelBound, w[i]));
      out[i] = encoding.encode(weight * v);
    }
    return out;
  }

  @Override
  public ServerRole server() {
    double[] theta = new double[length()];
    int rowsOut = length() / (spec.common().features() + 1);
    return new ServerRole() {
      @Override
      public byte[] state(int round) {
        return new byte[0];
      }

      /** The weighted sum over the contributors' public weights: a dropout does not shrink the model. */
      @Override
      public void step(int round, double[] sum, int[] contributors) {
        double total = 0;
        for (int i : contributors) {
          total += baseWeight(sizes[i]);
        }
        Checks.require(total > 0, "no contributor");
        for (int j = 0; j < theta.length; j++) {
          theta[j] = sum[j] / total;
        }
      }

      @Override
      public LinearModel model() {
        return new LinearModel(rowsOut, spec.common().features() + 1, theta.clone());
      }
    };
  }
}
