package dev.helmet.protocols.dpfl;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Parallel;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.GaussianNoise;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.privacy.noise.RandomBits;
import dev.helmet.secagg.summation.SecureSummation;
import dev.helmet.secagg.summation.SummationOutcome;
import dev.helmet.secagg.summation.SummationSpec;
import java.util.SplittableRandom;

/**
 * DP-FL in-process: every party of a partition runs the rounds of {@link DpFl.Plan} on its own
 * rows, through a summation or (for experiments) with the summed noise drawn at once.
 */
public final class DpFlSimulation {
  private DpFlSimulation() {}

  /** How the in-process simulation forms each round's sum. */
  public enum Mode {
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
      dev.helmet.privacy.ledger.PrivacyLedger ledger,
      dev.helmet.privacy.ledger.PrivacyCharge charge,
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
  public static Result run(Dataset data, Partition partition, Preprocessing pre, DpFl.Config c, SecureSummation summation,
      NoiseFactory noise, long seed, int threads, Progress progress) {
    return run(data, partition, pre, c, Mode.PER_PARTY, summation, noise, seed, threads, progress);
  }

  /**
   * Runs DP-FL; with {@link Mode#AGGREGATE} the summation is not used (may be null).
   */
  public static Result run(Dataset data, Partition partition, Preprocessing pre, DpFl.Config c, Mode simulation,
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
    DpFl.Plan plan = DpFl.Plan.of(c, sizes, w, classes, local[0].cols());
    int d = plan.length();
    double[] theta = new double[d];
    // The batches must stay secret (amplification by subsampling assumes no one knows them): each
    // party samples from its own SecureRandom; only test runs with seeded noise seed them too.
    SplittableRandom root = new SplittableRandom(seed);
    RandomBits[] sampling = new RandomBits[w];
    GaussianNoise[] partyNoise = new GaussianNoise[w];
    for (int i = 0; i < w; i++) {
      sampling[i] = noise.isSecure() ? RandomBits.secure() : RandomBits.insecureForTesting(root.nextLong());
      if (simulation == Mode.PER_PARTY) {
        partyNoise[i] = noise.gaussian(i);
      }
    }
    long bytesPerParty = 0;
    long serverBytes = 0;
    double summationSeconds = 0;
    boolean aggregate = simulation == Mode.AGGREGATE;
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
            ClippedGradients.add(local[i], snapshot, classes, c.clip(), c.samplingRate(), sampling[i], acc);
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
    dev.helmet.privacy.ledger.PrivacyLedger ledger = aggregate
        ? plan.ledger("simulated (the parties' noise drawn as one Gaussian; no messages)", false)
        : plan.ledger(summation.name(), summation.revealsInputs());
    return new Result(new LinearModel(classes, plan.cols(), theta), ledger, plan.charge(), plan.noiseMultiplier(),
        plan.epsilon(),
        c.rounds(), bytesPerParty, serverBytes, summationSeconds, (System.nanoTime() - start) / 1e9);
  }

}
