package dev.helmet.core.learn;

/**
 * Which constant the replace-one sensitivity {@code 2 G / (Lambda n)} of a trained model uses. Both
 * are proved in {@link Learner}'s class comment; the tight one is never larger.
 */
public enum SensitivityBound {
  /**
   * G bounds the per-example loss gradient only: c' (SVM, LR) or sqrt(2) c' (softmax). The
   * regulariser's gradient {@code Lambda f} is the same in both neighbours' steps at the same point
   * and cancels, so it adds nothing to the distance the replaced record makes.
   */
  TIGHT,
  /**
   * The papers' G = L, the Lipschitz constant of the regularised per-example loss on the R-ball:
   * {@code Lambda R + c'} (SVM, LR), {@code Lambda R + sqrt(2) c'} (softmax), for reproducing their
   * noise exactly. Every model file written before the tight bound existed used it.
   */
  PAPER
}
