package dev.helmet.core.learn;

import java.util.Locale;

/**
 * The models. The classifiers are the local learners of SPEC 1.2 (projected mini-batch SGD
 * on a strongly convex objective, {@link Learner}); {@link #LINREG} is linear regression, trained
 * only by full-batch noisy gradient descent ({@link NoisyRegression}, WD-DP).
 */
public enum LearnerKind {
  /** Softmax single-layer perceptron: one multi-class model, cross-entropy loss. */
  SOFTMAX("softmax"),
  /** Support vector machine with the Huber loss, one-vs-rest (one binary model if K = 2). */
  SVM("svm"),
  /** Logistic regression, one-vs-rest (one binary model if K = 2). */
  LOGREG("logreg"),
  /** Linear regression: one weight vector, a numeric prediction (WD-DP only). */
  LINREG("linreg"),
  /**
   * A multi-layer perceptron with ReLU hidden layers and a softmax output ({@link
   * dev.helmet.core.nn.Mlp}), trained by DP-SGD-style algorithms (smm), not by Helmet's local
   * learner.
   */
  MLP("mlp");

  private final String id;

  LearnerKind(String id) {
    this.id = id;
  }

  /** Whether the model predicts a class (every kind but {@link #LINREG}). */
  public boolean classifier() {
    return this != LINREG;
  }

  /** Whether it is one of the linear models (every kind but {@link #MLP}). */
  public boolean linear() {
    return this != MLP;
  }

  /** The name users type. */
  public String id() {
    return id;
  }

  public static LearnerKind parse(String s) {
    for (LearnerKind k : values()) {
      if (k.id.equals(s.toLowerCase(Locale.ROOT))) {
        return k;
      }
    }
    throw new IllegalArgumentException("learner must be one of softmax, svm, logreg, linreg, mlp. Provided value: " + s);
  }
}
