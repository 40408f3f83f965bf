package dev.helmet.core.nn;

/**
 * A deliberately plain per-example implementation of the MLP's loss and gradient (scalar loops, no
 * batching, no kernels), from the textbook backpropagation equations, for the tests to compare the
 * batched {@link Mlp} against: one example at a time, its full gradient vector in the parameter
 * layout of {@link Mlp}.
 */
final class ReferenceMlp {
  private ReferenceMlp() {}

  /** The activations of every layer: {@code a[0] = x}, {@code a[L]} the logits. */
  private static double[][] forward(Mlp net, double[] p, double[] x) {
    int layers = net.layers();
    double[][] a = new double[layers + 1][];
    a[0] = x;
    for (int k = 0; k < layers; k++) {
      int in = net.width(k);
      int out = net.width(k + 1);
      a[k + 1] = new double[out];
      for (int u = 0; u < out; u++) {
        double z = p[net.biasOffset(k) + u];
        for (int i = 0; i < in; i++) {
          z += p[net.weightOffset(k) + u * in + i] * a[k][i];
        }
        a[k + 1][u] = k + 1 < layers ? Math.max(0, z) : z;
      }
    }
    return a;
  }

  /** {@code -log softmax(z)_y}. */
  static double loss(Mlp net, double[] p, double[] x, int y) {
    double[] z = forward(net, p, x)[net.layers()];
    double max = Double.NEGATIVE_INFINITY;
    for (double v : z) {
      max = Math.max(max, v);
    }
    double sum = 0;
    for (double v : z) {
      sum += Math.exp(v - max);
    }
    return Math.log(sum) + max - z[y];
  }

  /** The gradient of {@link #loss} in the parameters. */
  static double[] gradient(Mlp net, double[] p, double[] x, int y) {
    int layers = net.layers();
    double[][] a = forward(net, p, x);
    double[] z = a[layers];
    double max = Double.NEGATIVE_INFINITY;
    for (double v : z) {
      max = Math.max(max, v);
    }
    double sum = 0;
    for (double v : z) {
      sum += Math.exp(v - max);
    }
    double[] delta = new double[z.length];
    for (int u = 0; u < z.length; u++) {
      delta[u] = Math.exp(z[u] - max) / sum - (u == y ? 1 : 0);
    }
    double[] g = new double[net.parameterCount()];
    for (int k = layers - 1; k >= 0; k--) {
      int in = net.width(k);
      int out = net.width(k + 1);
      for (int u = 0; u < out; u++) {
        g[net.biasOffset(k) + u] = delta[u];
        for (int i = 0; i < in; i++) {
          g[net.weightOffset(k) + u * in + i] = delta[u] * a[k][i];
        }
      }
      if (k > 0) {
        double[] prev = new double[in];
        for (int i = 0; i < in; i++) {
          double s = 0;
          for (int u = 0; u < out; u++) {
            s += p[net.weightOffset(k) + u * in + i] * delta[u];
          }
          prev[i] = a[k][i] > 0 ? s : 0;
        }
        delta = prev;
      }
    }
    return g;
  }

  static double norm(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x * x;
    }
    return Math.sqrt(s);
  }
}
