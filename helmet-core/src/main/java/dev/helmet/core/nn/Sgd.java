package dev.helmet.core.nn;

import dev.helmet.core.util.Checks;

/**
 * Plain gradient descent, {@code theta <- theta - lr g}: no state besides the step count.
 *
 * @param learningRate lr, {@code > 0}
 */
public record Sgd(double learningRate) implements Optimiser {
  public Sgd {
    Checks.positive("learning rate", learningRate);
  }

  @Override
  public State start(int dimension) {
    Checks.nonNegative("dimension", dimension);
    return new State(this, dimension);
  }

  /** The step count of one run. */
  public static final class State implements Optimiser.State {
    private final Sgd config;
    private final int dimension;
    private long t;

    private State(Sgd config, int dimension) {
      this.config = config;
      this.dimension = dimension;
    }

    @Override
    public void update(double[] params, double[] gradient) {
      Adam.checkLengths(dimension, params, gradient);
      double lr = config.learningRate;
      for (int i = 0; i < dimension; i++) {
        params[i] -= lr * gradient[i];
      }
      t++;
    }

    @Override
    public long steps() {
      return t;
    }
  }
}
