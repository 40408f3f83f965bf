package dev.helmet.core.learn;

import dev.helmet.core.preprocess.DesignMatrix;
import java.util.SplittableRandom;
import java.util.function.DoubleSupplier;

/**
 * Full-batch noisy gradient descent on a linear ERM objective with a public Lipschitz constant G
 * and smoothness beta: the local step of WD-DP and its baselines (SPEC section 5). The classifiers
 * ({@link NoisyGradientDescent}) and the regressors ({@link NoisyRegression}) both implement it, so
 * the algorithm and the optimality gap treat them alike.
 */
public interface NoisyDescent {
  /** G, the Lipschitz constant of the per-record loss in the model (on the feasible set). */
  double lipschitz();

  /** beta, the smoothness constant of the mean loss. */
  double smoothness();

  /** eta, the step size in use. */
  double stepSize();

  /** T, the number of full-batch steps. */
  int steps();

  /** 2G/n: the L2 sensitivity of one step's mean gradient to replacing one of n records. */
  double sensitivity(int n);

  /** The number of model parameters. */
  int length();

  /** Output rows of the model (1 for logistic and regression, K for softmax). */
  int outputs();

  /** Whether the mean loss is convex (the optimum solver may then accelerate). */
  boolean convex();

  /**
   * The shared random start, a function of a public seed only, inside the feasible set: every entry
   * N(0, 1/d) with d the row length, so the start's scores are of order one.
   */
  double[] start(long publicSeed);

  /**
   * T noisy full-batch steps from {@code start}.
   *
   * @param sigma the noise std per coordinate and step (0: noiseless)
   * @param normal standard normal draws (the privacy noise: SecureRandom-seeded outside tests)
   */
  LinearModel train(DesignMatrix data, double[] start, double sigma, DoubleSupplier normal);

  /** The mean loss {@code L_D(theta)} over {@code data}. */
  double meanLoss(DesignMatrix data, double[] theta);

  /** The mean gradient at {@code theta} into {@code grad}. */
  void meanGradient(DesignMatrix data, double[] theta, double[] grad);

  /** Moves {@code theta} into the feasible set in place (nothing when it is all of R^d). */
  void project(double[] theta);

  /** A scaled standard normal vector from a public seed (the start; never noise). */
  static double[] publicStart(long publicSeed, int length, int rowLength) {
    SplittableRandom r = new SplittableRandom(publicSeed);
    double[] theta = new double[length];
    double scale = 1 / Math.sqrt(rowLength);
    for (int i = 0; i < theta.length; i++) {
      double u1 = r.nextDouble();
      double u2 = r.nextDouble();
      theta[i] = scale * Math.sqrt(-2 * Math.log1p(-u1)) * Math.cos(2 * Math.PI * u2);
    }
    return theta;
  }
}
