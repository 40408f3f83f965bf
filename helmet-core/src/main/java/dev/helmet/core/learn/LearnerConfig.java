package dev.helmet.core.learn;

import dev.helmet.core.util.Checks;

/**
 * Hyperparameters of a local learner (SPEC 1.2).
 *
 * @param kind softmax, SVM or logistic regression
 * @param lambda Lambda, the strong-convexity (L2 regularisation) parameter
 * @param radius R, the L2 radius the model is projected onto (per class for one-vs-rest)
 * @param epochs passes over the local data
 * @param batchSize mini-batch size: an epoch of n points is cut into {@code ceil(n / batchSize)}
 *     batches of near-equal size (see {@link Learner} for why not "the last one smaller")
 * @param smoothness which smoothness constant sets the step size
 * @param huberH the Huber relaxation h of the SVM loss (the papers use 0.1); ignored otherwise
 * @param sensitivity which gradient bound sets the release's sensitivity ({@link SensitivityBound})
 */
public record LearnerConfig(
    LearnerKind kind,
    double lambda,
    double radius,
    int epochs,
    int batchSize,
    SmoothnessBound smoothness,
    double huberH,
    SensitivityBound sensitivity) {

  /** The papers' Huber relaxation. */
  public static final double DEFAULT_HUBER_H = 0.1;

  public LearnerConfig {
    Checks.notNull("learner", kind);
    Checks.positive("lambda", lambda);
    Checks.positive("radius", radius);
    Checks.positive("epochs", epochs);
    Checks.positive("batch-size", batchSize);
    Checks.notNull("smoothness", smoothness);
    Checks.positive("huber h", huberH);
    Checks.notNull("sensitivity", sensitivity);
  }

  /** As the canonical constructor, with the tight sensitivity bound (the default). */
  public LearnerConfig(LearnerKind kind, double lambda, double radius, int epochs, int batchSize,
      SmoothnessBound smoothness, double huberH) {
    this(kind, lambda, radius, epochs, batchSize, smoothness, huberH, SensitivityBound.TIGHT);
  }

  public LearnerConfig withLambda(double l) {
    return new LearnerConfig(kind, l, radius, epochs, batchSize, smoothness, huberH, sensitivity);
  }

  public LearnerConfig withRadius(double r) {
    return new LearnerConfig(kind, lambda, r, epochs, batchSize, smoothness, huberH, sensitivity);
  }

  public LearnerConfig withSensitivity(SensitivityBound b) {
    return new LearnerConfig(kind, lambda, radius, epochs, batchSize, smoothness, huberH, b);
  }

  public LearnerConfig withEpochs(int e) {
    return new LearnerConfig(kind, lambda, radius, e, batchSize, smoothness, huberH, sensitivity);
  }
}
