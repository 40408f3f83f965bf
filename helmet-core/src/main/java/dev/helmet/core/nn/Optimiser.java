package dev.helmet.core.nn;

/**
 * A first-order update rule (the configuration, immutable); {@link #start} gives the mutable state
 * that applies it step by step to a parameter vector. The gradient given to each step is whatever
 * the algorithm releases, e.g. DP-SGD's noisy mean of clipped gradients: the optimiser only
 * post-processes it, so it costs no privacy.
 */
public interface Optimiser {
  /** A fresh state for parameters of length {@code dimension} (step count 0). */
  State start(int dimension);

  /** The state of one optimisation run: its step count and any moment estimates. */
  interface State {
    /** One step: updates {@code params} in place from {@code gradient} (same length). */
    void update(double[] params, double[] gradient);

    /** The number of steps taken so far. */
    long steps();
  }
}
