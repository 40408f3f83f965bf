package dev.helmet.protocols.algorithm;

import dev.helmet.core.learn.LinearModel;
import dev.helmet.core.learn.NoisyDescent;
import dev.helmet.core.learn.Optimum;
import dev.helmet.core.preprocess.DesignMatrix;

/**
 * The optimality gap {@code L_D(theta) - L_D(theta*)} of a model on the pooled training objective,
 * Kang et al.'s utility measure, with theta* the non-private optimum ({@link Optimum}, solved once
 * per pooled data set and reused for every model).
 *
 * <p>A measurement for whoever holds all the data (a simulation or an experiment): the gap is a
 * statistic of the private training data, so it is printed and written to results, never to a
 * model file, and no guarantee covers it.
 *
 * @param objective the algorithm's training objective
 * @param optimum theta* and {@code L_D(theta*)}
 */
public record OptimalityGap(NoisyDescent objective, Optimum.Result optimum) {
  /**
   * Iterations of the optimum solver at most: 20,000 accelerated steps take well under a second on
   * the tabular sets and reach the tolerance on every one whose optimum is attained. Each is one
   * full-batch gradient of the pooled data, so on MNIST's 60,000 rows (7,850 softmax parameters) the
   * limit is about 400 times the work of a 50-step private run: see {@link #worstCaseWork}.
   */
  public static final int MAX_ITERATIONS = 20_000;

  /** Solves for theta* on {@code pooled}; null when {@code spec} reports no objective. */
  public static OptimalityGap solve(AlgorithmSpec spec, DesignMatrix pooled) {
    return solve(spec, pooled, dev.helmet.core.util.Progress.NONE);
  }

  /**
   * As above, reporting each of at most {@link #MAX_ITERATIONS} steps to {@code progress} (the
   * caller starts and finishes its task).
   */
  public static OptimalityGap solve(AlgorithmSpec spec, DesignMatrix pooled, dev.helmet.core.util.Progress progress) {
    NoisyDescent o = spec.objective();
    if (o == null) {
      return null;
    }
    return new OptimalityGap(o, Optimum.minimize(o, pooled, new double[o.length()], MAX_ITERATIONS, progress));
  }

  /**
   * The solve's work at most, in multiply-adds of its gradients: {@link #MAX_ITERATIONS} full-batch
   * gradients of {@code objective} over {@code rows} pooled rows, each about one multiply-add per
   * parameter and row (forward and backward pass: a small constant more, the same for every data set).
   */
  public static double worstCaseWork(NoisyDescent objective, long rows) {
    return (double) MAX_ITERATIONS * rows * objective.length();
  }

  /**
   * The private run's work on the same scale: every party's {@code objective.steps()} full-batch
   * steps over its own rows, together {@code steps} passes over the {@code rows} pooled rows.
   */
  public static double runWork(NoisyDescent objective, long rows) {
    return (double) objective.steps() * rows * objective.length();
  }

  /** The gap of {@code model} on {@code pooled} (the rows theta* was solved on). */
  public double of(dev.helmet.core.learn.Model model, DesignMatrix pooled) {
    return objective.meanLoss(pooled, model.linear().weights()) - optimum.loss();
  }

  /** theta* as a model. */
  public LinearModel model() {
    int outputs = objective.outputs();
    return new LinearModel(outputs, objective.length() / outputs, optimum.theta());
  }

  /** How theta* was found, in words. */
  public String describe() {
    return "theta* by " + (objective.convex() ? "accelerated " : "") + "projected gradient descent, "
        + optimum.iterations() + " steps" + (optimum.converged() ? "" : " (the limit; the infimum may not be attained)")
        + ", L_D(theta*) = " + String.format(java.util.Locale.ROOT, "%.6g", optimum.loss());
  }
}
