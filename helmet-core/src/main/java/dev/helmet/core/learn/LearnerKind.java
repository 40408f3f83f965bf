package dev.helmet.core.learn;

import java.util.Locale;

/** The local learners of SPEC 1.2, all projected mini-batch SGD on a strongly convex objective. */
public enum LearnerKind {
  /** Softmax single-layer perceptron: one multi-class model, cross-entropy loss. */
  SOFTMAX("softmax"),
  /** Support vector machine with the Huber loss, one-vs-rest (one binary model if K = 2). */
  SVM("svm"),
  /** Logistic regression, one-vs-rest (one binary model if K = 2). */
  LOGREG("logreg");

  private final String id;

  LearnerKind(String id) {
    this.id = id;
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
    throw new IllegalArgumentException("learner must be one of softmax, svm, logreg. Provided value: " + s);
  }
}
