package dev.helmet.cli;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import java.util.SplittableRandom;

/**
 * The non-private centralized reference on the pooled data of all parties, evaluated on the test
 * rows: the algorithm's own counterpart ({@link AlgorithmSpec#reference}; for Helmet the same
 * learner run until its model settles: MNIST softmax 82.78 % after 1 epoch, 82.74 % after 50).
 */
final class CentralizedReference {

  /**
   * The reference's quality and what it was, in words; for an algorithm with a training objective
   * also the optimality gaps of the released model and of the reference on the pooled data (else
   * NaN), and how theta* was found.
   */
  record Outcome(Evaluation evaluation, int epochs, String description, double gap, double referenceGap,
      String optimum) {}

  private CentralizedReference() {}

  /**
   * @param testRows {@code test} after the algorithm's preprocessing
   * @param released the released model, whose optimality gap is measured on the pooled rows
   */
  static Outcome train(AlgorithmSpec spec, Dataset train, int[] pooled, DesignMatrix testRows, Dataset test,
      SplittableRandom rng, dev.helmet.core.learn.Model released) {
    // The pooled matrix of every party's rows can outgrow a small heap (60,000 HOG rows: 620 MB).
    // The reference comes after the release, and running out of memory would lose the released
    // model: decline it instead, saying why.
    Runtime rt = Runtime.getRuntime();
    long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    // The dense size bounds the matrix from above; only when that does not fit is it worth a pass
    // that counts the non-zeros (a sparse matrix may still fit).
    long dense = 8L * pooled.length * (train.dimension() + 1) + 4L * pooled.length;
    long need = dense <= 0.6 * free ? dense : spec.preprocessing().designBytes(train, pooled);
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
    AlgorithmSpec.Reference ref = spec.reference(rows, rng);
    Evaluation eval = Evaluation.of(ref.model(), testRows, test, spec.preprocessing());
    dev.helmet.protocols.algorithm.OptimalityGap gap = dev.helmet.protocols.algorithm.OptimalityGap.solve(spec, rows);
    if (gap == null) {
      return new Outcome(eval, ref.epochs(), ref.description(), Double.NaN, Double.NaN, null);
    }
    return new Outcome(eval, ref.epochs(), ref.description(), gap.of(released, rows), gap.of(ref.model(), rows),
        gap.describe());
  }
}
