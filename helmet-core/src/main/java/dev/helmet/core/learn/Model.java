package dev.helmet.core.learn;

import dev.helmet.core.preprocess.DesignMatrix;

/**
 * A trained model as the runners, the model file and the evaluation see it: a flat parameter
 * vector that decides a class for every preprocessed row. {@link LinearModel} (the linear
 * learners) and {@link dev.helmet.core.nn.MlpModel} (the multi-layer perceptron) are the two.
 */
public interface Model {
  /** The number of classes it decides between. */
  int numClasses();

  /** The columns of the design matrix it reads (features plus the intercept column). */
  int inputColumns();

  /** The class of every row of {@code data}. */
  int[] predict(DesignMatrix data);

  /** All its parameters in its own layout (the array itself; do not modify). */
  double[] parameters();

  /** Its shape in a few words, e.g. {@code "softmax 10 x 785"} or {@code "MLP 784-80-10"}. */
  String describe();

  /** This model as a linear one, or an error naming what it is (for what only linear models have). */
  default LinearModel linear() {
    if (this instanceof LinearModel m) {
      return m;
    }
    throw new IllegalArgumentException("this needs a linear model; the model is " + describe());
  }
}
