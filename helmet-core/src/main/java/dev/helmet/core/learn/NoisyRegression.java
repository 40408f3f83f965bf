package dev.helmet.core.learn;

import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Checks;
import java.util.function.DoubleSupplier;
import java.util.function.IntToDoubleFunction;

/**
 * Full-batch noisy gradient descent for linear regression, the regression losses of WD-DP (Kang et
 * al. 2021, SPEC section 5): the squared loss {@code l = (theta.x - y)^2 / 2} and the non-convex
 * Polyak-Lojasiewicz loss {@code l + ||theta||^2 + 3 sin^2(||theta||)}.
 *
 * <p>Neither loss is Lipschitz on all of R^d, so, unlike the classification losses of {@link
 * NoisyGradientDescent}, the model is projected onto the ball of public radius R after every step,
 * and every target is clipped to the public bound [-B, B] (a record's own target, clipped by
 * itself: a fixed public transformation). On the R-ball, for inputs of norm at most c':
 *
 * <ul>
 *   <li>squared: {@code |theta.x - y| <= R c' + B}, so the per-record gradient {@code (theta.x - y)
 *       x} has norm at most {@code G = (R c' + B) c'}; the Hessian {@code x x^T} has largest
 *       eigenvalue at most {@code c'^2 = beta};
 *   <li>PL: adds {@code 2 theta} (norm at most 2R) and the gradient of {@code 3 sin^2(r)}, r =
 *       ||theta||, which is {@code 3 sin(2r) theta / r} (norm at most 3): {@code G = (R c' + B) c' +
 *       2R + 3}; the added Hessian is {@code 2 I} plus eigenvalues {@code 6 cos 2r <= 6} (radial)
 *       and {@code 3 sin(2r) / r <= 6} (tangential): {@code beta = c'^2 + 8}.
 * </ul>
 *
 * <p>Replacing one of n records moves the mean gradient by at most {@code 2G/n} at every theta of
 * the ball (the regulariser does not depend on the data), and the projection is post-processing, so
 * each step is a Gaussian mechanism of that sensitivity, as for classification.
 */
public final class NoisyRegression implements NoisyDescent {
  /** The per-record loss. */
  public enum Loss {
    SQUARED,
    POLYAK_LOJASIEWICZ
  }

  private final Loss loss;
  private final double inputNorm;
  private final int cols;
  private final int steps;
  private final double stepSize;
  private final double radius;
  private final double targetBound;

  /**
   * @param loss the loss
   * @param inputNormBound c', the bound on an input's norm including the intercept
   * @param features p, the data dimension (without the intercept)
   * @param steps T
   * @param stepSize eta, or 0 for 1/beta
   * @param radius R, the public radius the model is projected onto
   * @param targetBound B, the public bound targets are clipped to
   */
  public NoisyRegression(Loss loss, double inputNormBound, int features, int steps, double stepSize, double radius,
      double targetBound) {
    this.loss = Checks.notNull("loss", loss);
    this.inputNorm = Checks.positive("input norm bound c'", inputNormBound);
    this.cols = Checks.positive("features", features) + 1;
    this.steps = Checks.positive("steps T", steps);
    this.radius = Checks.positive("radius R", radius);
    this.targetBound = Checks.positive("target bound B", targetBound);
    Checks.require(stepSize >= 0 && Double.isFinite(stepSize),
        "step size must be >= 0 (0: 1/beta). Provided value: " + stepSize);
    this.stepSize = stepSize == 0 ? 1 / smoothness() : stepSize;
  }

  /** G on the R-ball. */
  @Override
  public double lipschitz() {
    double g = (radius * inputNorm + targetBound) * inputNorm;
    return loss == Loss.SQUARED ? g : g + 2 * radius + 3;
  }

  /** beta. */
  @Override
  public double smoothness() {
    return loss == Loss.SQUARED ? inputNorm * inputNorm : inputNorm * inputNorm + 8;
  }

  @Override
  public double stepSize() {
    return stepSize;
  }

  /** 2G/n: the L2 sensitivity of one step's mean gradient to replacing one of n records. */
  @Override
  public double sensitivity(int n) {
    Checks.positive("local data size n", n);
    return 2 * lipschitz() / n;
  }

  /** The number of model parameters: features + 1. */
  @Override
  public int length() {
    return cols;
  }

  @Override
  public int steps() {
    return steps;
  }

  @Override
  public int outputs() {
    return 1;
  }

  /** The squared loss is convex; the Polyak-Lojasiewicz loss is not (it satisfies the PL inequality). */
  @Override
  public boolean convex() {
    return loss == Loss.SQUARED;
  }

  /** The public random start, projected onto the R-ball. */
  @Override
  public double[] start(long publicSeed) {
    double[] theta = NoisyDescent.publicStart(publicSeed, cols, cols);
    project(theta);
    return theta;
  }

  /** As {@link #train(DesignMatrix, double[], double[], double, DoubleSupplier)} with the rows' own targets. */
  @Override
  public LinearModel train(DesignMatrix data, double[] start, double sigma, DoubleSupplier normal) {
    checkOwnTargets(data);
    return run(data, data::target, start, sigma, normal);
  }

  @Override
  public double meanLoss(DesignMatrix data, double[] theta) {
    checkOwnTargets(data);
    return loss(data, data::target, theta);
  }

  @Override
  public void meanGradient(DesignMatrix data, double[] theta, double[] grad) {
    checkOwnTargets(data);
    gradient(data, data::target, theta, grad);
  }

  /** The shape, and that the rows carry their own targets (finite: a {@code Dataset} checks them). */
  private void checkOwnTargets(DesignMatrix data) {
    Checks.require(data.hasTargets(), "regression needs numeric targets; these rows have classes");
    checkShape(data);
  }

  /**
   * T noisy full-batch steps from {@code start}, each followed by the projection onto the R-ball.
   *
   * @param targets the rows' targets (clipped to [-B, B] here)
   * @param sigma the noise std per coordinate and step (0: noiseless)
   * @param normal standard normal draws (SecureRandom-seeded outside tests)
   */
  public LinearModel train(DesignMatrix data, double[] targets, double[] start, double sigma, DoubleSupplier normal) {
    check(data, targets);
    return run(data, i -> targets[i], start, sigma, normal);
  }

  /** T steps; the data and targets are checked by the caller. */
  private LinearModel run(DesignMatrix data, IntToDoubleFunction targets, double[] start, double sigma,
      DoubleSupplier normal) {
    Checks.require(start.length == cols, "the start has " + start.length + " values, the model " + cols);
    Checks.require(sigma >= 0 && Double.isFinite(sigma), "sigma must be >= 0. Provided value: " + sigma);
    double[] theta = start.clone();
    project(theta);
    double[] grad = new double[cols];
    for (int t = 0; t < steps; t++) {
      gradient(data, targets, theta, grad);
      for (int i = 0; i < cols; i++) {
        double z = sigma == 0 ? 0 : sigma * normal.getAsDouble();
        theta[i] -= stepSize * (grad[i] + z);
      }
      project(theta);
    }
    return new LinearModel(1, cols, theta);
  }

  /** The mean loss over the rows (targets clipped), for optimality gaps. */
  public double meanLoss(DesignMatrix data, double[] targets, double[] theta) {
    check(data, targets);
    return loss(data, i -> targets[i], theta);
  }

  private double loss(DesignMatrix data, IntToDoubleFunction targets, double[] theta) {
    int n = data.rows();
    double[] scores = scores(data, theta);
    double sum = 0;
    for (int i = 0; i < n; i++) {
      double r = scores[i] - clip(targets.applyAsDouble(i));
      sum += r * r / 2;
    }
    double mean = sum / n;
    if (loss == Loss.POLYAK_LOJASIEWICZ) {
      double norm = norm(theta);
      mean += norm * norm + 3 * Math.sin(norm) * Math.sin(norm);
    }
    return mean;
  }

  /** The mean gradient at {@code theta} into {@code grad}. */
  public void meanGradient(DesignMatrix data, double[] targets, double[] theta, double[] grad) {
    check(data, targets);
    gradient(data, i -> targets[i], theta, grad);
  }

  private void gradient(DesignMatrix data, IntToDoubleFunction targets, double[] theta, double[] grad) {
    int n = data.rows();
    double[] scores = scores(data, theta);
    double[] coef = new double[n];
    for (int i = 0; i < n; i++) {
      coef[i] = (scores[i] - clip(targets.applyAsDouble(i))) / n;
    }
    java.util.Arrays.fill(grad, 0);
    data.accumulate(dev.helmet.core.util.Shuffle.identity(n), 0, n, coef, 1, grad);
    if (loss == Loss.POLYAK_LOJASIEWICZ) {
      double r = norm(theta);
      // d/dtheta (r^2 + 3 sin^2 r) = 2 theta + 3 sin(2r) theta / r  (-> 2 theta + 6 theta at r = 0)
      double f = r == 0 ? 8 : 2 + 3 * Math.sin(2 * r) / r;
      for (int i = 0; i < cols; i++) {
        grad[i] += f * theta[i];
      }
    }
  }

  private double[] scores(DesignMatrix data, double[] theta) {
    int n = data.rows();
    double[] scores = new double[n];
    data.scores(dev.helmet.core.util.Shuffle.identity(n), 0, n, theta, 1, scores);
    return scores;
  }

  private double clip(double y) {
    return Math.max(-targetBound, Math.min(targetBound, y));
  }

  @Override
  public void project(double[] theta) {
    double norm = norm(theta);
    if (norm > radius) {
      double s = radius / norm * (1 - 1e-12); // a hair inside: the bounds hold in any rounding
      for (int i = 0; i < theta.length; i++) {
        theta[i] *= s;
      }
    }
  }

  private static double norm(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x * x;
    }
    return Math.sqrt(s);
  }

  private void checkShape(DesignMatrix data) {
    Checks.require(data.cols() == cols, "inputs have " + (data.cols() - 1) + " features, the learner was built for "
        + (cols - 1));
    Checks.positive("local data size n", data.rows());
  }

  private void check(DesignMatrix data, double[] targets) {
    checkShape(data);
    Checks.require(targets != null && targets.length == data.rows(), "targets must give one value per row ("
        + data.rows() + ")");
    for (int i = 0; i < targets.length; i++) {
      Checks.require(Double.isFinite(targets[i]), "target " + (i + 1) + " is not a finite number: " + targets[i]);
    }
  }
}
