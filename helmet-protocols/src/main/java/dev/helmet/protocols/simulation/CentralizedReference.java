package dev.helmet.protocols.simulation;

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
public final class CentralizedReference {

  /**
   * The reference's quality and what it was, in words; for an algorithm with a training objective
   * also the optimality gaps of the released model and of the reference on the pooled data (else
   * NaN), and how theta* was found, or why the gap was not computed ({@code gapSkipped}, else null).
   */
  public record Outcome(Evaluation evaluation, int epochs, String description, double gap, double referenceGap,
      String optimum, String gapSkipped) {}

  /**
   * The optimality gap's solve runs without being asked while its worst case is at most this many
   * multiply-adds, some 10-40 s here: one step of MNIST's softmax objective on 60,000 rows (4.7e8)
   * took about 1 s on 2 shared cores, so its 20,000 steps could take hours; every tabular set's
   * (breast-cancer 3.5e8 in all) fits with room to spare ...
   */
  public static final double GAP_WORK_UNASKED = 2e10;

  /** ... or at most this many times the private run's own work on the same objective. */
  public static final double GAP_RUN_MULTIPLE = 10;

  private CentralizedReference() {}

  /**
   * Why the optimality gap's solve is not run unasked (its worst case costs more than {@link
   * #GAP_WORK_UNASKED} and more than {@link #GAP_RUN_MULTIPLE} times the run), or null when it is
   * cheap enough (or the algorithm reports no objective).
   */
  public static String gapTooCostly(AlgorithmSpec spec, long pooledRows) {
    dev.helmet.core.learn.NoisyDescent o = spec.objective();
    if (o == null) {
      return null;
    }
    double worst = dev.helmet.protocols.algorithm.OptimalityGap.worstCaseWork(o, pooledRows);
    double run = dev.helmet.protocols.algorithm.OptimalityGap.runWork(o, pooledRows);
    if (worst <= Math.max(GAP_WORK_UNASKED, GAP_RUN_MULTIPLE * run)) {
      return null;
    }
    return String.format(java.util.Locale.ROOT, "not computed: solving for theta* takes up to %,d full-batch "
        + "gradient steps on the %,d pooled rows, about %.0f times this run's work; --optimality-gap computes it "
        + "anyway (progress on stderr)", dev.helmet.protocols.algorithm.OptimalityGap.MAX_ITERATIONS, pooledRows,
        worst / run);
  }

  /**
   * @param testRows {@code test} after the algorithm's preprocessing
   * @param released the released model, whose optimality gap is measured on the pooled rows
   * @param optimalityGap true: always solve for the optimality gap; false: never; null: when {@link
   *     #gapTooCostly} finds it cheap enough
   * @param progress the optimum solve's steps
   * @param warnings receives the line saying why the reference was skipped, if it is
   * @return the reference, or null when the pooled data would not fit in the heap
   */
  public static Outcome train(AlgorithmSpec spec, Dataset train, int[] pooled, DesignMatrix testRows, Dataset test,
      SplittableRandom rng, dev.helmet.core.learn.Model released, Boolean optimalityGap,
      dev.helmet.core.util.Progress progress, java.util.function.Consumer<String> warnings) {
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
      warnings.accept(String.format("helmet: note: the non-private reference was skipped: the pooled data needs %d MB "
          + "of heap, %d MB are free (more heap with HELMET_JAVA_OPTS=-Xmx..., or --no-reference)", need >> 20,
          free >> 20));
      return null;
    }
    DesignMatrix rows = spec.preprocessing().design(train, pooled);
    progress.start("training the non-private centralized reference", 1);
    AlgorithmSpec.Reference ref = spec.reference(rows, rng);
    progress.advance(1);
    progress.finish();
    Evaluation eval = Evaluation.of(ref.model(), testRows, test, spec.preprocessing());
    if (spec.objective() == null) {
      return new Outcome(eval, ref.epochs(), ref.description(), Double.NaN, Double.NaN, null, null);
    }
    String skipped = Boolean.FALSE.equals(optimalityGap) ? "not computed (--no-optimality-gap)"
        : Boolean.TRUE.equals(optimalityGap) ? null : gapTooCostly(spec, rows.rows());
    if (skipped != null) {
      return new Outcome(eval, ref.epochs(), ref.description(), Double.NaN, Double.NaN, null, skipped);
    }
    progress.start("solving for theta* (the optimality gap's non-private optimum), at most "
        + dev.helmet.protocols.algorithm.OptimalityGap.MAX_ITERATIONS + " steps",
        dev.helmet.protocols.algorithm.OptimalityGap.MAX_ITERATIONS);
    dev.helmet.protocols.algorithm.OptimalityGap gap;
    try {
      gap = dev.helmet.protocols.algorithm.OptimalityGap.solve(spec, rows, progress);
    } finally {
      progress.finish();
    }
    return new Outcome(eval, ref.epochs(), ref.description(), gap.of(released, rows), gap.of(ref.model(), rows),
        gap.describe(), null);
  }
}
