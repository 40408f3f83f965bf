package dev.helmet.core.learn;

import dev.helmet.core.linalg.Blas;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Shuffle;
import java.util.SplittableRandom;

/**
 * Projected mini-batch SGD on a strongly convex linear objective (SPEC 1.2): SVM-SGD (Huber loss,
 * one-vs-rest), Softmax-SLP-SGD, LR-SGD, with the bounds their privacy rests on.
 *
 * <p>Algorithm: zero initialisation; each epoch a fresh random permutation of the local data cut
 * into {@code B = ceil(n / batchSize)} batches of near-equal size ({@code floor(n/B)} or one more);
 * a global step counter {@code t = 1, 2, ...}; step size {@code a_t = min(1/beta, 1/(Lambda t))};
 * the step
 * {@code f <- f - a_t (Lambda f + mean over the batch of grad loss)}; after every step the
 * projection {@code f <- f / max(1, ||f||/R)} onto the R-ball (per class for one-vs-rest, of the
 * whole matrix for softmax). The papers' "f := R f/||f||" would rescale every step to norm R: a
 * typo, it is a projection.
 *
 * <p>Bounds, with c' = sqrt(1 + c^2) the norm bound of an input including the intercept:
 *
 * <ul>
 *   <li>Lipschitz constant of the regularised per-example loss on the R-ball: {@code L = Lambda R +
 *       c'} (SVM, LR: |l'| <= 1 and ||x|| <= c'), {@code L = Lambda R + sqrt(2) c'} (softmax: the
 *       gradient (p - e_y) x^T has norm ||p - e_y|| ||x|| <= sqrt(2) c').
 *   <li>Gradient bound of the loss alone: {@code G = c'} (SVM, LR), {@code G = sqrt(2) c'}
 *       (softmax), the same bounds without the regulariser's {@code Lambda R}.
 *   <li>Sensitivity (Wu et al. 2017, "Bolt-on differential privacy", Lemma 8; replace-one
 *       neighbours; any number of epochs with this step-size schedule): the replaced point enters
 *       one step per epoch with weight {@code a_t / b_t}, and the contraction of the later steps
 *       turns the sum over epochs into {@code 2 G / (Lambda B b_min)} for B steps per epoch whose
 *       smallest batch is {@code b_min}. TIGHT ({@link SensitivityBound}), proved here: let
 *       {@code U(f) = f - a (Lambda f + (1/b) sum_{j in batch} grad l_j(f))} be the step on D and
 *       {@code U'} the one on D', whose batch has z' where D's has z. Then {@code U'(f') = U(f') -
 *       (a/b) (grad l_z'(f') - grad l_z(f'))}: the regulariser's {@code Lambda f'} is in both steps at
 *       the same point and cancels, so {@code ||U(f) - U'(f')|| <= ||U(f) - U(f')|| + (a/b) 2G}, and
 *       U, a gradient step of size {@code a <= 1/beta} on a Lambda-strongly convex, beta-smooth
 *       function, is a {@code (1 - a Lambda)}-contraction: with {@code F = Lambda/2 ||f||^2 + g}, g
 *       convex and {@code (beta - Lambda)}-smooth, {@code U(f) - U(f') = (1 - a Lambda)(f - f') - a
 *       (grad g(f) - grad g(f'))}, and co-coercivity of grad g (it needs g to be C^1 only, as the
 *       Huber loss is) gives {@code ||(1 - a Lambda) u - a v||^2 <= (1 - a Lambda)^2 ||u||^2} for
 *       {@code a (beta + Lambda) <= 2}, which {@code a <= 1/beta} satisfies. The projection onto the R-ball is
 *       non-expansive. Wu et al.'s recursion over the steps is then unchanged with 2G for 2L, since
 *       the proof uses L only to bound that one difference of gradients: {@code ||grad l_z(f) -
 *       grad l_z'(f)|| <= 2 G} with {@code ||grad l(f)|| = |l'| ||x|| <= c'} for the binary losses
 *       ({@code |l'| <= 1}) and {@code ||(p - e_y) x^T|| <= sqrt(2) c'} for softmax. The bound is
 *       attained: for the Huber SVM a record whose label is flipped while both margins stay below
 *       {@code 1 - h} (the loss's linear part, where {@code l' = -1}) moves the gradient by exactly
 *       {@code 2 x}, of norm {@code 2 c'} for a normalised row (a test shows it). PAPER: the papers'
 *       {@code G = L}.  With near-equal batches {@code s = 2 G / (Lambda B
 *       floor(n/B))}, which is SPEC 1.2's {@code 2 L / (Lambda n)} (PAPER) whenever the batch size divides
 *       n. (SPEC 1.2 cuts "batches of size bs, last one smaller": a point that keeps landing in a
 *       small last batch moves the model by more than {@code 2L/(Lambda n)}, up to 1.95 times as
 *       much in a simulation with n = 52, bs = 5; hence the near-equal batches.) Per class for
 *       one-vs-rest (then {@link #releases()} = K Gaussian releases), for the whole matrix for
 *       softmax (one release).
 *   <li>Smoothness beta ({@link SmoothnessBound}). TIGHT, proved here: the Hessian of the
 *       per-example loss is {@code l''(z) x x^T} for the binary losses and {@code (diag(p) - p
 *       p^T) (x) x x^T} for softmax. {@code x x^T} has largest eigenvalue {@code ||x||^2 <= c'^2};
 *       {@code l'' <= 1/(2h)} for the Huber loss (its second derivative is 1/(2h) on |1 - z| <= h
 *       and 0 elsewhere), {@code l'' = s(1-s) <= 1/4} for the logistic loss; and
 *       {@code diag(p) - p p^T <= 1/2 I} (Boehning 1992): by Gershgorin every eigenvalue lies
 *       within row i's radius of its diagonal, i.e. is at most {@code p_i (1 - p_i) + sum_{j != i}
 *       p_i p_j = 2 p_i (1 - p_i) <= 1/2}. The eigenvalues of a Kronecker product are the products
 *       of the factors' eigenvalues, and adding {@code Lambda/2 ||f||^2} adds Lambda. A mean of
 *       beta-smooth functions is beta-smooth. Hence {@code beta = Lambda + c'^2/(2h)} (SVM),
 *       {@code Lambda + c'^2/4} (LR), {@code Lambda + c'^2/2} (softmax). PAPER: the papers' looser
 *       {@code sqrt((c'^2/(2h) + Lambda)^2 + p Lambda^2)} (SVM), {@code sqrt((c'^2/4 + Lambda)^2 + p
 *       Lambda^2)} (LR), {@code sqrt((p+1) K Lambda^2 + (Lambda + c'^2)^2 / 2)} (softmax), with p the
 *       feature dimension.
 * </ul>
 *
 * <p>Every beta here is at least Lambda, so {@code 1 - a_t Lambda >= 0} and the step is a
 * contraction towards the minimiser, as the sensitivity proof assumes.
 */
public final class Learner {
  private final LearnerConfig config;
  private final double inputNorm;
  private final int features;
  private final int classes;
  private final int rows;
  private final double lipschitz;
  private final double gradientBound;
  private final double beta;

  /**
   * @param config hyperparameters
   * @param inputNormBound c', the bound on the norm of an input including its intercept
   * @param features p, the data dimension (without intercept)
   * @param classes K, the number of classes (at least 2)
   */
  public Learner(LearnerConfig config, double inputNormBound, int features, int classes) {
    this.config = Checks.notNull("learner config", config);
    this.inputNorm = Checks.positive("input norm bound c'", inputNormBound);
    this.features = Checks.positive("feature dimension", features);
    Checks.require(config.kind().classifier(), "linreg is trained by noisy full-batch gradient descent (--algorithm "
        + "wd-dp), not by this SGD learner");
    Checks.require(config.kind().linear(), "the MLP is trained by DP-SGD-style algorithms (--algorithm smm), not by "
        + "this learner of linear models");
    Checks.require(classes >= 2, "a classifier needs at least 2 classes. Provided value: " + classes);
    this.classes = classes;
    this.rows = config.kind() == LearnerKind.SOFTMAX || classes > 2 ? classes : 1;
    double lr = config.lambda() * config.radius();
    double c2 = inputNorm * inputNorm;
    double lam = config.lambda();
    switch (config.kind()) {
      case SOFTMAX -> {
        gradientBound = Math.sqrt(2) * inputNorm;
        lipschitz = lr + gradientBound;
        beta = config.smoothness() == SmoothnessBound.TIGHT
            ? lam + c2 / 2
            : Math.sqrt((double) (features + 1) * classes * lam * lam + 0.5 * (lam + c2) * (lam + c2));
      }
      case SVM -> {
        gradientBound = inputNorm;
        lipschitz = lr + gradientBound;
        double h = config.huberH();
        beta = config.smoothness() == SmoothnessBound.TIGHT
            ? lam + c2 / (2 * h)
            : Math.sqrt(Math.pow(c2 / (2 * h) + lam, 2) + features * lam * lam);
      }
      case LOGREG -> {
        gradientBound = inputNorm;
        lipschitz = lr + gradientBound;
        beta = config.smoothness() == SmoothnessBound.TIGHT
            ? lam + c2 / 4
            : Math.sqrt(Math.pow(c2 / 4 + lam, 2) + features * lam * lam);
      }
      default -> throw new IllegalStateException();
    }
  }

  public LearnerConfig config() {
    return config;
  }

  /** The Lipschitz constant L of the regularised per-example loss on the R-ball. */
  public double lipschitz() {
    return lipschitz;
  }

  /**
   * G, the bound in the sensitivity {@code 2 G / (Lambda n)}: the per-example loss's gradient bound
   * (tight) or the regularised loss's Lipschitz constant L (paper), as configured.
   */
  public double gradientBound() {
    return config.sensitivity() == SensitivityBound.TIGHT ? gradientBound : lipschitz;
  }

  /** The smoothness constant beta in use. */
  public double smoothness() {
    return beta;
  }

  /**
   * The L2 sensitivity of one release for {@code n} local points and replace-one neighbours:
   * {@code 2 G / (Lambda B floor(n/B))} with {@code B = ceil(n / batchSize)} batches per epoch, i.e.
   * {@code 2 G / (Lambda n)} when the batch size divides n (Wu et al. 2017, Lemma 8, with the
   * regulariser's gradient cancelled; see the class comment and {@link #gradientBound}). One
   * release is the whole softmax matrix, or one class's vector for one-vs-rest.
   */
  public double sensitivity(int n) {
    Checks.positive("local data size n", n);
    int batches = batchesPerEpoch(n);
    return 2 * gradientBound() / (config.lambda() * batches * (n / batches));
  }

  /** B = ceil(n / batchSize), the number of (near-equal) batches per epoch. */
  int batchesPerEpoch(int n) {
    return (n + config.batchSize() - 1) / config.batchSize();
  }

  /**
   * How many Gaussian releases one trained model is: 1 for softmax and binary models, K for
   * one-vs-rest with K > 2 classes (each class model is one release with {@link #sensitivity}).
   */
  public int releases() {
    return config.kind() == LearnerKind.SOFTMAX ? 1 : rows;
  }

  /** Rows of the trained weight matrix: K, or 1 for a binary SVM/LR. */
  public int outputRows() {
    return rows;
  }

  /** Length of a model row: features plus intercept. */
  public int inputDimension() {
    return features + 1;
  }

  /** Number of classes. */
  public int classes() {
    return classes;
  }

  /** Trains on {@code data} with shuffles drawn from {@code rng}. */
  public LinearModel train(DesignMatrix data, SplittableRandom rng) {
    return train(data, rng, true);
  }

  /** As {@link #train(DesignMatrix, SplittableRandom)}, reporting each epoch to {@code progress}. */
  public LinearModel train(DesignMatrix data, SplittableRandom rng, dev.helmet.core.util.Progress progress) {
    return fit(data, rng, true, 0, progress).model();
  }

  /**
   * As {@link #train(DesignMatrix, SplittableRandom)}; {@code shuffle = false} keeps the data order
   * in every epoch, so tests can place a point in a chosen batch (the sensitivity bound must hold
   * for every permutation, not only for random ones).
   */
  LinearModel train(DesignMatrix data, SplittableRandom rng, boolean shuffle) {
    return fit(data, rng, shuffle, 0, dev.helmet.core.util.Progress.NONE).model();
  }

  /** A model and the number of epochs that produced it. */
  public record Fit(LinearModel model, int epochs) {}

  /**
   * NON-PRIVATE use only (the centralized reference on pooled data): as {@link #train}, but stops
   * after the first epoch (at most {@code epochs}) that moved the model by less than {@code
   * tolerance} times its norm. When it stops depends on the data, so the sensitivity bound of
   * {@link #sensitivity} does not hold for its output; never release it with noise calibrated by it.
   * With the step size {@code 1/(Lambda t)} the model settles within a few epochs on large data
   * (on 60,000 MNIST images the change per epoch is below 1 % after the second epoch), while the
   * fixed epoch count that the privacy analysis of small local data sets wants repeats the whole
   * pass to no effect.
   */
  public Fit trainUntilSettled(DesignMatrix data, SplittableRandom rng, double tolerance) {
    Checks.require(tolerance > 0 && tolerance < 1, "tolerance must lie in (0, 1). Provided value: " + tolerance);
    return fit(data, rng, true, tolerance, dev.helmet.core.util.Progress.NONE);
  }

  private Fit fit(DesignMatrix data, SplittableRandom rng, boolean shuffle, double tolerance,
      dev.helmet.core.util.Progress progress) {
    int n = data.rows();
    int d = data.cols();
    if (d != features + 1) {
      throw new IllegalArgumentException("inputs have " + (d - 1) + " features, the learner was built for "
          + features);
    }
    if (data.numClasses() != classes) {
      throw new IllegalArgumentException("data has " + data.numClasses() + " classes, the learner was built for "
          + classes);
    }
    Checks.positive("local data size n", n);
    // Near-equal batches: the first n mod B hold floor(n/B) + 1 points, the others floor(n/B).
    int batches = batchesPerEpoch(n);
    int[] batchStart = new int[batches + 1];
    for (int k = 0; k < batches; k++) {
      batchStart[k + 1] = batchStart[k] + n / batches + (k < n % batches ? 1 : 0);
    }
    int bs = batchStart[1];
    double lambda = config.lambda();
    double radius = config.radius();
    // Row k of the model is scale[k] * v[k]: the shrink (1 - a Lambda) and the projection only
    // change scale[k], so a step costs the (sparse) updates plus one dense pass for the norms.
    // Rows stay contiguous (class-major): a dot product over a contiguous row runs several times
    // faster than the strided alternative on dense embeddings.
    double[] v = new double[rows * d];
    double[] scale = new double[rows];
    java.util.Arrays.fill(scale, 1.0);
    double[] coef = new double[bs * rows];
    double[] scores = new double[bs * rows];
    double[] z = new double[rows];
    // An upper bound on the norm of each row (one-vs-rest) or of the whole matrix (softmax), kept
    // by the triangle inequality: ||shrink f - rate sum_j coef_j x_j|| <= shrink ||f|| + rate
    // sum_j |coef_j| ||x_j||, with the rows' actual norms. The exact norm is computed only when the
    // bound exceeds R, so a projection happens exactly when it would otherwise; the bound is
    // inflated by 1e-12 relative against rounding.
    double[] normBound = new double[rows];
    int[] perm = Shuffle.identity(n);
    long t = 0;
    double[] previous = tolerance > 0 ? new double[rows * d] : null;
    int epochsRun = 0;
    progress.start("local training, epochs", config.epochs());
    for (int epoch = 0; epoch < config.epochs(); epoch++) {
      epochsRun++;
      if (shuffle) {
        Shuffle.shuffle(perm, rng);
      }
      for (int batch = 0; batch < batches; batch++) {
        int start = batchStart[batch];
        int b = batchStart[batch + 1] - start;
        t++;
        double a = Math.min(1 / beta, 1 / (lambda * t));
        data.scores(perm, start, b, v, rows, scores);
        for (int j = 0; j < b; j++) {
          for (int k = 0; k < rows; k++) {
            z[k] = scale[k] * scores[j * rows + k];
          }
          lossDerivative(z, data.label(perm[start + j]), coef, j * rows);
        }
        // f <- (1 - a Lambda) f - (a / b) sum_j coef_j x_j, with 1 - a Lambda > 0 (beta > Lambda).
        double shrink = 1 - a * lambda;
        double rate = a / b;
        if (config.kind() == LearnerKind.SOFTMAX) {
          double inc = 0;
          for (int j = 0; j < b; j++) {
            double sq = 0;
            for (int k = 0; k < rows; k++) {
              sq += coef[j * rows + k] * coef[j * rows + k];
            }
            inc += Math.sqrt(sq) * data.rowNorm(perm[start + j]);
          }
          normBound[0] = (shrink * normBound[0] + rate * inc) * (1 + 1e-12);
        } else {
          for (int k = 0; k < rows; k++) {
            double inc = 0;
            for (int j = 0; j < b; j++) {
              inc += Math.abs(coef[j * rows + k]) * data.rowNorm(perm[start + j]);
            }
            normBound[k] = (shrink * normBound[k] + rate * inc) * (1 + 1e-12);
          }
        }
        for (int k = 0; k < rows; k++) {
          scale[k] *= shrink;
          // Fold the scale in while it is still moderate (it shrinks like 1/t): v grows as the scale
          // shrinks, and at 1e-100 the squared norm of v stays far from overflow for any radius
          // below 1e50.
          if (scale[k] < 1e-100) {
            Blas.scale(scale[k], v, k * d, d);
            scale[k] = 1.0;
          }
          double step = -rate / scale[k];
          for (int j = 0; j < b; j++) {
            coef[j * rows + k] *= step;
          }
        }
        data.accumulate(perm, start, b, coef, rows, v);
        project(v, scale, d, radius, normBound);
      }
      progress.advance(1);
      if (previous != null && settled(v, scale, d, previous, tolerance, epoch == 0)) {
        break;
      }
    }
    progress.finish();
    return new Fit(new LinearModel(rows, d, weights(v, scale, d)), epochsRun);
  }

  private double[] weights(double[] v, double[] scale, int d) {
    double[] w = new double[rows * d];
    for (int k = 0; k < rows; k++) {
      for (int i = 0; i < d; i++) {
        w[k * d + i] = scale[k] * v[k * d + i];
      }
    }
    return w;
  }

  /**
   * Whether this epoch moved the model by less than {@code tolerance ||f||}; stores the model in
   * {@code previous} for the next epoch. The first epoch never counts as settled.
   */
  private boolean settled(double[] v, double[] scale, int d, double[] previous, double tolerance, boolean first) {
    double[] w = weights(v, scale, d);
    double change = 0;
    double norm = 0;
    for (int i = 0; i < w.length; i++) {
      double diff = w[i] - previous[i];
      change += diff * diff;
      norm += w[i] * w[i];
    }
    System.arraycopy(w, 0, previous, 0, w.length);
    return !first && change < tolerance * tolerance * norm;
  }

  /** Writes dLoss/dz_k for every output row k into {@code out[at .. at + rows)}. */
  private void lossDerivative(double[] z, int label, double[] out, int at) {
    switch (config.kind()) {
      case SOFTMAX -> {
        double max = Double.NEGATIVE_INFINITY;
        for (double v : z) {
          max = Math.max(max, v);
        }
        double sum = 0;
        for (int k = 0; k < rows; k++) {
          double e = Math.exp(z[k] - max);
          out[at + k] = e;
          sum += e;
        }
        for (int k = 0; k < rows; k++) {
          out[at + k] /= sum;
        }
        out[at + label] -= 1;
      }
      case SVM -> {
        double h = config.huberH();
        for (int k = 0; k < rows; k++) {
          double yk = sign(label, k);
          double m = yk * z[k];
          double dl;
          if (m > 1 + h) {
            dl = 0;
          } else if (m < 1 - h) {
            dl = -1;
          } else {
            dl = -(1 + h - m) / (2 * h);
          }
          out[at + k] = yk * dl;
        }
      }
      case LOGREG -> {
        for (int k = 0; k < rows; k++) {
          double yk = sign(label, k);
          double m = yk * z[k];
          // d/dm ln(1 + e^-m) = -1 / (1 + e^m)
          out[at + k] = -yk / (1 + Math.exp(m));
        }
      }
      default -> throw new IllegalStateException();
    }
  }

  /** The +-1 target of output row k: one-vs-rest, or class 1 vs class 0 for a single row. */
  private double sign(int label, int k) {
    if (rows == 1) {
      return label == 1 ? 1 : -1;
    }
    return label == k ? 1 : -1;
  }

  /**
   * Projects onto the R-ball: the whole matrix for softmax, each class row for one-vs-rest. Skips
   * the exact norm while the running bound shows the model is inside the ball; otherwise computes
   * it, projects if needed, and resets the bound to the exact value.
   */
  private void project(double[] v, double[] scale, int d, double radius, double[] normBound) {
    if (config.kind() == LearnerKind.SOFTMAX) {
      if (normBound[0] <= radius) {
        return;
      }
      double total = 0;
      for (int k = 0; k < rows; k++) {
        total += scale[k] * scale[k] * Blas.dot(v, k * d, v, k * d, d);
      }
      double norm = Math.sqrt(total);
      if (norm > radius) {
        for (int k = 0; k < rows; k++) {
          scale[k] *= radius / norm;
        }
        norm = radius;
      }
      normBound[0] = norm * (1 + 1e-12);
    } else {
      for (int k = 0; k < rows; k++) {
        if (normBound[k] <= radius) {
          continue;
        }
        double norm = scale[k] * Math.sqrt(Blas.dot(v, k * d, v, k * d, d));
        if (norm > radius) {
          scale[k] *= radius / norm;
          norm = radius;
        }
        normBound[k] = norm * (1 + 1e-12);
      }
    }
  }
}
