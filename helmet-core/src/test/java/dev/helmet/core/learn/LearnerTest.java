package dev.helmet.core.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.eval.Evaluation;
import dev.helmet.core.eval.StratifiedKFold;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.testdata.TestData;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class LearnerTest {

  private static LearnerConfig config(LearnerKind k, double lambda, double radius, int epochs, int batch) {
    return new LearnerConfig(k, lambda, radius, epochs, batch, SmoothnessBound.TIGHT, 0.1);
  }

  @Test
  void boundsFollowSpec12() {
    double c = 3;
    double cp = Math.sqrt(1 + c * c);
    Learner softmax = new Learner(config(LearnerKind.SOFTMAX, 2, 0.5, 1, 1), cp, 4, 3);
    assertEquals(2 * 0.5 + Math.sqrt(2) * cp, softmax.lipschitz(), 1e-12);
    assertEquals(2 + cp * cp / 2, softmax.smoothness(), 1e-12);
    // Tight (the default): G = sqrt(2) c', the loss's own gradient bound; paper: G = L.
    assertEquals(2 * Math.sqrt(2) * cp / (2 * 10), softmax.sensitivity(10), 1e-12);
    Learner softmaxPaper = new Learner(config(LearnerKind.SOFTMAX, 2, 0.5, 1, 1).withSensitivity(
        SensitivityBound.PAPER), cp, 4, 3);
    assertEquals(2 * (2 * 0.5 + Math.sqrt(2) * cp) / (2 * 10), softmaxPaper.sensitivity(10), 1e-12);
    assertEquals(1, softmax.releases());
    Learner svm = new Learner(config(LearnerKind.SVM, 2, 0.5, 1, 1), cp, 4, 3);
    assertEquals(2 * 0.5 + cp, svm.lipschitz(), 1e-12);
    assertEquals(cp, svm.gradientBound(), 1e-12);
    assertEquals(2 * cp / (2 * 10), svm.sensitivity(10), 1e-12);
    assertEquals(2 + cp * cp / 0.2, svm.smoothness(), 1e-12);
    assertEquals(3, svm.releases());
    Learner lr = new Learner(config(LearnerKind.LOGREG, 2, 0.5, 1, 1), cp, 4, 2);
    assertEquals(2 + cp * cp / 4, lr.smoothness(), 1e-12);
    assertEquals(1, lr.releases()); // binary: one model
    assertEquals(1, lr.outputRows());
  }

  @Test
  void theTightSmoothnessBoundIsNeverLargerThanThePapers() {
    for (LearnerKind k : classifiers()) {
      for (double lambda : new double[] {0.01, 1, 100}) {
        LearnerConfig tight = config(k, lambda, 1, 1, 1);
        LearnerConfig paper = new LearnerConfig(k, lambda, 1, 1, 1, SmoothnessBound.PAPER, 0.1);
        double t = new Learner(tight, 5, 50, 10).smoothness();
        double p = new Learner(paper, 5, 50, 10).smoothness();
        assertTrue(t <= p, k + " lambda " + lambda + ": tight " + t + " > paper " + p);
      }
    }
  }

  /**
   * The distance of one release: the whole matrix for softmax, the largest class row for
   * one-vs-rest (each row is a separate release with the same sensitivity).
   */
  private static double releaseDistance(LearnerKind kind, LinearModel m1, LinearModel m2) {
    if (kind == LearnerKind.SOFTMAX) {
      return m1.distance(m2);
    }
    double dist = 0;
    for (int row = 0; row < m1.rows(); row++) {
      double sq = 0;
      for (int j = 0; j < m1.cols(); j++) {
        double d = m1.weights()[row * m1.cols() + j] - m2.weights()[row * m1.cols() + j];
        sq += d * d;
      }
      dist = Math.max(dist, Math.sqrt(sq));
    }
    return dist;
  }

  /**
   * Property test of the sensitivity theorem (Wu et al. 2017, Lemma 8; SPEC 1.2): for random small
   * data sets D and neighbours D' (one point replaced by an arbitrary other point), trained with the
   * same seed (same permutations), ||T(D) - T(D')|| <= s, per class for one-vs-rest.
   */
  @ParameterizedTest
  @EnumSource(value = LearnerKind.class, names = {"SOFTMAX", "SVM", "LOGREG"})
  void neighbouringDataSetsNeverMoveTheModelByMoreThanTheSensitivity(LearnerKind kind) {
    SplittableRandom r = new SplittableRandom(kind.ordinal() * 1000L + 17);
    double worst = 0;
    int trials = 1500;
    for (int trial = 0; trial < trials; trial++) {
      int n = 2 + r.nextInt(30);
      int p = 1 + r.nextInt(8);
      int k = 2 + r.nextInt(3);
      double c = 0.2 + 5 * r.nextDouble();
      double lambda = Math.exp(Math.log(0.01) + r.nextDouble() * Math.log(1000)); // 0.01 .. 10
      double radius = Math.exp(Math.log(0.05) + r.nextDouble() * Math.log(400)); // 0.05 .. 20
      int epochs = 1 + r.nextInt(15);
      int batch = 1 + r.nextInt(8);
      SmoothnessBound sb = r.nextBoolean() ? SmoothnessBound.TIGHT : SmoothnessBound.PAPER;
      LearnerConfig cfg = new LearnerConfig(kind, lambda, radius, epochs, batch, sb, 0.05 + 0.3 * r.nextDouble());
      Preprocessing pre = new Preprocessing(c, r.nextBoolean());
      Learner learner = new Learner(cfg, pre.inputNormBound(), p, k);
      float[] f = new float[n * p];
      int[] y = new int[n];
      for (int i = 0; i < f.length; i++) {
        f[i] = (float) (3 * r.nextGaussian());
      }
      for (int i = 0; i < n; i++) {
        y[i] = r.nextInt(k);
      }
      float[] f2 = f.clone();
      int[] y2 = y.clone();
      int victim = r.nextInt(n);
      for (int j = 0; j < p; j++) {
        f2[victim * p + j] = (float) (10 * r.nextGaussian()); // an arbitrary replacement, clipped later
      }
      y2[victim] = r.nextInt(k);
      dev.helmet.core.data.LabelSet labels = dev.helmet.core.data.LabelSet.ofIntegers(k);
      DesignMatrix d1 = pre.design(new Dataset("D", f, y, p, labels, null));
      DesignMatrix d2 = pre.design(new Dataset("D'", f2, y2, p, labels, null));
      long seed = r.nextLong();
      LinearModel m1 = learner.train(d1, new SplittableRandom(seed));
      LinearModel m2 = learner.train(d2, new SplittableRandom(seed));
      double s = learner.sensitivity(n);
      double dist = releaseDistance(kind, m1, m2);
      worst = Math.max(worst, dist / s);
      assertTrue(dist <= s * (1 + 1e-9), String.format(
          "%s trial %d: ||T(D)-T(D')|| = %.6g > s = %.6g (n=%d, lambda=%.3g, R=%.3g, epochs=%d, batch=%d)",
          kind, trial, dist, s, n, lambda, radius, epochs, batch));
    }
    System.out.printf("sensitivity property, %s: largest ||T(D)-T(D')|| / s over %d trials = %.4f%n", kind, trials,
        worst);
    assertTrue(worst > 0.01, "the test must exercise neighbours that actually differ");
  }

  /**
   * The bound must hold for every permutation, including the worst: the replaced point sits in a
   * smallest batch in every epoch (data order kept, n not a multiple of the batch size). Random
   * permutations almost never produce this, so the property test above cannot find it. With SPEC
   * 1.2's literal batching ("last one smaller") and s = 2L/(Lambda n), this test fails for all three
   * learners (checked by mutation: up to 1.9 s observed).
   */
  @ParameterizedTest
  @EnumSource(value = LearnerKind.class, names = {"SOFTMAX", "SVM", "LOGREG"})
  void theSensitivityHoldsWhenTheReplacedPointIsAlwaysInASmallestBatch(LearnerKind kind) {
    SplittableRandom r = new SplittableRandom(99 + kind.ordinal());
    double worst = 0;
    for (int trial = 0; trial < 400; trial++) {
      int bs = 2 + r.nextInt(20);
      int n = bs * (1 + r.nextInt(4)) + 1 + r.nextInt(bs - 1); // never a multiple of bs
      int p = 1 + r.nextInt(5);
      int k = 2 + r.nextInt(3);
      // Half the trials in the regime where the bound is nearly tight: a tiny radius keeps the model
      // near 0, so every gradient sits at the Lipschitz bound, and many epochs reach the 1/(Lambda t)
      // steps.
      boolean tight = trial % 2 == 0;
      double lambda = tight ? 0.5 + 1.5 * r.nextDouble() : Math.exp(Math.log(0.05) + r.nextDouble() * Math.log(200));
      double radius = tight ? 0.01 + 0.05 * r.nextDouble() : Math.exp(Math.log(0.01) + r.nextDouble() * Math.log(100));
      int epochs = tight ? 20 + r.nextInt(30) : 1 + r.nextInt(30);
      LearnerConfig cfg = new LearnerConfig(kind, lambda, radius, epochs, bs, SmoothnessBound.TIGHT, 0.1);
      Preprocessing pre = new Preprocessing(0.5 + 2 * r.nextDouble(), true);
      Learner learner = new Learner(cfg, pre.inputNormBound(), p, k);
      float[] f = new float[n * p];
      int[] y = new int[n];
      for (int i = 0; i < f.length; i++) {
        f[i] = (float) r.nextGaussian();
      }
      for (int i = 0; i < n; i++) {
        y[i] = r.nextInt(k);
      }
      float[] f2 = f.clone();
      int[] y2 = y.clone();
      int victim = n - 1; // the last batch is one of the smallest
      for (int j = 0; j < p; j++) {
        f2[victim * p + j] = -f[victim * p + j];
      }
      y2[victim] = (y[victim] + 1) % k;
      dev.helmet.core.data.LabelSet labels = dev.helmet.core.data.LabelSet.ofIntegers(k);
      LinearModel m1 = learner.train(pre.design(new Dataset("D", f, y, p, labels, null)), new SplittableRandom(1), false);
      LinearModel m2 = learner.train(pre.design(new Dataset("D'", f2, y2, p, labels, null)), new SplittableRandom(1),
          false);
      double s = learner.sensitivity(n);
      double dist = releaseDistance(kind, m1, m2);
      worst = Math.max(worst, dist / s);
      assertTrue(dist <= s * (1 + 1e-9), kind + " trial " + trial + ": " + dist + " > " + s + " (n=" + n + ", bs=" + bs + ")");
    }
    System.out.printf("sensitivity, replaced point always in a smallest batch, %s: largest ratio to s = %.4f%n", kind,
        worst);
  }

  @Test
  void sensitivityIsSpecWhenTheBatchSizeDividesNAndLargerOtherwise() {
    Learner l = new Learner(config(LearnerKind.SOFTMAX, 1, 1, 1, 5), 2, 3, 3);
    assertEquals(2 * l.gradientBound() / 60, l.sensitivity(60), 1e-15);
    // n = 52, batch 5: 11 batches of 4 or 5 points, the smallest 4: s = 2G / (Lambda 44).
    assertEquals(2 * l.gradientBound() / 44, l.sensitivity(52), 1e-15);
  }

  /**
   * The tight bound cannot be tightened further: for the Huber SVM a record whose label flips while
   * every margin stays in the loss's linear part (here a large Lambda keeps the model small) moves
   * the gradient by exactly 2 x, so the model moves by the whole 2 c' / (Lambda n) once the
   * 1/(Lambda t) steps dominate. The papers' bound is (Lambda R + c') / c' times larger here. Also
   * the case where the regulariser's gradient is largest (the model on the R-ball's surface) stays
   * within the tight bound (the property tests above sample it too).
   */
  @Test
  void theTightBoundIsAttainedByALabelFlipInTheHingesLinearPart() {
    double c = 3;
    Preprocessing pre = new Preprocessing(c, true);
    int n = 10;
    int p = 2;
    float[] f = new float[n * p];
    int[] y = new int[n];
    SplittableRandom r = new SplittableRandom(5);
    for (int i = 0; i < n; i++) {
      f[i * p] = (float) r.nextGaussian();
      f[i * p + 1] = (float) r.nextGaussian();
      y[i] = i % 2;
    }
    int[] y2 = y.clone();
    y2[0] = 1 - y[0];
    dev.helmet.core.data.LabelSet labels = dev.helmet.core.data.LabelSet.ofIntegers(2);
    LearnerConfig cfg = config(LearnerKind.SVM, 20, 1, 400, 1);
    Learner learner = new Learner(cfg, pre.inputNormBound(), p, 2);
    LinearModel m1 = learner.train(pre.design(new Dataset("D", f, y, p, labels, null)), new SplittableRandom(3));
    LinearModel m2 = learner.train(pre.design(new Dataset("D'", f, y2, p, labels, null)), new SplittableRandom(3));
    double ratio = m1.distance(m2) / learner.sensitivity(n);
    System.out.printf("label flip in the linear part, binary SVM: ||T(D)-T(D')|| / s_tight = %.4f%n", ratio);
    assertTrue(ratio <= 1 + 1e-9, "above the tight bound: " + ratio);
    assertTrue(ratio >= 0.98, "the tight bound is attained: " + ratio);
    Learner paper = new Learner(cfg.withSensitivity(SensitivityBound.PAPER), pre.inputNormBound(), p, 2);
    assertEquals((20 * 1 + pre.inputNormBound()) / pre.inputNormBound(),
        paper.sensitivity(n) / learner.sensitivity(n), 1e-12);
  }

  @Test
  void everyRowStaysInsideTheRadius() {
    Dataset d = TestData.wine();
    Preprocessing pre = new Preprocessing(10, false);
    for (LearnerKind k : classifiers()) {
      Learner l = new Learner(config(k, 0.001, 0.3, 5, 10), pre.inputNormBound(), d.dimension(), d.numClasses());
      LinearModel m = l.train(pre.design(d), new SplittableRandom(1));
      if (k == LearnerKind.SOFTMAX) {
        assertTrue(m.norm() <= 0.3 * (1 + 1e-12), k + " norm " + m.norm());
      } else {
        for (int row = 0; row < m.rows(); row++) {
          assertTrue(m.rowNorm(row) <= 0.3 * (1 + 1e-12), k + " row " + row + " norm " + m.rowNorm(row));
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = LearnerKind.class, names = {"SOFTMAX", "SVM", "LOGREG"})
  void eachLearnerFitsRealDataWellWithoutNoise(LearnerKind kind) {
    Dataset d = TestData.digits();
    StratifiedKFold.Fold split = StratifiedKFold.holdout(d.labels(), d.numClasses(), 0.3, new SplittableRandom(1));
    Preprocessing pre = new Preprocessing(1, true);
    Learner l = new Learner(config(kind, 1e-3, 100, 30, 10), pre.inputNormBound(), d.dimension(), d.numClasses());
    LinearModel m = l.train(pre.design(d, split.train()), new SplittableRandom(2));
    DesignMatrix test = pre.design(d, split.test());
    double acc = Evaluation.of(test.labels(), m.predict(test), 10).accuracy();
    // Linear models on scikit-learn's digits reach about 95 %.
    assertTrue(acc > 0.9, kind + " accuracy " + acc);
  }

  @Test
  void binaryProblemsUseOneModelAndPredictBothClasses() {
    Dataset d = TestData.heartScale(); // features already scaled to [-1, 1]
    Preprocessing pre = new Preprocessing(1, true);
    for (LearnerKind k : new LearnerKind[] {LearnerKind.SVM, LearnerKind.LOGREG}) {
      Learner l = new Learner(config(k, 1e-3, 100, 50, 10), pre.inputNormBound(), d.dimension(), 2);
      LinearModel m = l.train(pre.design(d), new SplittableRandom(1));
      assertEquals(1, m.rows());
      DesignMatrix all = pre.design(d);
      double acc = Evaluation.of(all.labels(), m.predict(all), 2).accuracy();
      // Linear models reach about 84 % on heart_scale (LIBSVM's guide); training accuracy is a bit higher.
      assertTrue(acc > 0.8, k + " accuracy " + acc);
    }
  }

  @Test
  void trainingIsReproducibleFromTheSeed() {
    Dataset d = TestData.iris();
    Preprocessing pre = new Preprocessing(10, true);
    Learner l = new Learner(config(LearnerKind.SOFTMAX, 0.1, 5, 5, 7), pre.inputNormBound(), 4, 3);
    DesignMatrix x = pre.design(d);
    assertEquals(l.train(x, new SplittableRandom(9)), l.train(x, new SplittableRandom(9)));
  }

  @Test
  void theSettlingReferenceStopsOnlyOnceAnEpochMovesTheModelLittle() {
    Dataset d = TestData.digits();
    Preprocessing pre = new Preprocessing(1, true);
    Learner l = new Learner(config(LearnerKind.SOFTMAX, 0.05, 5, 40, 5), pre.inputNormBound(), d.dimension(),
        d.numClasses());
    DesignMatrix x = pre.design(d);
    // A tolerance no epoch meets: all epochs run, and the model is the fixed-epoch model bit for bit
    // (the same shuffles from the same seed).
    Learner.Fit all = l.trainUntilSettled(x, new SplittableRandom(4), 1e-15);
    assertEquals(40, all.epochs());
    assertEquals(l.train(x, new SplittableRandom(4)), all.model());
    // A loose tolerance stops early, at the model the same number of fixed epochs gives.
    Learner.Fit early = l.trainUntilSettled(x, new SplittableRandom(4), 1e-2);
    assertTrue(early.epochs() >= 2 && early.epochs() < 40, "epochs " + early.epochs());
    assertEquals(new Learner(l.config().withEpochs(early.epochs()), pre.inputNormBound(), d.dimension(), d.numClasses()).train(x, new SplittableRandom(4)), early.model());
    assertThrows(IllegalArgumentException.class, () -> l.trainUntilSettled(x, new SplittableRandom(4), 0));
  }

  @Test
  void invalidHyperparametersAreRejectedWithTheirName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> config(LearnerKind.SVM, -1, 1, 1, 1));
    assertEquals("lambda must be > 0 and finite. Provided value: -1.0", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> config(LearnerKind.SVM, 1, Double.NaN, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> config(LearnerKind.SVM, 1, 1, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new Learner(config(LearnerKind.SVM, 1, 1, 1, 1), 1, 3, 1));
  }

  private static java.util.List<LearnerKind> classifiers() { // the linear classifiers this learner trains
    return java.util.Arrays.stream(LearnerKind.values()).filter(k -> k.classifier() && k.linear()).toList();
  }

  @Test
  void linearRegressionIsNotAnSgdLearner() {
    LearnerConfig linreg = config(LearnerKind.LINREG, 1, 1, 1, 1);
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new Learner(linreg, 2, 5, 2));
    assertTrue(e.getMessage().contains("wd-dp"), e.getMessage());
  }
}
