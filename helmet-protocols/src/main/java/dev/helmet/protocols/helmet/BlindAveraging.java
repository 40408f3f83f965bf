package dev.helmet.protocols.helmet;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.GaussianAccountant;
import dev.helmet.privacy.accounting.PrivacyAccountant;
import dev.helmet.privacy.accounting.RdpAccountant;
import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.privacy.ledger.PrivacyCharge;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.noise.DiscreteNoise;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.privacy.Audience;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Distributed DP-Helmet's blind averaging (Helmet Alg. 3; SPEC 1.3): every party trains locally
 * (phase I, {@link #trainLocal}), adds calibrated Gaussian noise once, and one summation averages
 * the noised models (phase II, {@link #release}). Nothing else is communicated.
 *
 * <p>The noised model is scaled by {@code n_i / w}, clamped per coordinate to a public bound
 * (almost never active: the bound is at least 10 noise standard deviations above the largest
 * possible value, and the chance that it fires is charged to delta), encoded into the ring and
 * summed. The released model is the decoded sum divided by the mean local size, i.e. the
 * size-weighted average of the noised local models. It is not re-projected per party (SPEC 1.3:
 * that would break the argument).
 */
public final class BlindAveraging {
  /**
   * Least noise tail width, in standard deviations, of the per-coordinate clamp. A clamp that fires
   * makes the mechanism differ from the unclamped one, so the union bound over all clamped values is
   * charged to delta (see {@link ClampTail}); at 10 standard deviations a Gaussian tail is below
   * 1.6e-23.
   */
  static final double TAIL_STDS = 10;

  private BlindAveraging() {}

  /**
   * Phase I: trains every party's model on its own rows, in parallel on {@code threads} threads.
   * Party i shuffles with a generator seeded from the i-th value of {@code seed}'s stream, so the
   * result does not depend on the thread count.
   */
  public static LocalModels trainLocal(
      Dataset data, Partition partition, Preprocessing pre, LearnerConfig config, long seed, int threads,
      Progress progress) {
    Checks.positive("threads", threads);
    Learner learner = new Learner(config, pre.inputNormBound(), data.dimension(), data.numClasses());
    int w = partition.count();
    for (int i = 0; i < w; i++) {
      if (partition.size(i) == 0) {
        throw new IllegalArgumentException("party " + i + " holds no data; every party needs at least one point");
      }
    }
    long[] seeds = new long[w];
    SplittableRandom root = new SplittableRandom(seed);
    for (int i = 0; i < w; i++) {
      seeds[i] = root.nextLong();
    }
    progress.start("training " + w + " local models", w);
    LinearModel[] models = new LinearModel[w];
    Parallel.forEach(threads, w, i -> {
      models[i] = learner.train(pre.design(data, partition.indices(i)), new SplittableRandom(seeds[i]));
      progress.advance(1);
    });
    progress.finish();
    int[] sizes = new int[w];
    for (int i = 0; i < w; i++) {
      sizes[i] = partition.size(i);
    }
    return new LocalModels(Arrays.asList(models), sizes, learner, pre, partition.description());
  }

  /**
   * The outcome of phase II.
   *
   * @param charge what the release costs every party's data, from the public plan
   */
  public record Release(
      LinearModel model,
      PrivacyLedger ledger,
      PrivacyCharge charge,
      SummationOutcome summation,
      FixedPointEncoding encoding,
      double noiseMultiplier,
      double sensitivity,
      double scaledSensitivity) {}

  /** Phase II with continuous Gaussian noise (the papers' mechanism). */
  public static Release release(
      LocalModels locals,
      HelmetPrivacy privacy,
      SecureSummation summation,
      NoiseFactory noise,
      int ringBits,
      int threads) {
    return release(locals, privacy, summation, noise, NoiseKind.GAUSSIAN, ringBits, threads);
  }

  /**
   * Phase II: noise, scale, encode, sum once, decode.
   *
   * @param noise the noise samplers of the parties (secure in production; seeded only in tests)
   * @param kind continuous Gaussian, or the exact discrete Gaussian on the fixed-point grid
   * @param ringBits the summation ring: 32 or 64, or 0 to choose (32 bits when they leave at least 20
   *     fractional bits, else 64)
   * @throws IllegalStateException if the summation aborted (nothing is released)
   */
  public static Release release(
      LocalModels locals,
      HelmetPrivacy privacy,
      SecureSummation summation,
      NoiseFactory noise,
      NoiseKind kind,
      int ringBits,
      int threads) {
    return release(locals, privacy, summation, noise, kind, ringBits, threads, Progress.NONE);
  }

  /** As above, reporting the summation's progress (its slowest part) to {@code progress}. */
  public static Release release(
      LocalModels locals,
      HelmetPrivacy privacy,
      SecureSummation summation,
      NoiseFactory noise,
      NoiseKind kind,
      int ringBits,
      int threads,
      Progress progress) {
    Plan plan = plan(locals.learner(), locals.preprocessing(), locals.sizes(), privacy, kind, ringBits,
        noise.isSecure());
    int w = locals.parties();
    List<long[]> inputs = new ArrayList<>(Arrays.asList(new long[w][]));
    Parallel.forEach(threads, w, i -> inputs.set(i, plan.input(i, locals.models().get(i), noise)));
    SummationOutcome outcome = summation.run(plan.spec(), i -> {
      long[] in = inputs.get(i);
      inputs.set(i, null); // each party's vector is needed once; let it go
      return in;
    }, progress);
    return plan.finish(outcome, summation.name(), summation.revealsInputs());
  }

  /**
   * The public half of phase II, built from public information only (the learner, the
   * preprocessing, every party's local size and the privacy target): a networked party and the
   * coordinator each build the same plan and so agree on the noise, the encoding and the accounting
   * without trusting one another's arithmetic.
   *
   * @param secureNoise whether the parties draw their noise from {@link NoiseFactory#secure()} (for
   *     the ledger's description; a plan never samples noise itself)
   */
  public static Plan plan(Learner learner, Preprocessing preprocessing, int[] sizes, HelmetPrivacy privacy,
      NoiseKind kind, int ringBits, boolean secureNoise) {
    return new Plan(learner, preprocessing, sizes, privacy, kind, ringBits, secureNoise);
  }

  /** See {@link #plan}. */
  public static final class Plan {
    private final Learner learner;
    private final Preprocessing preprocessing;
    private final int[] sizes;
    private final HelmetPrivacy privacy;
    private final int minContributors;
    private final int plannedHonest;
    private final NoisePlan noise;

    private Plan(Learner learner, Preprocessing preprocessing, int[] sizes, HelmetPrivacy privacy, NoiseKind kind,
        int ringBits, boolean secureNoise) {
      this.learner = Checks.notNull("learner", learner);
      this.preprocessing = Checks.notNull("preprocessing", preprocessing);
      this.privacy = Checks.notNull("privacy", privacy);
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
      this.plannedHonest = HelmetAccounting.honestContributors(minContributors, w, t);
      if (plannedHonest <= 0) {
        throw new IllegalArgumentException(String.format(
            "with %d of %d parties contributing and honest fraction %s, no honest party's noise is "
                + "guaranteed; raise the honest fraction or the minimum number of contributors", minContributors, w, t));
      }
      double scaled = HelmetAccounting.scaledSensitivity(learner, privacy.protection(), sizes);
      this.noise = kind == NoiseKind.GAUSSIAN
          ? new GaussianPlan(learner, this.sizes, privacy, scaled, plannedHonest, secureNoise, ringBits)
          : new DiscreteGaussianPlan(learner, this.sizes, privacy, scaled, plannedHonest, secureNoise, ringBits);
    }

    /** The ring encoding every party uses. */
    public FixedPointEncoding encoding() {
      return noise.encoding();
    }

    /** What the summation sums: w vectors of the model's size, at least the planned contributors. */
    public SummationSpec spec() {
      return new SummationSpec(sizes.length, learner.outputRows() * learner.inputDimension(), noise.encoding(),
          minContributors);
    }

    /** The fewest contributors the noise is calibrated for. */
    public int minContributors() {
      return minContributors;
    }

    /** The noise multiplier on the released sum (noise std / L2 sensitivity). */
    public double noiseMultiplier() {
      return noise.noiseMultiplier();
    }

    /**
     * What the release costs every party's data, from this public plan alone: the one release at
     * the planned honest contributors (more contributors only add noise, so this bounds the
     * achieved guarantee). A party charges its own ledger with this, never with a number it is
     * sent.
     */
    public PrivacyCharge charge() {
      return new PrivacyCharge(noise.accountantId(), noise.achievedEvent(plannedHonest), 1,
          privacy.delta() - noise.deltaTail(), privacy.delta(), HelmetAccounting.neighbours(privacy.protection()),
          privacy.protection().describe());
    }

    /** The most parties that may collude with the server: floor((1 - t) w). */
    public int colluders() {
      return sizes.length - HelmetAccounting.honestContributors(sizes.length, sizes.length, privacy.honestFraction());
    }

    /**
     * Party {@code party}'s summation input: its model noised once, scaled by n_i / w, clamped and
     * encoded. Only the party itself computes this, with its own noise.
     */
    public long[] input(int party, LinearModel model, NoiseFactory noiseSource) {
      Checks.inRange("party", party, 0, sizes.length - 1);
      if (model.weights().length != learner.outputRows() * learner.inputDimension()) {
        throw new IllegalArgumentException("party " + party + "'s model has " + model.weights().length
            + " weights; the plan expects " + learner.outputRows() * learner.inputDimension());
      }
      return noise.input(party, model.weights(), noiseSource);
    }

    /**
     * Decodes a completed summation into the released model and its ledger.
     *
     * @throws IllegalStateException if the summation aborted (nothing is released)
     */
    public Release finish(SummationOutcome outcome, String summationName, boolean summationRevealsInputs) {
      int w = sizes.length;
      int m = minContributors;
      if (outcome.status() != SummationOutcome.Status.COMPLETED) {
        throw new IllegalStateException("the summation aborted (" + outcome.abortReason() + "; "
            + outcome.dropped().size() + " of " + w + " parties dropped, " + m + " contributors needed); nothing was"
            + " released");
      }
      FixedPointEncoding encoding = noise.encoding();
      int rows = learner.outputRows();
      int cols = learner.inputDimension();
      double[] sum = encoding.decode(outcome.sum());
      long totalSize = 0;
      for (int i : outcome.contributors()) {
        totalSize += sizes[i];
      }
      // sum = (1/w) sum_i n_i f_priv,i; dividing by (total / w) gives the size-weighted mean model.
      double meanSize = (double) totalSize / w;
      for (int j = 0; j < sum.length; j++) {
        sum[j] /= meanSize;
      }
      LinearModel model = new LinearModel(rows, cols, sum);

      double t = privacy.honestFraction();
      int contributors = outcome.contributors().size();
      double actualHonest = HelmetAccounting.honestContributors(contributors, w, t);
      DpEvent achieved = noise.achievedEvent(actualHonest);
      double achievedEps = achieved == null
          ? Double.POSITIVE_INFINITY
          : noise.accountant().compose(achieved).epsilon(privacy.delta() - noise.deltaTail());
      // The largest per-party sensitivity of one release, before the n_i / w scaling.
      double perPartySensitivity = 0;
      int minSize = Integer.MAX_VALUE;
      int maxSize = 0;
      for (int n : sizes) {
        perPartySensitivity = Math.max(perPartySensitivity,
            HelmetAccounting.scaledSensitivity(learner, privacy.protection(), new int[] {n}) / n);
        minSize = Math.min(minSize, n);
        maxSize = Math.max(maxSize, n);
      }
      double scaled = HelmetAccounting.scaledSensitivity(learner, privacy.protection(), sizes);
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("target_epsilon", privacy.epsilon());
      details.put("noise_multiplier", noise.noiseMultiplier());
      details.put("releases", learner.releases());
      details.put("sensitivity", perPartySensitivity);
      details.put("scaled_sensitivity", scaled);
      noise.describe(details);
      details.put("lipschitz", learner.lipschitz());
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
      String relation = HelmetAccounting.neighbours(privacy.protection());
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
      return new Release(model, ledger, charge(), outcome, encoding, noise.noiseMultiplier(), perPartySensitivity,
          scaled);
    }
  }

  /** How one noise kind turns the local models into encoded, noised inputs, and how it is accounted. */
  private interface NoisePlan {
    FixedPointEncoding encoding();

    /** Party i's noised, scaled, clamped and encoded model. */
    long[] input(int party, double[] weights, NoiseFactory noise);

    /** Noise standard deviation on the released sum divided by its L2 sensitivity. */
    double noiseMultiplier();

    /** The part of delta spent on the clamp tail. */
    double deltaTail();

    /** The event with {@code honest} honest contributors, or null if none is guaranteed. */
    DpEvent achievedEvent(double honest);

    PrivacyAccountant accountant();

    /** The accountant's short name ({@link dev.helmet.privacy.accounting.Accountants#named}). */
    String accountantId();

    String accountantName();

    void describe(Map<String, Object> details);
  }

  /**
   * Continuous Gaussian noise (Helmet Alg. 3 line by line): f_priv = f + N(0, (sigma S / (n_i
   * sqrt(h)))^2 I), input (n_i / w) f_priv, clamped and rounded onto the grid.
   */
  private static final class GaussianPlan implements NoisePlan {
    private final int[] sizes;
    private final boolean secureNoise;
    private final double sigma;
    private final double scaled;
    private final double plannedHonest;
    private final double tau;
    private final double bound;
    private final double deltaTail;
    private final int releases;
    private final FixedPointEncoding encoding;

    GaussianPlan(Learner learner, int[] sizes, HelmetPrivacy privacy, double scaled, double plannedHonest,
        boolean secureNoise, int ringBits) {
      this.sizes = sizes;
      this.secureNoise = secureNoise;
      this.scaled = scaled;
      this.plannedHonest = plannedHonest;
      int w = sizes.length;
      this.releases = learner.releases();
      // delta is split: the clamp below may fire on some of the w * d noised values with total
      // probability at most deltaTail; the Gaussian mechanism gets the rest.
      ClampTail tail = ClampTail.of(privacy, (double) w * learner.outputRows() * learner.inputDimension(),
          TAIL_STDS, false);
      this.deltaTail = tail.delta();
      requireTailFits(deltaTail, privacy.delta(), w);
      this.sigma = HelmetAccounting.noiseMultiplier(privacy.epsilon(), privacy.delta() - deltaTail, releases);
      // Per-coordinate std of the noise on each scaled contribution (n_i / w) f_priv.
      this.tau = sigma * scaled / (w * Math.sqrt(plannedHonest));
      this.bound = (double) maxOf(sizes) / w * learner.config().radius() + tail.stds() * tau;
      // Round to a grid at least 2^10 times coarser than the floating-point resolution of the
      // values (ulp(bound) = 2^(exponent - 52)), so the low-order bits of the floating-point noise,
      // which can leak the unnoised value (Mironov 2012), do not survive encoding.
      int maxFractionalBits = 42 - Math.getExponent(bound);
      this.encoding = chooseEncoding(ringBits, bound, w, maxFractionalBits);
    }

    @Override
    public FixedPointEncoding encoding() {
      return encoding;
    }

    @Override
    public long[] input(int i, double[] weights, NoiseFactory noise) {
      int n = sizes[i];
      int w = sizes.length;
      double[] f = weights.clone();
      GaussianNoise sampler = noise.gaussian(i);
      sampler.addTo(f, sigma * scaled / (n * Math.sqrt(plannedHonest)));
      double scale = (double) n / w;
      long[] enc = new long[f.length];
      for (int j = 0; j < f.length; j++) {
        enc[j] = encoding.encode(Math.max(-bound, Math.min(bound, scale * f[j])));
      }
      return enc;
    }

    @Override
    public double noiseMultiplier() {
      return sigma;
    }

    @Override
    public double deltaTail() {
      return deltaTail;
    }

    @Override
    public DpEvent achievedEvent(double honest) {
      double s = HelmetAccounting.achievedNoiseMultiplier(sigma, plannedHonest, honest);
      return s == 0 ? null : HelmetAccounting.event(s, releases);
    }

    @Override
    public PrivacyAccountant accountant() {
      return new GaussianAccountant();
    }

    @Override
    public String accountantId() {
      return "gaussian";
    }

    @Override
    public String accountantName() {
      return "gaussian-exact (Sommer et al. 2019 Thm 5 / analytic Gaussian)";
    }

    @Override
    public void describe(Map<String, Object> d) {
      d.put("noise", NoiseKind.GAUSSIAN.id());
      d.put("noise_std_per_coordinate", tau);
      d.put("clamp_bound", bound);
      d.put("noise_sampler", secureNoise
          ? "continuous Gaussian in floating point (Box-Muller on SecureRandom DRBG bits), rounded to a grid "
              + "2^10 times coarser than its float resolution; the guarantee assumes ideal real-valued noise"
          : "continuous Gaussian (SEEDED, NOT SECURE: test only)");
    }
  }

  /**
   * Exact discrete Gaussian noise on the fixed-point grid. Party i rounds (n_i / w) f_i onto the
   * grid 2^-f and adds N_Z(0, sigma^2) per coordinate, sigma^2 an integer. The grid is chosen so
   * that rounding adds at most 1 % to the L2 sensitivity: the rounded contributions of neighbouring
   * data sets differ by at most {@code Delta 2^f + sqrt(d)} (each coordinate's rounding moves by at
   * most one unit), with {@code Delta 2^f >= 100 sqrt(d)}. The honest parties' noise sums to the
   * distributed discrete Gaussian of Kairouz, Liu and Steinke (2021), accounted in Renyi DP with its
   * (vanishing) correction term. Noised values are clamped at 12 sigma (more at very large epsilon) beyond the largest signal;
   * the discrete Gaussian is sub-Gaussian (Canonne, Kamath, Steinke 2020), so a clamp fires with
   * probability at most 2 exp(-72) per value, charged to delta.
   */
  private static final class DiscreteGaussianPlan implements NoisePlan {
    private static final double TAIL_STDS_DISCRETE = 12;

    private final int[] sizes;
    private final boolean secureNoise;
    private final int dimension;
    private final double l2;
    private final double l1;
    private final long sigma2;
    private final int honest;
    private final long bound;
    private final double deltaTail;
    private final double gridScale;
    private final FixedPointEncoding encoding;

    DiscreteGaussianPlan(Learner learner, int[] sizes, HelmetPrivacy privacy, double scaled, double plannedHonest,
        boolean secureNoise, int ringBits) {
      this.sizes = sizes;
      this.secureNoise = secureNoise;
      int w = sizes.length;
      this.dimension = learner.outputRows() * learner.inputDimension();
      // One party's scaled contribution moves by at most sqrt(releases) S / w in L2 (all K rows of a
      // one-vs-rest model may change, each by the per-release scaled sensitivity).
      double delta = Math.sqrt(learner.releases()) * scaled / w;
      int f = Math.max(0, (int) Math.ceil(Math.log(100 * Math.sqrt(dimension) / delta) / Math.log(2)));
      this.gridScale = Math.scalb(1.0, f);
      this.l2 = delta * gridScale + Math.sqrt(dimension);
      this.l1 = Math.sqrt(dimension) * l2;
      this.honest = (int) Math.floor(plannedHonest);
      if (honest < 1) {
        throw new IllegalArgumentException("no honest contributor is guaranteed");
      }
      ClampTail tail = ClampTail.of(privacy, (double) w * dimension, TAIL_STDS_DISCRETE, true);
      this.deltaTail = tail.delta();
      requireTailFits(deltaTail, privacy.delta(), w);
      // The KLS bound holds for sigma >= 1/2; below that the search sees sigma = 1/2 (constant, so the
      // search stays monotone), and the integer sigma^2 >= 1 used below is never smaller.
      double sigma = Calibration.noiseMultiplier(s -> new DistributedDiscreteGaussianDpEvent(Math.max(s, 0.5),
          honest, l2, l1, dimension), RdpAccountant::new, privacy.epsilon(), privacy.delta() - deltaTail);
      // Integer sigma^2, rounded up: a little more noise, never less.
      this.sigma2 = Math.max(1, (long) Math.ceil(sigma * sigma));
      double signal = Math.ceil((double) maxOf(sizes) / w * learner.config().radius() * gridScale) + 1;
      double b = Math.ceil(signal + tail.stds() * Math.sqrt((double) sigma2));
      if (b >= 0x1.0p53) {
        throw new dev.helmet.secagg.ring.RingOverflowException("the noised values would exceed 2^53 grid units ("
            + b + "); lower the precision or the noise");
      }
      this.bound = (long) b;
      this.encoding = discreteEncoding(ringBits, f, bound, w);
    }

    private static FixedPointEncoding discreteEncoding(int ringBits, int f, long bound, int parties) {
      double real = Math.scalb((double) bound, -f);
      for (int b : ringBits == 0 ? new int[] {32, 64} : new int[] {ringBits}) {
        if (f <= b - 2) {
          FixedPointEncoding e = new FixedPointEncoding(b, f);
          if (e.holds(real, parties)) {
            return e;
          }
        }
      }
      throw new dev.helmet.secagg.ring.RingOverflowException(String.format(
          "a %s-bit ring cannot hold the sum of %d discrete-Gaussian-noised inputs bounded by %d grid units",
          ringBits == 0 ? "64" : String.valueOf(ringBits), parties, bound));
    }

    @Override
    public FixedPointEncoding encoding() {
      return encoding;
    }

    @Override
    public long[] input(int i, double[] weights, NoiseFactory noise) {
      int n = sizes[i];
      double scale = (double) n / sizes.length * gridScale;
      double[] f = weights;
      DiscreteNoise sampler = noise.discrete(i);
      long mask = encoding.mask();
      long[] enc = new long[f.length];
      for (int j = 0; j < f.length; j++) {
        long v = Math.round(scale * f[j]) + sampler.discreteGaussian(sigma2);
        enc[j] = Math.max(-bound, Math.min(bound, v)) & mask;
      }
      return enc;
    }

    @Override
    public double noiseMultiplier() {
      // The honest noise on the sum has std sqrt(h) sigma (grid units); its sensitivity is l2.
      return Math.sqrt((double) sigma2 * honest) / l2;
    }

    @Override
    public double deltaTail() {
      return deltaTail;
    }

    @Override
    public DpEvent achievedEvent(double honest) {
      int h = (int) Math.floor(honest);
      return h < 1 ? null : new DistributedDiscreteGaussianDpEvent(Math.sqrt((double) sigma2), h, l2, l1, dimension);
    }

    @Override
    public PrivacyAccountant accountant() {
      return new RdpAccountant();
    }

    @Override
    public String accountantId() {
      return "rdp";
    }

    @Override
    public String accountantName() {
      return "rdp (distributed discrete Gaussian, Kairouz-Liu-Steinke 2021 Prop. 14; improved conversion)";
    }

    @Override
    public void describe(Map<String, Object> d) {
      d.put("noise", NoiseKind.DISCRETE_GAUSSIAN.id());
      d.put("discrete_sigma_squared", sigma2);
      d.put("noise_std_per_coordinate", Math.sqrt((double) sigma2) / gridScale);
      d.put("grid_l2_sensitivity", l2);
      d.put("grid_l1_sensitivity", l1);
      d.put("dimension", dimension);
      d.put("clamp_bound_grid_units", bound);
      d.put("noise_sampler", secureNoise
          ? "exact discrete Gaussian (Canonne-Kamath-Steinke) on SecureRandom DRBG bits"
          : "exact discrete Gaussian (SEEDED, NOT SECURE: test only)");
    }
  }

  /**
   * The clamp's width in noise standard deviations and the delta it costs.
   *
   * <p>If a mechanism differs from an (epsilon, delta)-DP one only on an event of probability at
   * most p on every input, it is (epsilon, delta + (1 + e^epsilon) p)-DP: P[M'(D) in S] <= P[M(D) in
   * S] + p <= e^epsilon (P[M'(D') in S] + p) + delta + p. The event is "some clamp fires", so p is
   * the union bound over all {@code count} noised values. The width starts at {@code minStds} and
   * widens only when e^epsilon is so large (epsilon in the tens) that the charge would exceed 1 % of
   * delta; everything is computed in logarithms so that no epsilon overflows.
   *
   * @param discrete true for the discrete Gaussian, whose tail is at most 2 exp(-k^2 / 2) (it is
   *     sigma^2-sub-Gaussian, Canonne, Kamath and Steinke 2020); false for the continuous one, whose
   *     tail is at most 2 phi(k) / k (Mills' ratio)
   */
  record ClampTail(double stds, double delta) {
    static ClampTail of(HelmetPrivacy privacy, double count, double minStds, boolean discrete) {
      double eps = privacy.epsilon();
      // log((1 + e^eps) count), stable for any eps >= 0
      double logCharge = Math.log(count) + eps + Math.log1p(Math.exp(-eps));
      double logTarget = Math.log(privacy.delta() / 100);
      double k = minStds;
      if (logCharge + logTail(k, discrete) > logTarget) {
        // 2 exp(-k^2/2) <= target / charge; Mills' bound is smaller still for k >= 1, so this k
        // suffices for both kinds.
        k = Math.max(k, Math.sqrt(2 * (Math.log(2 * (1 + 1e-9)) + logCharge - logTarget)));
      }
      return new ClampTail(k, Math.exp(logCharge + logTail(k, discrete)));
    }

    private static double logTail(double k, boolean discrete) {
      // The (1 + 1e-9) factors cover the floating-point error of these few operations (upward).
      return discrete
          ? Math.log(2 * (1 + 1e-9)) - k * k / 2
          : Math.log(2 * (1 + 1e-9)) - k * k / 2 - Math.log(k) - 0.5 * Math.log(2 * Math.PI);
    }
  }

  private static int maxOf(int[] sizes) {
    int m = 0;
    for (int s : sizes) {
      m = Math.max(m, s);
    }
    return m;
  }

  private static void requireTailFits(double deltaTail, double delta, int w) {
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
