package dev.helmet.protocols.helmet;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.ledger.PrivacyLedger;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Distributed DP-Helmet's blind averaging (Helmet Alg. 3; SPEC 1.3): every party trains locally
 * (phase I, {@link #trainLocal}), adds calibrated Gaussian noise once, and one summation averages
 * the noised models (phase II, {@link #release}). Nothing else is communicated.
 *
 * <p>The noised model is scaled by {@code n_i / w}, clamped per coordinate to a public bound
 * (post-processing, and almost never active: the bound is 10 noise standard deviations above the
 * largest possible value), encoded into the ring and summed. The released model is the decoded sum
 * divided by the mean local size, i.e. the size-weighted average of the noised local models. It is
 * not re-projected per party (SPEC 1.3: that would break the argument).
 */
public final class BlindAveraging {
  /** Noise tail bound in standard deviations for the per-coordinate clamp. */
  static final double TAIL_STDS = 10;

  /**
   * An upper bound on P(|N(0,1)| > 10) = erfc(10 / sqrt 2) = 1.5240e-23. A clamp that fires makes
   * the mechanism differ from the Gaussian one, so the union bound over all clamped values is
   * charged to delta.
   */
  static final double TAIL_PROBABILITY = 1.53e-23;

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
    runParallel(threads, () -> IntStream.range(0, w).parallel().forEach(i -> {
      models[i] = learner.train(pre.design(data, partition.indices(i)), new SplittableRandom(seeds[i]));
      progress.advance(1);
    }));
    progress.finish();
    int[] sizes = new int[w];
    for (int i = 0; i < w; i++) {
      sizes[i] = partition.size(i);
    }
    return new LocalModels(Arrays.asList(models), sizes, learner, pre, partition.description());
  }

  /** The outcome of phase II. */
  public record Release(
      LinearModel model,
      PrivacyLedger ledger,
      SummationOutcome summation,
      FixedPointEncoding encoding,
      double noiseMultiplier,
      double sensitivity,
      double scaledSensitivity) {}

  /**
   * Phase II: noise, scale, encode, sum once, decode.
   *
   * @param noise the noise samplers of the parties (secure in production; seeded only in tests)
   * @param ringBits the summation ring: 32 or 64, or 0 to choose (32 bits when they leave at least 20
   *     fractional bits, else 64)
   * @throws IllegalStateException if the summation aborted (nothing is released)
   */
  public static Release release(
      LocalModels locals,
      HelmetPrivacy privacy,
      SecureSummation summation,
      NoiseFactory noise,
      int ringBits,
      int threads) {
    Learner learner = locals.learner();
    int w = locals.parties();
    int m = privacy.minContributors() == 0 ? w : privacy.minContributors();
    Checks.inRange("min contributors", m, 1, w);
    double t = privacy.honestFraction();
    double plannedHonest = HelmetAccounting.honestContributors(m, w, t);
    if (plannedHonest <= 0) {
      throw new IllegalArgumentException(String.format(
          "with %d of %d parties contributing and honest fraction %s, no honest party's noise is "
              + "guaranteed; raise the honest fraction or the minimum number of contributors", m, w, t));
    }
    int releases = learner.releases();
    int rows = learner.outputRows();
    int cols = learner.inputDimension();
    int[] sizes = locals.sizes();
    // delta is split: the clamp below may fire on some of the w * rows * cols noised values with
    // total probability at most deltaTail; the Gaussian mechanism gets the rest.
    double deltaTail = (double) w * rows * cols * TAIL_PROBABILITY;
    if (deltaTail >= privacy.delta() / 2) {
      throw new IllegalArgumentException("delta " + privacy.delta() + " is too small for " + w + " parties x "
          + rows * cols + " parameters (the clamp tail alone needs " + deltaTail + ")");
    }
    double sigma = HelmetAccounting.noiseMultiplier(privacy.epsilon(), privacy.delta() - deltaTail, releases);
    double scaled = HelmetAccounting.scaledSensitivity(learner, privacy.protection(), sizes);
    // Per-coordinate std of the noise on each scaled contribution (n_i / w) f_priv.
    double tau = sigma * scaled / (w * Math.sqrt(plannedHonest));
    double radius = learner.config().radius();
    double bound = (double) locals.maxSize() / w * radius + TAIL_STDS * tau;
    // Round to a grid at least 2^10 times coarser than the floating-point resolution of the values
    // (ulp(bound) = 2^(exponent - 52)), so the low-order bits of the floating-point noise, which can
    // leak the unnoised value (Mironov 2012), do not survive encoding.
    int maxFractionalBits = 42 - Math.getExponent(bound);
    FixedPointEncoding encoding = chooseEncoding(ringBits, bound, w, maxFractionalBits);

    List<long[]> inputs = new ArrayList<>(Arrays.asList(new long[w][]));
    runParallel(threads, () -> IntStream.range(0, w).parallel().forEach(i -> {
      int n = sizes[i];
      // Alg. 3 line by line: f_priv = f + N(0, (sigma S / (n_i sqrt(h)))^2 I), input (n_i / w) f_priv.
      double[] f = locals.models().get(i).weights().clone();
      GaussianNoise sampler = noise.gaussian(i);
      sampler.addTo(f, sigma * scaled / (n * Math.sqrt(plannedHonest)));
      double scale = (double) n / w;
      long[] enc = new long[f.length];
      for (int j = 0; j < f.length; j++) {
        double v = Math.max(-bound, Math.min(bound, scale * f[j]));
        enc[j] = encoding.encode(v);
      }
      inputs.set(i, enc);
    }));
    SummationSpec spec = new SummationSpec(w, rows * cols, encoding, m);
    SummationOutcome outcome = summation.run(spec, inputs::get);
    if (outcome.status() != SummationOutcome.Status.COMPLETED) {
      throw new IllegalStateException("the summation aborted (" + outcome.status() + ", "
          + outcome.contributors().size() + " of " + w + " contributed, " + m + " needed); nothing was released");
    }
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

    int contributors = outcome.contributors().size();
    double actualHonest = HelmetAccounting.honestContributors(contributors, w, t);
    double achievedSigma = HelmetAccounting.achievedNoiseMultiplier(sigma, plannedHonest, actualHonest);
    double achievedEps = achievedSigma == 0
        ? Double.POSITIVE_INFINITY
        : HelmetAccounting.epsilon(achievedSigma, releases, privacy.delta() - deltaTail);
    // The largest per-party sensitivity of one release, before the n_i / w scaling.
    double perPartySensitivity = 0;
    for (int n : sizes) {
      perPartySensitivity = Math.max(perPartySensitivity,
          HelmetAccounting.scaledSensitivity(learner, privacy.protection(), new int[] {n}) / n);
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("target_epsilon", privacy.epsilon());
    details.put("noise_multiplier", sigma);
    details.put("achieved_noise_multiplier", achievedSigma);
    details.put("releases", releases);
    details.put("sensitivity", perPartySensitivity);
    details.put("scaled_sensitivity", scaled);
    details.put("noise_std_per_coordinate", tau);
    details.put("lipschitz", learner.lipschitz());
    details.put("smoothness", learner.smoothness());
    details.put("lambda", learner.config().lambda());
    details.put("radius", radius);
    details.put("input_norm_bound", locals.preprocessing().inputNormBound());
    details.put("honest_fraction", t);
    details.put("parties", w);
    details.put("contributors", contributors);
    details.put("min_contributors", m);
    details.put("min_local_size", locals.minSize());
    details.put("max_local_size", locals.maxSize());
    details.put("local_sizes_public", true);
    details.put("delta_clamp_tail", deltaTail);
    details.put("noise_sampler", noise.isSecure()
        ? "continuous Gaussian in floating point (Box-Muller on SecureRandom DRBG bits), rounded to a grid "
            + "2^10 times coarser than its float resolution; the guarantee assumes ideal real-valued noise"
        : "continuous Gaussian (SEEDED, NOT SECURE: test only)");
    details.put("summation", summation.name());
    details.put("ring_bits", encoding.ringBits());
    details.put("fractional_bits", encoding.fractionalBits());
    details.put("clamp_bound", bound);
    PrivacyLedger ledger = new PrivacyLedger(
        "helmet-blind-averaging (Gaussian output perturbation, one summation)",
        HelmetAccounting.neighbours(privacy.protection()),
        privacy.protection().describe(),
        HelmetAccounting.event(achievedSigma == 0 ? sigma : achievedSigma, releases).describe(),
        "gaussian-exact (Sommer et al. 2019 Thm 5 / analytic Gaussian)",
        achievedEps,
        privacy.delta(),
        details);
    return new Release(model, ledger, outcome, encoding, sigma, perPartySensitivity, scaled);
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

  /** Runs {@code work} (which uses parallel streams) on a pool of {@code threads} threads. */
  static void runParallel(int threads, Runnable work) {
    ForkJoinPool pool = new ForkJoinPool(threads);
    try {
      pool.submit(work).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException r) {
        throw r;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(c);
    } finally {
      pool.shutdown();
    }
  }
}
