package dev.helmet.core.learn;

import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Checks;
import java.util.function.DoubleSupplier;

/**
 * Full-batch noisy gradient descent on an unregularised linear ERM objective: the local step of
 * weighted distributed DP ERM (Kang et al. 2021), of its unweighted baseline (Jayaraman et al. 2018)
 * and, on pooled data, of centralized noisy GD (Wang et al. 2017) (SPEC section 5).
 *
 * <p>From a start {@code theta_0}, for {@code t = 1 .. T}: {@code theta <- theta - eta (grad
 * L_D(theta) + z_t)}, {@code z_t ~ N(0, sigma^2 I)}, where {@code L_D} is the mean loss over the
 * data set and {@code eta = 1 / beta} by default. There is no projection and no clipping: privacy
 * rests on the loss being G-Lipschitz in the model for every input of norm at most c' (the
 * preprocessing normalises every row to norm c and adds the intercept, c' = sqrt(1 + c^2)).
 *
 * <p>Bounds, for inputs of norm at most c':
 *
 * <ul>
 *   <li>{@link Loss#LOGISTIC} (2 classes, one weight vector, y = +1 for class 1 and -1 for class
 *       0): {@code l = ln(1 + exp(-y theta.x))}, {@code grad = -y s(-y theta.x) x} with the
 *       sigmoid {@code 0 < s < 1}, so {@code G = c'}; its Hessian {@code s(1-s) x x^T} has largest
 *       eigenvalue at most {@code c'^2 / 4 = beta}.
 *   <li>{@link Loss#SOFTMAX} (K classes, K weight rows): cross-entropy, {@code grad = (p - e_y)
 *       x^T} with {@code ||p - e_y|| <= sqrt(2)}, so {@code G = sqrt(2) c'}; the Hessian {@code
 *       (diag(p) - p p^T) (x) x x^T} has largest eigenvalue at most {@code c'^2 / 2 = beta}
 *       (Boehning 1992; see {@link Learner}).
 * </ul>
 *
 * <p>Replacing one of n records changes the mean gradient by at most {@code 2G / n} in L2 for every
 * theta, so each step is a Gaussian mechanism with that sensitivity and noise std sigma, and T
 * steps are their adaptive composition: the accountant composes {@code T} Gaussian mechanisms of
 * noise multiplier {@code sigma n / (2G)} ({@link #sensitivity}). The noise is drawn by the caller's
 * standard normal source (SecureRandom-seeded outside tests).
 */
public final class NoisyGradientDescent implements NoisyDescent {
  /** The per-example loss. */
  public enum Loss {
    LOGISTIC,
    SOFTMAX
  }

  private final Loss loss;
  private final double inputNorm;
  private final int cols;
  private final int rows;
  private final int classes;
  private final int steps;
  private final double stepSize;

  /**
   * @param loss the per-example loss
   * @param inputNormBound c', the bound on an input's norm including the intercept
   * @param features p, the data dimension (without the intercept)
   * @param classes K, the number of classes (exactly 2 for {@link Loss#LOGISTIC})
   * @param steps T, the number of full-batch steps
   * @param stepSize eta, or 0 for {@code 1 / beta}
   */
  public NoisyGradientDescent(Loss loss, double inputNormBound, int features, int classes, int steps,
      double stepSize) {
    this.loss = Checks.notNull("loss", loss);
    this.inputNorm = Checks.positive("input norm bound c'", inputNormBound);
    this.cols = Checks.positive("features", features) + 1;
    Checks.require(classes >= 2, "a classifier needs at least 2 classes. Provided value: " + classes);
    Checks.require(loss != Loss.LOGISTIC || classes == 2,
        "the logistic loss separates 2 classes; use the softmax loss for " + classes);
    this.classes = classes;
    this.rows = loss == Loss.LOGISTIC ? 1 : classes;
    this.steps = Checks.positive("steps T", steps);
    Checks.require(stepSize >= 0 && Double.isFinite(stepSize),
        "step size must be >= 0 (0: 1/beta). Provided value: " + stepSize);
    this.stepSize = stepSize == 0 ? 1 / smoothness() : stepSize;
  }

  /** G, the Lipschitz constant of the per-example loss in the model. */
  @Override
  public double lipschitz() {
    return loss == Loss.LOGISTIC ? inputNorm : Math.sqrt(2) * inputNorm;
  }

  /** beta, the smoothness constant of the per-example loss. */
  @Override
  public double smoothness() {
    return loss == Loss.LOGISTIC ? inputNorm * inputNorm / 4 : inputNorm * inputNorm / 2;
  }

  /** The step size eta in use. */
  @Override
  public double stepSize() {
    return stepSize;
  }

  /** T. */
  @Override
  public int steps() {
    return steps;
  }

  /** The L2 sensitivity of one step's mean gradient to replacing one of {@code n} records: 2G/n. */
  @Override
  public double sensitivity(int n) {
    Checks.positive("local data size n", n);
    return 2 * lipschitz() / n;
  }

  /** The number of model parameters: K (or 1) rows of features + 1. */
  @Override
  public int length() {
    return rows * cols;
  }

  /**
   * The shared random start, a function of a public seed only: every entry N(0, 1/d) with d the
   * row length, so the start's scores are of order one. Every party derives the same start.
   */
  @Override
  public double[] start(long publicSeed) {
    return NoisyDescent.publicStart(publicSeed, length(), cols);
  }

  @Override
  public int outputs() {
    return rows;
  }

  /** Both losses are convex in the model. */
  @Override
  public boolean convex() {
    return true;
  }

  /** Unconstrained: nothing to project. */
  @Override
  public void project(double[] theta) {}

  /**
   * Runs T noisy full-batch steps from {@code start} on {@code data}.
   *
   * @param sigma the noise std added to each coordinate of each step's mean gradient (0: noiseless)
   * @param normal draws standard normal values (the privacy noise: SecureRandom-seeded outside tests)
   */
  @Override
  public LinearModel train(DesignMatrix data, double[] start, double sigma, DoubleSupplier normal) {
    check(data);
    Checks.require(start.length == length(), "the start has " + start.length + " values, the model "
        + length());
    Checks.require(sigma >= 0 && Double.isFinite(sigma), "sigma must be >= 0. Provided value: " + sigma);
    double[] theta = start.clone();
    double[] grad = new double[theta.length];
    for (int t = 0; t < steps; t++) {
      meanGradient(data, theta, grad);
      for (int i = 0; i < theta.length; i++) {
        double z = sigma == 0 ? 0 : sigma * normal.getAsDouble();
        theta[i] -= stepSize * (grad[i] + z);
      }
    }
    return new LinearModel(rows, cols, theta);
  }

  /** The mean loss {@code L_D(theta)} over {@code data} (for optimality gaps). */
  @Override
  public double meanLoss(DesignMatrix data, double[] theta) {
    check(data);
    int n = data.rows();
    int[] all = dev.helmet.core.util.Shuffle.identity(n);
    double[] scores = new double[n * rows];
    data.scores(all, 0, n, theta, rows, scores);
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += pointLoss(scores, i * rows, data.label(i));
    }
    return sum / n;
  }

  /** Writes the mean gradient of the loss at {@code theta} into {@code grad}. */
  @Override
  public void meanGradient(DesignMatrix data, double[] theta, double[] grad) {
    check(data);
    int n = data.rows();
    int[] all = dev.helmet.core.util.Shuffle.identity(n);
    double[] scores = new double[n * rows];
    data.scores(all, 0, n, theta, rows, scores);
    double[] coef = new double[n * rows];
    for (int i = 0; i < n; i++) {
      derivative(scores, i * rows, data.label(i), coef);
    }
    for (int i = 0; i < coef.length; i++) {
      coef[i] /= n;
    }
    java.util.Arrays.fill(grad, 0);
    data.accumulate(all, 0, n, coef, rows, grad);
  }

  private void check(DesignMatrix data) {
    Checks.require(data.cols() == cols, "inputs have " + (data.cols() - 1) + " features, the learner was built for "
        + (cols - 1));
    Checks.require(data.numClasses() == classes, "data has " + data.numClasses() + " classes, the learner was built "
        + "for " + classes);
    Checks.positive("local data size n", data.rows());
  }

  /** dLoss/dscore into {@code out[at .. at + rows)}, the scores at {@code s[at ..]}. */
  private void derivative(double[] s, int at, int label, double[] out) {
    if (loss == Loss.LOGISTIC) {
      double y = label == 1 ? 1 : -1;
      // d/dz ln(1 + e^{-y z}) = -y / (1 + e^{y z})
      out[at] = -y / (1 + Math.exp(y * s[at]));
      return;
    }
    double max = Double.NEGATIVE_INFINITY;
    for (int k = 0; k < rows; k++) {
      max = Math.max(max, s[at + k]);
    }
    double sum = 0;
    for (int k = 0; k < rows; k++) {
      double e = Math.exp(s[at + k] - max);
      out[at + k] = e;
      sum += e;
    }
    for (int k = 0; k < rows; k++) {
      out[at + k] /= sum;
    }
    out[at + label] -= 1;
  }

  private double pointLoss(double[] s, int at, int label) {
    if (loss == Loss.LOGISTIC) {
      double m = (label == 1 ? 1 : -1) * s[at];
      // ln(1 + e^{-m}), computed without overflow for large |m|
      return m > 0 ? Math.log1p(Math.exp(-m)) : -m + Math.log1p(Math.exp(m));
    }
    double max = Double.NEGATIVE_INFINITY;
    for (int k = 0; k < rows; k++) {
      max = Math.max(max, s[at + k]);
    }
    double sum = 0;
    for (int k = 0; k < rows; k++) {
      sum += Math.exp(s[at + k] - max);
    }
    return max + Math.log(sum) - s[at + label];
  }


}
