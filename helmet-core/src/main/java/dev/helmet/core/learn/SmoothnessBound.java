package dev.helmet.core.learn;

/**
 * Which smoothness constant beta sets the first step size {@code 1/beta}. Any valid constant keeps
 * the sensitivity theorem true (it only needs the objective to be beta-smooth); the tight one is
 * smaller, so the early steps are larger and training converges sooner. See {@link Learner} for
 * both formulas and the proof of the tight one.
 */
public enum SmoothnessBound {
  /** The spectral bound: Lambda + c'^2/(2h) (SVM), Lambda + c'^2/4 (LR), Lambda + c'^2/2 (softmax). */
  TIGHT,
  /** The papers' bounds, for reproducing their runs exactly. */
  PAPER
}
