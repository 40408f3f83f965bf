package dev.helmet.protocols.blind;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.util.Progress;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Algorithms;
import dev.helmet.protocols.algorithm.Common;
import dev.helmet.protocols.config.StrictNode;
import dev.helmet.protocols.shared.LinearInputs;
import dev.helmet.protocols.simulation.Simulation;
import dev.helmet.secagg.summation.SecureSummation;
import java.util.Locale;
import java.util.Map;

/**
 * Blind-averaging runs for tests, the way the runners make them: the spec from {@code
 * Algorithms.named("helmet").configure}, every party prepared (trained) by {@link
 * Simulation#prepare}, and each release a {@link Simulation#run} of that preparation under the
 * release's privacy target (a party's training does not depend on the target, so one preparation
 * serves many releases, as in the experiment runner).
 */
final class BlindAveragingRuns {
  private BlindAveragingRuns() {}

  /** Helmet's settings for {@code learner} on {@code pre} with {@code noise}, as a configuration mapping. */
  static ObjectNode config(LearnerConfig learner, Preprocessing pre, NoiseKind noise) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    ObjectNode l = o.putObject("learner");
    l.put("kind", learner.kind().id());
    l.put("lambda", learner.lambda());
    l.put("radius", learner.radius());
    l.put("epochs", learner.epochs());
    l.put("batch_size", learner.batchSize());
    l.put("smoothness", learner.smoothness().name().toLowerCase(Locale.ROOT));
    l.put("huber_h", learner.huberH());
    l.put("sensitivity", learner.sensitivity().name().toLowerCase(Locale.ROOT));
    LinearInputs.putPreprocessing(l, pre);
    o.put("noise", noise.id());
    return o;
  }

  /** The registry's helmet spec for these settings on rows of {@code features} features and {@code classes} classes. */
  static AlgorithmSpec spec(int features, int classes, LearnerConfig learner, Preprocessing pre, NoiseKind noise,
      BlindAveragingPrivacy privacy, int ringBits) {
    Common common = new Common(privacy.epsilon(), privacy.delta(), privacy.honestFraction(), privacy.protection(),
        ringBits, features, classes);
    AlgorithmSpec spec = Algorithms.named("helmet").configure(new StrictNode("test", config(learner, pre, noise),
        IllegalArgumentException::new), common);
    if (!((BlindAveragingSpec) spec).learner().equals(learner) || !spec.preprocessing().equals(pre)) {
      throw new AssertionError("the configuration did not read back: " + spec.describe());
    }
    return spec;
  }

  /**
   * Every party of {@code partition} trained on its rows of {@code data} (seeds from {@code seed}'s
   * stream, on {@code threads} threads); the spec's privacy target is a placeholder that {@link
   * #release} replaces.
   */
  static Simulation.Prepared prepare(Dataset data, Partition partition, Preprocessing pre, LearnerConfig learner,
      long seed, int threads) {
    AlgorithmSpec spec = spec(data.dimension(), data.numClasses(), learner, pre, NoiseKind.GAUSSIAN,
        BlindAveragingPrivacy.of(1, 1e-5, 1), 0);
    return Simulation.prepare(spec, data, partition, seed, threads, Progress.NONE);
  }

  /** Party {@code party}'s trained, not yet noised model. */
  static LinearModel local(Simulation.Prepared p, int party) {
    return ((BlindAveragingSpec.Trained) p.locals().get(party)).model();
  }

  /**
   * One release of the prepared parties at {@code privacy} with {@code noise} kind, through {@code
   * summation}: the runners' {@link Simulation#run} with the fewest contributors {@code privacy} sets.
   *
   * @throws IllegalStateException if the summation aborted (nothing is released)
   */
  static Simulation.Result release(Simulation.Prepared p, BlindAveragingPrivacy privacy, SecureSummation summation,
      NoiseFactory noiseSource, NoiseKind noise, int ringBits, int threads) {
    AlgorithmSpec base = p.spec();
    AlgorithmSpec spec = spec(base.common().features(), base.common().classes(), ((BlindAveragingSpec) base).learner(),
        base.preprocessing(), noise, privacy, ringBits);
    Simulation.Prepared under = new Simulation.Prepared(spec, p.locals(), p.sizes(), p.seeds(), p.partition());
    return Simulation.run(under, privacy.minContributors(p.parties()), summation, noiseSource, threads, Progress.NONE);
  }

  /** As {@link #release}, with continuous Gaussian noise (the papers' mechanism). */
  static Simulation.Result release(Simulation.Prepared p, BlindAveragingPrivacy privacy, SecureSummation summation,
      NoiseFactory noiseSource, int ringBits, int threads) {
    return release(p, privacy, summation, noiseSource, NoiseKind.GAUSSIAN, ringBits, threads);
  }

  /** A number of the plan's public summary ({@code sensitivity}, {@code scaled_sensitivity}, ...). */
  static double summary(Simulation.Result r, String key) {
    Map<String, Object> m = r.plan().summary();
    return ((Number) m.get(key)).doubleValue();
  }
}
