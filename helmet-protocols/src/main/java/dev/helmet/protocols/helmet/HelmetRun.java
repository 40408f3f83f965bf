package dev.helmet.protocols.helmet;

import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Progress;
import dev.helmet.core.util.Version;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.model.ReleasedModel;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Runs one blind-averaging job end to end in-process: partition, local training, one noised
 * summation, evaluation on the test data, and optionally the non-private centralized reference
 * trained on the same pooled points with the same objective.
 */
public final class HelmetRun {
  private HelmetRun() {}

  /** Wall times of the phases, in seconds. */
  public record Timings(double partition, double training, double release, double reference, double evaluation) {
    public double total() {
      return partition + training + release + reference + evaluation;
    }
  }

  /**
   * The result.
   *
   * @param model the released model with its ledger and provenance
   * @param release details of the summation and the privacy arithmetic
   * @param test evaluation of the released model on the test data
   * @param draws evaluations of every noise draw (the first is {@code test}); more than one only when
   *     the job asked to measure the noise's effect: each draw is a separate release of the same
   *     local models and would cost privacy again if published
   * @param reference evaluation of the non-private reference, or null
   * @param partition the partition used
   * @param timings phase wall times
   */
  public record Report(
      ReleasedModel model,
      BlindAveraging.Release release,
      Evaluation test,
      java.util.List<Evaluation> draws,
      Evaluation reference,
      Partition partition,
      Timings timings) {}

  /** Runs {@code job}; {@code noise} is {@link NoiseFactory#secure()} outside tests. */
  public static Report run(HelmetJob job, NoiseFactory noise, Progress progress) {
    return run(job, noise, progress, 1);
  }

  /**
   * Runs {@code job} and evaluates {@code draws} independent noise draws on the same local models
   * (noise is post-processing of the trained models, so training once suffices). The report's model
   * and ledger are the first draw's; the others are only evaluated, never returned.
   */
  public static Report run(HelmetJob job, NoiseFactory noise, Progress progress, int draws) {
    dev.helmet.core.util.Checks.positive("noise draws", draws);
    long t0 = System.nanoTime();
    SplittableRandom root = new SplittableRandom(job.seed());
    Partition partition = job.partition().split(job.train(), root.split());
    long trainSeed = root.nextLong();
    long t1 = System.nanoTime();
    LocalModels locals = BlindAveraging.trainLocal(job.train(), partition, job.preprocessing(), job.learner(),
        trainSeed, job.threads(), progress);
    long t2 = System.nanoTime();
    BlindAveraging.Release release = BlindAveraging.release(locals, job.privacy(), job.summation(), noise,
        job.noise(), job.ringBits(), job.threads(), progress);
    long t3 = System.nanoTime();
    Evaluation reference = null;
    DesignMatrix test = job.preprocessing().design(job.test());
    if (job.reference()) {
      progress.start("training the non-private centralized reference", 1);
      Learner learner = locals.learner();
      LinearModel ref = learner.train(job.preprocessing().design(job.train(), partition.pooled()),
          new SplittableRandom(root.nextLong()));
      reference = Evaluation.of(test.labels(), ref.predict(test), job.train().numClasses());
      progress.advance(1);
      progress.finish();
    }
    long t4 = System.nanoTime();
    Evaluation eval = Evaluation.of(test.labels(), release.model().predict(test), job.train().numClasses());
    java.util.List<Evaluation> all = new java.util.ArrayList<>();
    all.add(eval);
    for (int d = 1; d < draws; d++) {
      BlindAveraging.Release other = BlindAveraging.release(locals, job.privacy(), job.summation(), noise,
          job.noise(), job.ringBits(), job.threads(), progress);
      all.add(Evaluation.of(test.labels(), other.model().predict(test), job.train().numClasses()));
    }
    long t5 = System.nanoTime();

    Map<String, Object> provenance = new LinkedHashMap<>();
    provenance.put("helmet_version", Version.get());
    provenance.put("created", Instant.now().toString());
    // Provenance names the data's source, never a digest or statistic of it: a hash of private data
    // lets anyone holding the model test guesses of a record, and an accuracy on private data is a
    // release the guarantee does not cover (docs/privacy.md).
    provenance.put("dataset", job.train().name());
    provenance.put("partition", partition.description());
    provenance.put("parties", partition.count());
    provenance.put("seed", job.seed());
    provenance.put("protocol", job.summation().name());
    provenance.put("noise", job.noise().id());
    ReleasedModel model = new ReleasedModel(release.model(), job.preprocessing(), job.train().labelSet(),
        job.train().dimension(), job.learner(), release.ledger(), provenance);
    Timings timings = new Timings(secs(t0, t1), secs(t1, t2), secs(t2, t3), secs(t3, t4), secs(t4, t5));
    return new Report(model, release, eval, all, reference, partition, timings);
  }

  private static double secs(long a, long b) {
    return (b - a) / 1e9;
  }
}
