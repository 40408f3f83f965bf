package dev.helmet.cli;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.learn.Learner;
import dev.helmet.core.learn.LearnerConfig;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import java.util.SplittableRandom;

/**
 * The non-private centralized reference on the pooled data of all parties, evaluated on the test
 * rows: the algorithm's own counterpart when it has one ({@link AlgorithmSpec#reference}), else the
 * local learner of {@link AlgorithmSpec#learner()} (Helmet's). The learner runs until an epoch moves
 * the model by less than {@link #TOLERANCE} of its norm (at most the configured epochs): on pooled
 * data the step size {@code 1/(Lambda t)} has settled the model long before the epoch count that
 * small local data sets need (MNIST softmax: 82.78 % after 1 epoch, 82.74 % after 50).
 */
final class CentralizedReference {
  /** Stop once an epoch changes the model by less than 0.1 % of its norm. */
  static final double TOLERANCE = 1e-3;

  /** The reference's accuracy and what it was, in words. */
  record Outcome(Evaluation evaluation, int epochs, String description) {}

  private CentralizedReference() {}

  static Outcome train(AlgorithmSpec spec, Dataset train, int[] pooled, DesignMatrix test, SplittableRandom rng) {
    // The pooled matrix of every party's rows can outgrow a small heap (60,000 HOG rows: 620 MB).
    // The reference comes after the release, and running out of memory would lose the released
    // model: decline it instead, saying why.
    Runtime rt = Runtime.getRuntime();
    long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    long need = spec.preprocessing().designBytes(train, pooled);
    if (need > 0.6 * free) {
      System.gc();
      free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    }
    if (need > 0.6 * free) {
      System.err.printf("helmet: note: the non-private reference was skipped: the pooled data needs %d MB of heap, "
          + "%d MB are free (more heap with HELMET_JAVA_OPTS=-Xmx..., or --no-reference)%n", need >> 20, free >> 20);
      System.err.flush();
      return null;
    }
    DesignMatrix rows = spec.preprocessing().design(train, pooled);
    AlgorithmSpec.Reference own = spec.reference(rows);
    if (own != null) {
      return new Outcome(Evaluation.of(test.labels(), own.model().predict(test), train.numClasses()), 0,
          own.description());
    }
    LearnerConfig config = spec.learner();
    Learner learner = new Learner(config, spec.preprocessing().inputNormBound(), train.dimension(), train.numClasses());
    Learner.Fit fit = learner.trainUntilSettled(rows, rng, TOLERANCE);
    Evaluation eval = Evaluation.of(test.labels(), fit.model().predict(test), train.numClasses());
    String same = spec.algorithm().id().equals("helmet") ? "same hyperparameters"
        : "Helmet's learner: Lambda " + num(config.lambda()) + ", R " + num(config.radius());
    return new Outcome(eval, fit.epochs(), "non-private centralized (" + config.kind().id() + ", " + same
        + ", settled after " + fit.epochs() + " of " + config.epochs() + " epochs) on the pooled data");
  }

  private static String num(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }
}
