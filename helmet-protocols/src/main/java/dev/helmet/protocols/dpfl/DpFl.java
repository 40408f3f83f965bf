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
   * Runs DP-FL on {@code data} split by {@code partition}.
   *
   * @param summation the secure summation used every round (or the in-the-clear baseline)
   * @param noise the parties' noise (secure outside tests)
   * @param seed seeds the Poisson sampling only when {@code noise} is seeded for tests; otherwise each
   *     party samples its batches from its own SecureRandom (they must stay secret)
   */
  public static Result run(Dataset data, Partition partition, Preprocessing pre, Config c, SecureSummation summation,
      NoiseFactory noise, long seed, int threads, Progress progress) {
    long start = System.nanoTime();
    int w = partition.count();
    int classes = data.numClasses();
    DesignMatrix[] local = new DesignMatrix[w];
    long total = 0;
    for (int i = 0; i < w; i++) {
      local[i] = pre.design(data, partition.indices(i));
      total += local[i].rows();
    }
    int cols = local[0].cols();
    int d = classes * cols;
    // Encoding: a party's clipped sum has per-coordinate magnitude at most n_i C; its noise is
    // clamped at k >= 12 standard deviations. A clamp that fires makes the run differ from the
    // accounted mechanism on an event of probability at most p = rounds W d 2 exp(-k^2/2) (Gaussian
    // tail, union bound), which costs (1 + e^eps) p of delta; the mechanism is calibrated for the rest.
    int maxLocal = 0;
    for (DesignMatrix m : local) {
      maxLocal = Math.max(maxLocal, m.rows());
    }
    // ln((1 + e^eps) count), stable for any eps; the clamp widens beyond 12 standard deviations when
    // that is needed to keep its charge below 1 % of delta.
    double count = (double) c.rounds() * w * d;
    double logCharge = Math.log(count) + c.epsilon() + Math.log1p(Math.exp(-c.epsilon()));
    double logTarget = Math.log(c.delta() / 100);
    double clampStds = Math.max(12, Math.sqrt(2 * (Math.log(2 * (1 + 1e-9)) + logCharge - logTarget)));
    double deltaTail = Math.exp(logCharge + Math.log(2 * (1 + 1e-9)) - clampStds * clampStds / 2);
    double sigma = c.noiseMultiplier(c.delta() - deltaTail);
    double honest = switch (c.split()) {
      case HONEST -> HelmetAccounting.honestContributors(w, w, c.honestFraction());
      case ALL_TRUSTED -> w;
      case SQRT_W_PENALTY -> 1;
    };
    if (honest <= 0) {
      throw new IllegalArgumentException("honest fraction " + c.honestFraction() + " leaves no honest party");
    }
    double partyStd = sigma * c.clip() / Math.sqrt(honest);
    double bound = maxLocal * c.clip() + clampStds * partyStd;
    FixedPointEncoding enc = encoding(c.ringBits(), bound, w);
    double expectedBatch = c.samplingRate() * total;
    double[] theta = new double[d];
    // The batches must stay secret (amplification by subsampling assumes no one knows them): each
    // party samples from its own SecureRandom; only test runs with seeded noise seed them too.
    SplittableRandom root = new SplittableRandom(seed);
    RandomBits[] sampling = new RandomBits[w];
    for (int i = 0; i < w; i++) {
      sampling[i] = noise.isSecure() ? RandomBits.secure() : RandomBits.insecureForTesting(root.nextLong());
    }
    long bytesPerParty = 0;
    long serverBytes = 0;
    double summationSeconds = 0;
    progress.start("DP-FL: " + c.rounds() + " rounds of " + w + " parties through " + summation.name(), c.rounds());
    for (int round = 0; round < c.rounds(); round++) {
      long[][] inputs = new long[w][];
      int roundIndex = round;
      double[] snapshot = theta.clone();
      Parallel.forEach(threads, w, i -> {
        double[] g = clippedGradientSum(local[i], snapshot, classes, c.clip(), c.samplingRate(),
            sampling[i]);
        GaussianNoise gn = noise.gaussian(roundIndex * w + i);
        gn.addTo(g, partyStd);
        long[] e = new long[d];
        for (int j = 0; j < d; j++) {
          e[j] = enc.encode(Math.max(-bound, Math.min(bound, g[j])));
        }
        inputs[i] = e;
      });
      SummationOutcome out = summation.run(new SummationSpec(w, d, enc, w), i -> inputs[i], Progress.NONE);
      if (out.status() != SummationOutcome.Status.COMPLETED) {
        throw new IllegalStateException("round " + (round + 1) + ": the summation aborted (" + out.abortReason()
            + "); nothing further is released");
      }
      double[] sum = enc.decode(out.sum());
      for (int j = 0; j < d; j++) {
        theta[j] -= c.learningRate() * sum[j] / expectedBatch;
      }
      bytesPerParty += out.bytesPerParty();
      serverBytes += out.serverBytes();
      summationSeconds += out.seconds();
      progress.advance(1);
    }
    progress.finish();
    double eps = c.accountants().get().compose(c.event(sigma)).epsilon(c.delta() - deltaTail);
    return new Result(new LinearModel(classes, cols, theta), sigma, eps, c.rounds(), bytesPerParty, serverBytes,
        summationSeconds, (System.nanoTime() - start) / 1e9);
  }

  /**
   * The sum over a Poisson sample (rate q) of the party's records of the softmax cross-entropy
   * gradients, each clipped to L2 norm C. The gradient of one record is the outer product (p - e_y)
   * x^T, whose norm is |p - e_y| |x|.
   */
  static double[] clippedGradientSum(DesignMatrix m, double[] theta, int classes, double clip, double q,
      RandomBits rng) {
    int cols = m.cols();
    double[] g = new double[classes * cols];
    double[] p = new double[classes];
    for (int i = 0; i < m.rows(); i++) {
      if (rng.nextDouble() >= q) {
        continue;
      }
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
    return g;
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
