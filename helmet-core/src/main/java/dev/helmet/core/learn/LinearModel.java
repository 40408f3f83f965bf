package dev.helmet.core.learn;

import dev.helmet.core.linalg.Blas;
import dev.helmet.core.preprocess.DesignMatrix;
import java.util.Arrays;

/**
 * A linear classifier on learner inputs {@code [1, x']}: {@code rows} weight vectors of length
 * {@code cols}, row-major. With {@code rows == 1} (binary SVM/LR) the class is 1 if the score is
 * positive, else 0; otherwise the class is the row with the largest score (softmax, one-vs-rest).
 * Predictions depend only on the direction of each comparison, so a model scaled by a positive
 * constant (the blind-averaging sum before dividing by n) predicts the same.
 */
public record LinearModel(int rows, int cols, double[] weights) implements Model {
  public LinearModel {
    if (rows <= 0 || cols <= 0 || weights.length != rows * cols) {
      throw new IllegalArgumentException("model shape " + rows + " x " + cols + " does not match "
          + weights.length + " weights");
    }
  }

  /** The number of classes this model decides between. */
  @Override
  public int numClasses() {
    return rows == 1 ? 2 : rows;
  }

  /** The class of input {@code x[off .. off + cols)}. */
  public int predict(double[] x, int off) {
    if (rows == 1) {
      return Blas.dot(weights, 0, x, off, cols) > 0 ? 1 : 0;
    }
    int best = 0;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (int k = 0; k < rows; k++) {
      double s = Blas.dot(weights, k * cols, x, off, cols);
      if (s > bestScore) {
        bestScore = s;
        best = k;
      }
    }
    return best;
  }

  /** Classes of every row of a design matrix. */
  @Override
  public int[] predict(DesignMatrix data) {
    if (data.cols() != cols) {
      throw new IllegalArgumentException("inputs have " + (data.cols() - 1) + " features, the model expects "
          + (cols - 1));
    }
    int[] out = new int[data.rows()];
    double[] row = new double[cols];
    for (int i = 0; i < out.length; i++) {
      data.copyRow(i, row);
      out[i] = predict(row, 0);
    }
    return out;
  }

  /** The score {@code w . x} of every row (a regression model's predictions; {@code rows == 1}). */
  public double[] scores(DesignMatrix data) {
    if (rows != 1) {
      throw new IllegalArgumentException("a model of " + rows + " outputs has no single score per row");
    }
    if (data.cols() != cols) {
      throw new IllegalArgumentException("inputs have " + (data.cols() - 1) + " features, the model expects "
          + (cols - 1));
    }
    double[] out = new double[data.rows()];
    for (int i = 0; i < out.length; i++) {
      out[i] = data.dot(i, weights, 0);
    }
    return out;
  }

  /** The L2 norm of row {@code k}. */
  public double rowNorm(int k) {
    return Math.sqrt(Blas.dot(weights, k * cols, weights, k * cols, cols));
  }

  /** The L2 (Frobenius) norm of all weights. */
  public double norm() {
    return Math.sqrt(Blas.dot(weights, 0, weights, 0, weights.length));
  }

  /** The L2 distance to a model of the same shape. */
  public double distance(LinearModel other) {
    double s = 0;
    for (int i = 0; i < weights.length; i++) {
      double d = weights[i] - other.weights[i];
      s += d * d;
    }
    return Math.sqrt(s);
  }

  @Override
  public int inputColumns() {
    return cols;
  }

  @Override
  public double[] parameters() {
    return weights;
  }

  @Override
  public String describe() {
    return "linear " + rows + " x " + cols;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LinearModel m && m.rows == rows && m.cols == cols && Arrays.equals(m.weights, weights);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * rows + cols) + Arrays.hashCode(weights);
  }

  @Override
  public String toString() {
    return "LinearModel[" + rows + " x " + cols + "]";
  }
}
