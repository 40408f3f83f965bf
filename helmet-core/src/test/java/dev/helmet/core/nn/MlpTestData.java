package dev.helmet.core.nn;

import java.util.SplittableRandom;

/** Seeded random inputs and labels for the MLP tests. */
final class MlpTestData {
  private MlpTestData() {}

  /** {@code rows} Gaussian inputs of {@code features} values with uniform labels. */
  static Examples gaussian(long seed, int rows, int features, int classes) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] x = new double[rows * features];
    for (int i = 0; i < x.length; i++) {
      x[i] = r.nextGaussian();
    }
    int[] y = new int[rows];
    for (int i = 0; i < rows; i++) {
      y[i] = r.nextInt(classes);
    }
    return Examples.dense(x, y, rows, features, classes);
  }

  /** Example i of {@code data} as a fresh array. */
  static double[] row(Examples data, int i) {
    double[] x = new double[data.features()];
    data.copyFeatures(i, x);
    return x;
  }

  /** Parameters of {@code net} from its initialisation, with biases also random (so none is 0). */
  static double[] params(Mlp net, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] p = net.initialise(r);
    for (int k = 0; k < net.layers(); k++) {
      for (int u = 0; u < net.width(k + 1); u++) {
        p[net.biasOffset(k) + u] = r.nextDouble(-0.2, 0.2);
      }
    }
    return p;
  }
}
