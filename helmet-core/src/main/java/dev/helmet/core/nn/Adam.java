package dev.helmet.core.nn;

import dev.helmet.core.util.Checks;

/**
 * Adam (Kingma and Ba, ICLR 2015, Algorithm 1), with bias-corrected moment estimates. Per step
 * {@code t <- t + 1}, for every coordinate:
 *
 * <pre>
 *   m <- beta1 m + (1 - beta1) g
 *   v <- beta2 v + (1 - beta2) g^2
 *   theta <- theta - lr (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)
 * </pre>
 *
 * <p>This is the paper's Algorithm 1 as written (eps added to {@code sqrt(v-hat)}), not the
 * "eps-hat" rewrite of its Section 2, so the results match the formulas above to rounding. SPEC
 * section 6 trains the 784-80-10 MLP with {@code lr = 0.005} and the default betas and eps.
 *
 * @param learningRate lr (the paper's alpha), {@code > 0}
 * @param beta1 the decay of the first moment, in [0, 1)
 * @param beta2 the decay of the second moment, in [0, 1)
 * @param epsilon eps, {@code > 0}
 */
public record Adam(double learningRate, double beta1, double beta2, double epsilon) implements Optimiser {
  public Adam {
    Checks.positive("learning rate", learningRate);
    Checks.require(beta1 >= 0 && beta1 < 1, "beta1 must be in [0, 1). Provided value: " + beta1);
    Checks.require(beta2 >= 0 && beta2 < 1, "beta2 must be in [0, 1). Provided value: " + beta2);
    Checks.positive("epsilon", epsilon);
  }

  /** Adam with the paper's defaults: {@code beta1 = 0.9, beta2 = 0.999, eps = 1e-8}. */
  public Adam(double learningRate) {
    this(learningRate, 0.9, 0.999, 1e-8);
  }

  @Override
  public State start(int dimension) {
    Checks.nonNegative("dimension", dimension);
    return new State(this, dimension);
  }

  static void checkLengths(int dimension, double[] params, double[] gradient) {
    Checks.require(params.length == dimension,
        "params must hold " + dimension + " values. Provided length: " + params.length);
    Checks.require(gradient.length == dimension,
        "gradient must hold " + dimension + " values. Provided length: " + gradient.length);
  }

  /** The moment estimates m and v and the step count t of one run. */
  public static final class State implements Optimiser.State {
    private final Adam config;
    private final double[] m;
    private final double[] v;
    private long t;

    private State(Adam config, int dimension) {
      this.config = config;
      this.m = new double[dimension];
      this.v = new double[dimension];
    }

    @Override
    public void update(double[] params, double[] gradient) {
      checkLengths(m.length, params, gradient);
      t++;
      double b1 = config.beta1;
      double b2 = config.beta2;
      double c1 = 1 - Math.pow(b1, t);
      double c2 = 1 - Math.pow(b2, t);
      double lr = config.learningRate;
      double eps = config.epsilon;
      for (int i = 0; i < m.length; i++) {
        double g = gradient[i];
        m[i] = b1 * m[i] + (1 - b1) * g;
        v[i] = b2 * v[i] + (1 - b2) * g * g;
        params[i] -= lr * (m[i] / c1) / (Math.sqrt(v[i] / c2) + eps);
      }
    }

    @Override
    public long steps() {
      return t;
    }

    /** A copy of the first-moment estimate m (before bias correction). */
    public double[] firstMoment() {
      return m.clone();
    }

    /** A copy of the second-moment estimate v (before bias correction). */
    public double[] secondMoment() {
      return v.clone();
    }
  }
}
