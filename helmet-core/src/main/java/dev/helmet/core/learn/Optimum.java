package dev.helmet.core.learn;

import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Checks;

/**
 * The non-private optimum {@code theta* = argmin L_D(theta)} over a learner's feasible set, for the
 * optimality gap {@code L_D(theta) - L_D(theta*)} (SPEC section 5, Kang et al.'s utility measure).
 *
 * <p>Projected gradient descent with step 1/beta; for a convex loss with Nesterov momentum and the
 * gradient-based adaptive restart of O'Donoghue and Candes (2015), which keeps the accelerated
 * O(1/k^2) rate and becomes linear where the loss is strongly convex. For the non-convex
 * Polyak-Lojasiewicz loss plain projected steps, which converge linearly to the global minimum
 * under the PL inequality. It stops when a step moves theta by less than {@code 1e-10 (1 +
 * ||theta||)} or after {@code maxIterations}; where the infimum is not attained (logistic loss on
 * separable data) the result is the best point reached, and {@link Result#converged} says so.
 */
public final class Optimum {
  /** A step smaller than this relative size ends the search. */
  static final double TOLERANCE = 1e-10;

  private Optimum() {}

  /**
   * @param theta the minimiser found
   * @param loss {@code L_D(theta)}
   * @param iterations the steps taken
   * @param converged whether the last step was below the tolerance
   */
  public record Result(double[] theta, double loss, int iterations, boolean converged) {}

  /** Minimises {@code learner}'s mean loss on {@code data} from {@code start}. */
  public static Result minimize(NoisyDescent learner, DesignMatrix data, double[] start, int maxIterations) {
    return minimize(learner, data, start, maxIterations, dev.helmet.core.util.Progress.NONE);
  }

  /**
   * As above, advancing {@code progress} by one per step (a task of {@code maxIterations} steps,
   * which it leaves early when the search converges; the caller starts and finishes the task).
   */
  public static Result minimize(NoisyDescent learner, DesignMatrix data, double[] start, int maxIterations,
      dev.helmet.core.util.Progress progress) {
    Checks.positive("max iterations", maxIterations);
    double eta = 1 / learner.smoothness();
    double[] x = start.clone();
    learner.project(x);
    double[] y = x.clone();
    double[] prev = x.clone();
    double[] grad = new double[x.length];
    double t = 1;
    boolean accelerate = learner.convex();
    for (int k = 1; k <= maxIterations; k++) {
      learner.meanGradient(data, y, grad);
      progress.advance(1);
      System.arraycopy(x, 0, prev, 0, x.length);
      for (int i = 0; i < x.length; i++) {
        x[i] = y[i] - eta * grad[i];
      }
      learner.project(x);
      double moved = 0;
      double norm = 0;
      double restart = 0;
      for (int i = 0; i < x.length; i++) {
        double d = x[i] - prev[i];
        moved += d * d;
        norm += x[i] * x[i];
        restart += (y[i] - x[i]) * d; // > 0: momentum points uphill
      }
      if (Math.sqrt(moved) <= TOLERANCE * (1 + Math.sqrt(norm))) {
        return new Result(x, learner.meanLoss(data, x), k, true);
      }
      if (!accelerate) {
        System.arraycopy(x, 0, y, 0, x.length);
        continue;
      }
      if (restart > 0) {
        t = 1;
      }
      double tNext = (1 + Math.sqrt(1 + 4 * t * t)) / 2;
      double beta = (t - 1) / tNext;
      for (int i = 0; i < x.length; i++) {
        y[i] = x[i] + beta * (x[i] - prev[i]);
      }
      learner.project(y);
      t = tNext;
    }
    return new Result(x, learner.meanLoss(data, x), maxIterations, false);
  }
}
