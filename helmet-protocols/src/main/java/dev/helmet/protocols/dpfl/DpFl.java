package dev.helmet.protocols.dpfl;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.accounting.Calibration;
import dev.helmet.privacy.accounting.PldAccountant;
import dev.helmet.privacy.accounting.PrivacyAccountant;
import dev.helmet.privacy.accounting.RdpAccountant;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.protocols.helmet.HelmetAccounting;
import dev.helmet.secagg.ring.FixedPointEncoding;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * Differentially private federated learning (federated DP-SGD, SPEC 4) of the softmax single-layer
 * perceptron, the baseline both Helmet papers compare against. Each round every party Poisson-samples
 * its own records with probability q, sums their gradients clipped to L2 norm C, adds its share of
 * the Gaussian noise, and one secure summation adds the parties' vectors; the server divides by the
 * expected batch size (q times the total number of records, public) and takes an SGD step.
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
      int ringBits) {
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
    }

    /** The accounted event for noise multiplier sigma. */
    public DpEvent event(double sigma) {
      return new SelfComposedDpEvent(new PoissonSampledDpEvent(samplingRate, new GaussianDpEvent(sigma)), rounds);
    }

    Supplier<PrivacyAccountant> accountants() {
      return accountant.equals("pld") ? PldAccountant::new : RdpAccountant::new;
    }

    /** The smallest noise multiplier meeting (epsilon, mechanismDelta) over all rounds (never overshooting). */
    public double noiseMultiplier(double mechanismDelta) {
      return Calibration.noiseMultiplier(this::event, accountants(), epsilon, mechanismDelta,
          accountant.equals("pld") ? 1e-4 : 1e-8);
    }
  }

  /**
   * The public half of a DP-FL run: everything derived from the configuration, the parties' sizes
   * (public, as in Helmet) and the fewest contributors a round may sum. The in-process simulation
   * and the networked coordinator and participants all derive it with this same code, so a
   * participant computes its own noise and refuses to run more rounds than were accounted.
   */
  public static final class Plan {
    private final Config config;
    private final int parties;
    private final int minContributors;
    private final int classes;
    private final int cols;
    private final double sigma;
    private final double mechanismDelta;
    private final double clampStds;
    private final double partyStd;
    private final double bound;
    private final FixedPointEncoding encoding;

    private Plan(Config c, int[] sizes, int minContributors, int classes, int cols) {
      Checks.require(sizes.length >= 1, "DP-FL needs at least one party");
      Checks.require(minContributors >= 1 && minContributors <= sizes.length,
          "min contributors must be in [1, " + sizes.length + "]. Provided value: " + minContributors);
      this.config = c;
      this.parties = sizes.length;
      this.minContributors = minContributors;
      this.classes = classes;
      this.cols = cols;
      int w = sizes.length;
      int d = classes * cols;
      int maxLocal = 0;
      for (int n : sizes) {
        Checks.require(n >= 1, "every party needs at least one record");
        maxLocal = Math.max(maxLocal, n);
      }
      // Encoding: a party's clipped sum has per-coordinate magnitude at most n_i C; its noise is
      // clamped at k >= 12 standard deviations. A clamp that fires makes the run differ from the
      // accounted mechanism on an event of probability at most p = rounds W d 2 exp(-k^2/2) (Gaussian
      // tail, union bound), which costs (1 + e^eps) p of delta; the mechanism is calibrated for the rest.
      // ln((1 + e^eps) count), stable for any eps; the clamp widens beyond 12 standard deviations when
      // that is needed to keep its charge below 1 % of delta.
      double count = (double) c.rounds() * w * d;
      double logCharge = Math.log(count) + c.epsilon() + Math.log1p(Math.exp(-c.epsilon()));
      double logTarget = Math.log(c.delta() / 100);
      this.clampStds = Math.max(12, Math.sqrt(2 * (Math.log(2 * (1 + 1e-9)) + logCharge - logTarget)));
      double deltaTail = Math.exp(logCharge + Math.log(2 * (1 + 1e-9)) - clampStds * clampStds / 2);
      this.mechanismDelta = c.delta() - deltaTail;
      this.sigma = c.noiseMultiplier(mechanismDelta);
      // The noise is sized for the fewest contributors a round may have: with more, there is only
      // more noise. Honest: the guaranteed honest contributors among them alone give std sigma C.
      double honest = switch (c.split()) {
        case HONEST -> HelmetAccounting.honestContributors(minContributors, w, c.honestFraction());
        case ALL_TRUSTED -> minContributors;
        case SQRT_W_PENALTY -> 1;
      };
      if (honest <= 0) {
        throw new IllegalArgumentException("honest fraction " + c.honestFraction() + " of " + w + " parties leaves no "
            + "honest party among " + minContributors + " contributors");
      }
      this.partyStd = sigma * c.clip() / Math.sqrt(honest);
      this.bound = maxLocal * c.clip() + clampStds * partyStd;
      this.encoding = DpFl.encoding(c.ringBits(), bound, w);
    }

    /**
     * The plan for parties of the given sizes.
     *
     * @param minContributors the fewest parties a round's sum may have (W in-process)
     * @param classes the number of classes
     * @param cols the design matrix's columns (features plus the intercept)
     */
    public static Plan of(Config c, int[] sizes, int minContributors, int classes, int cols) {
      return new Plan(c, sizes.clone(), minContributors, classes, cols);
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

    /** The model's length: classes x columns. */
    public int length() {
      return classes * cols;
    }

    public int classes() {
      return classes;
    }

    public int cols() {
      return cols;
    }

    public int parties() {
      return parties;
    }

    public int minContributors() {
      return minContributors;
    }

    /** The eps achieved over all rounds (at most the target), at the configured delta. */
    public double epsilon() {
      return config.accountants().get().compose(config.event(sigma)).epsilon(mechanismDelta);
    }

    /**
     * One party's input to a round: the sum of its Poisson-sampled, clipped gradients at
     * {@code theta} plus its share of the noise, clamped to the encoding's bound and encoded.
     *
     * @param sampling the party's own secret randomness for the Poisson sample
     */
    public long[] input(DesignMatrix local, double[] theta, RandomBits sampling, GaussianNoise noise) {
      checkModel(theta);
      double[] g = new double[length()];
      addClippedGradients(local, theta, classes, config.clip(), config.samplingRate(), sampling, g);
      noise.addTo(g, partyStd);
      long[] e = new long[g.length];
      for (int j = 0; j < g.length; j++) {
        e[j] = encoding.encode(Math.max(-bound, Math.min(bound, g[j])));
      }
      return e;
    }

    /**
     * The server's step: {@code theta -= lr * sum / (q * n)}, n the contributors' records in total
     * (public), so the step uses the expected batch size of the parties actually summed.
     */
    public void step(double[] theta, double[] sum, long contributorRecords) {
      checkModel(theta);
      Checks.require(sum.length == theta.length, "sum of length " + sum.length + ", model of " + theta.length);
      Checks.positive("contributor records", contributorRecords);
      double scale = config.learningRate() / (config.samplingRate() * contributorRecords);
      for (int j = 0; j < theta.length; j++) {
        theta[j] -= scale * sum[j];
      }
    }

    /**
     * The privacy ledger of the released model: every round summed at least the plan's minimum of
     * contributors (the summation refuses fewer), so the accounted eps is the plan's.
     */
    public dev.helmet.privacy.ledger.PrivacyLedger ledger(String summationName, boolean summationRevealsInputs) {
      java.util.Map<String, Object> details = new java.util.LinkedHashMap<>();
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
      details.put("delta_clamp_tail", config.delta() - mechanismDelta);
      details.put("summation", summationName);
      details.put("summation_reveals_inputs", summationRevealsInputs);
      details.put("ring_bits", encoding.ringBits());
      details.put("fractional_bits", encoding.fractionalBits());
      return new dev.helmet.privacy.ledger.PrivacyLedger("dp-fl (federated DP-SGD, one summation per round)",
          "add-remove", "record", config.event(sigma).describe(), config.accountant(), epsilon(), config.delta(),
          details);
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

  /** How the in-process simulation forms each round's sum. */
  public enum Simulation {
    /**
     * Every party encodes its noised input and the summation adds them (secure aggregation, or the
     * plain summation in the clear): exactly what a deployment computes.
     */
    PER_PARTY,
    /**
     * For experiments: the parties' clipped gradients are added in floating point and the sum of
     * their Gaussian noise is drawn at once (a sum of independent Gaussians is Gaussian with the
     * summed variance, so the released model has the same distribution, up to the fixed-point
     * rounding and the clamp the deployment adds). Thousands of rounds of thousands of parties run
     * in seconds; no bytes are exchanged, and the communication is reported as zero.
     */
    AGGREGATE
  }

  /** What a run produced and cost. */
  public record Result(
      LinearModel model,
      double noiseMultiplier,
      double epsilon,
      int rounds,
      long bytesPerParty,
      long serverBytes,
      double summationSeconds,
      double seconds) {}

  /**
   * Runs DP-FL on {@code data} split by {@code partition}, every party's input through
   * {@code summation}.
   *
   * @param summation the secure summation used every round (or the in-the-clear baseline)
   * @param noise the parties' noise (secure outside tests)
   * @param seed seeds the Poisson sampling only when {@code noise} is seeded for tests; otherwise each
   *     party samples its batches from its own SecureRandom (they must stay secret)
   */
  public static Result run(Dataset data, Partition partition, Preprocessing pre, Config c, SecureSummation summation,
      NoiseFactory noise, long seed, int threads, Progress progress) {
    return run(data, partition, pre, c, Simulation.PER_PARTY, summation, noise, seed, threads, progress);
  }

  /**
   * Runs DP-FL; with {@link Simulation#AGGREGATE} the summation is not used (may be null).
   */
  public static Result run(Dataset data, Partition partition, Preprocessing pre, Config c, Simulation simulation,
      SecureSummation summation, NoiseFactory noise, long seed, int threads, Progress progress) {
    long start = System.nanoTime();
    int w = partition.count();
    int classes = data.numClasses();
    DesignMatrix[] local = new DesignMatrix[w];
    int[] sizes = new int[w];
    long total = 0;
    for (int i = 0; i < w; i++) {
      local[i] = pre.design(data, partition.indices(i));
      sizes[i] = local[i].rows();
      total += sizes[i];
    }
    Plan plan = Plan.of(c, sizes, w, classes, local[0].cols());
    int d = plan.length();
    double[] theta = new double[d];
    // The batches must stay secret (amplification by subsampling assumes no one knows them): each
    // party samples from its own SecureRandom; only test runs with seeded noise seed them too.
    SplittableRandom root = new SplittableRandom(seed);
    RandomBits[] sampling = new RandomBits[w];
    GaussianNoise[] partyNoise = new GaussianNoise[w];
    for (int i = 0; i < w; i++) {
      sampling[i] = noise.isSecure() ? RandomBits.secure() : RandomBits.insecureForTesting(root.nextLong());
      if (simulation == Simulation.PER_PARTY) {
        partyNoise[i] = noise.gaussian(i);
      }
    }
    long bytesPerParty = 0;
    long serverBytes = 0;
    double summationSeconds = 0;
    boolean aggregate = simulation == Simulation.AGGREGATE;
    progress.start("DP-FL: " + c.rounds() + " rounds of " + w + " parties "
        + (aggregate ? "(aggregate simulation)" : "through " + summation.name()), c.rounds());
    int chunks = Math.min(w, Math.max(1, threads) * 4);
    double[][] partial = aggregate ? new double[chunks][d] : null;
    // The sum of W independent N(0, s^2) draws is N(0, W s^2).
    double aggregateStd = plan.partyStd() * Math.sqrt(w);
    GaussianNoise centre = noise.gaussian(w);
    for (int round = 0; round < c.rounds(); round++) {
      double[] snapshot = theta.clone();
      double[] sum;
      if (aggregate) {
        Parallel.forEach(threads, chunks, k -> {
          double[] acc = partial[k];
          java.util.Arrays.fill(acc, 0);
          for (int i = k; i < w; i += chunks) {
            addClippedGradients(local[i], snapshot, classes, c.clip(), c.samplingRate(), sampling[i], acc);
          }
        });
        sum = new double[d];
        for (double[] acc : partial) {
          for (int j = 0; j < d; j++) {
            sum[j] += acc[j];
          }
        }
        centre.addTo(sum, aggregateStd);
      } else {
        long[][] inputs = new long[w][];
        Parallel.forEach(threads, w, i -> inputs[i] = plan.input(local[i], snapshot, sampling[i], partyNoise[i]));
        SummationOutcome out = summation.run(new SummationSpec(w, d, plan.encoding(), w), i -> inputs[i],
            Progress.NONE);
        if (out.status() != SummationOutcome.Status.COMPLETED) {
          throw new IllegalStateException("round " + (round + 1) + ": the summation aborted (" + out.abortReason()
              + "); nothing further is released");
        }
        sum = plan.encoding().decode(out.sum());
        bytesPerParty += out.bytesPerParty();
        serverBytes += out.serverBytes();
        summationSeconds += out.seconds();
      }
      plan.step(theta, sum, total);
      progress.advance(1);
    }
    progress.finish();
    return new Result(new LinearModel(classes, plan.cols(), theta), plan.noiseMultiplier(), plan.epsilon(),
        c.rounds(), bytesPerParty, serverBytes, summationSeconds, (System.nanoTime() - start) / 1e9);
  }

  /**
   * Adds to {@code g} the sum over a Poisson sample (rate q) of the party's records of the softmax
   * cross-entropy gradients, each clipped to L2 norm C. The gradient of one record is the outer
   * product (p - e_y) x^T, whose norm is |p - e_y| |x|.
   *
   * <p>The sample is drawn by geometric skips: the gap before the next sampled record is
   * floor(ln U / ln(1 - q)), U uniform in (0, 1], which includes each record independently with
   * probability q (up to floating-point rounding, as for any sampler on doubles) while drawing only
   * about q n random numbers instead of n.
   */
  static void addClippedGradients(DesignMatrix m, double[] theta, int classes, double clip, double q,
      RandomBits rng, double[] g) {
    int cols = m.cols();
    double[] p = new double[classes];
    double logMiss = q < 1 ? Math.log1p(-q) : Double.NEGATIVE_INFINITY;
    int rows = m.rows();
    for (int i = next(rng, -1, logMiss, rows); i < rows; i = next(rng, i, logMiss, rows)) {
      double max = Double.NEGATIVE_INFINITY;
      for (int k = 0; k < classes; k++) {
        p[k] = m.dot(i, theta, k * cols);
        max = Math.max(max, p[k]);
      }
      double z = 0;
      for (int k = 0; k < classes; k++) {
        p[k] = Math.exp(p[k] - max);
        z += p[k];
      }
      double norm2 = 0;
      int y = m.label(i);
      for (int k = 0; k < classes; k++) {
        p[k] = p[k] / z - (k == y ? 1 : 0);
        norm2 += p[k] * p[k];
      }
      double norm = Math.sqrt(norm2) * m.rowNorm(i);
      double f = norm > clip ? clip / norm : 1;
      for (int k = 0; k < classes; k++) {
        if (p[k] != 0) {
          m.axpy(i, f * p[k], g, k * cols);
        }
      }
    }
  }

  /** The indices a Poisson sample of {@code rows} records at rate q picks (for tests of the sampler). */
  static int[] sampleForTesting(int rows, double q, RandomBits rng) {
    double logMiss = q < 1 ? Math.log1p(-q) : Double.NEGATIVE_INFINITY;
    java.util.stream.IntStream.Builder b = java.util.stream.IntStream.builder();
    for (int i = next(rng, -1, logMiss, rows); i < rows; i = next(rng, i, logMiss, rows)) {
      b.add(i);
    }
    return b.build().toArray();
  }

  /** The next sampled row after {@code i} (or {@code rows} when there is none). */
  private static int next(RandomBits rng, int i, double logMiss, int rows) {
    if (logMiss == Double.NEGATIVE_INFINITY) {
      return i + 1; // q = 1: every record
    }
    double skip = Math.floor(Math.log(rng.nextDoubleNonZero()) / logMiss);
    return skip >= rows - i - 1 ? rows : i + 1 + (int) skip;
  }

  /** 32 bits when they leave at least 16 fractional bits, else 64 (or the ring asked for). */
  static FixedPointEncoding encoding(int ringBits, double bound, int parties) {
    if (ringBits != 0) {
      return FixedPointEncoding.forBound(ringBits, bound, parties, 40);
    }
    try {
      FixedPointEncoding e = FixedPointEncoding.forBound(32, bound, parties, 40);
      if (e.fractionalBits() >= 16) {
        return e;
      }
    } catch (IllegalArgumentException e) {
      // fall through to 64 bits
    }
    return FixedPointEncoding.forBound(64, bound, parties, 40);
  }
}
