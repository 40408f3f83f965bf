package dev.helmet.core.nn;

import dev.helmet.core.linalg.Blas;
import java.util.Arrays;

/**
 * One forward and backward pass of an {@link Mlp} over a batch of m examples, as matrix products
 * of the whole batch (one {@link Blas#productNT} per layer forward, one {@link Blas#accumulateTN}
 * per layer backward and per layer for the weight gradient).
 *
 * <p>Layer k maps {@code a_k} (m x n_k, {@code a_0} the inputs) to {@code z_k = a_k W_k^T + b_k}
 * (m x n_{k+1}); {@code a_{k+1} = relu(z_k)} for hidden layers, softmax on the last. The backward
 * pass keeps every layer's per-example error {@code delta_k = dl/dz_k} (m x n_{k+1}): the output
 * layer's is {@code p - e_y} (softmax cross-entropy), a hidden layer's {@code (delta_{k+1}
 * W_{k+1}) * 1[z_k > 0]}. The gradient of example j is then {@code delta_{k,j} a_{k,j}^T} for
 * {@code W_k} and {@code delta_{k,j}} for {@code b_k}, so its squared norm is {@code sum_k
 * ||delta_{k,j}||^2 (||a_{k,j}||^2 + 1)} without forming it (Goodfellow 2015, "Efficient
 * per-example gradient computations", arXiv:1510.01799), and any weighted sum over the batch is
 * {@code W_k: sum_j s_j delta_{k,j} a_{k,j}^T}, one product per layer.
 */
final class BatchPass {
  private final Mlp net;
  private final double[] params;
  private final int m;
  /** {@code act[k]} the input of layer k; {@code act[0]} is {@code input.x()}. */
  private final double[][] act;
  private final int[][] rowOffsets;
  private final double[][] delta;
  private final double[] loss;

  /** Runs the forward pass; {@link #backward} must follow before the gradient methods. */
  BatchPass(Mlp net, double[] params, Examples.Batch input, int m) {
    this.net = net;
    this.params = params;
    this.m = m;
    int layers = net.layers();
    this.act = new double[layers + 1][];
    this.rowOffsets = new int[layers + 1][];
    this.delta = new double[layers][];
    this.loss = new double[m];
    act[0] = input.x();
    rowOffsets[0] = input.offsets();
    for (int k = 0; k < layers; k++) {
      int in = net.width(k);
      int out = net.width(k + 1);
      double[] z = new double[m * out];
      Blas.productNT(act[k], rowOffsets[k], m, params, net.weightOffset(k), out, in, z, out);
      int bo = net.biasOffset(k);
      boolean hidden = k + 1 < layers;
      for (int j = 0; j < m; j++) {
        for (int u = 0; u < out; u++) {
          double v = z[j * out + u] + params[bo + u];
          z[j * out + u] = hidden && !(v > 0) ? 0 : v;
        }
      }
      act[k + 1] = z;
      rowOffsets[k + 1] = consecutive(m, out);
    }
  }

  private static int[] consecutive(int m, int width) {
    int[] off = new int[m];
    for (int j = 0; j < m; j++) {
      off[j] = j * width;
    }
    return off;
  }

  /** The output scores (logits) of the batch, m x classes, row-major. */
  double[] logits() {
    return act[net.layers()];
  }

  /** The class with the largest score of example j (the first on ties). */
  int predicted(int j) {
    int c = net.classes();
    double[] z = logits();
    int best = 0;
    for (int u = 1; u < c; u++) {
      if (z[j * c + u] > z[j * c + best]) {
        best = u;
      }
    }
    return best;
  }

  /**
   * The cross-entropy of example j with class y, {@code logsumexp(z_j) - z_{j,y}}, with the maximum
   * subtracted first so no exponential overflows; also writes {@code softmax(z_j) - e_y}, the error
   * at the output, into {@code err[0 .. classes)} when {@code err} is not null.
   */
  double crossEntropy(int j, int y, double[] err) {
    int c = net.classes();
    double[] z = logits();
    int o = j * c;
    double max = Double.NEGATIVE_INFINITY;
    for (int u = 0; u < c; u++) {
      max = Math.max(max, z[o + u]);
    }
    double sum = 0;
    for (int u = 0; u < c; u++) {
      sum += Math.exp(z[o + u] - max);
    }
    if (err != null) {
      for (int u = 0; u < c; u++) {
        err[j * c + u] = Math.exp(z[o + u] - max) / sum - (u == y ? 1 : 0);
      }
    }
    return Math.log(sum) + max - z[o + y];
  }

  /** The errors of every layer, from the labels of the batch ({@code labels[j]} of example j). */
  void backward(int[] labels) {
    int layers = net.layers();
    double[] out = new double[m * net.classes()];
    for (int j = 0; j < m; j++) {
      loss[j] = crossEntropy(j, labels[j], out);
    }
    delta[layers - 1] = out;
    for (int k = layers - 1; k > 0; k--) {
      int width = net.width(k + 1);
      int in = net.width(k);
      // delta_{k-1} = delta_k W_k as accumulateTN's "b += c^T a" with c = delta_k^T (width x m)
      // and a = the rows of W_k: the units are the summed index.
      double[] d = delta[k];
      double[] dt = new double[width * m];
      for (int j = 0; j < m; j++) {
        for (int u = 0; u < width; u++) {
          dt[u * m + j] = d[j * width + u];
        }
      }
      double[] prev = new double[m * in];
      Blas.accumulateTN(dt, m, params, consecutiveFrom(net.weightOffset(k), width, in), width, prev, 0, m, in);
      double[] a = act[k];
      for (int i = 0; i < prev.length; i++) {
        if (!(a[i] > 0)) {
          prev[i] = 0;
        }
      }
      delta[k - 1] = prev;
    }
  }

  private static int[] consecutiveFrom(int start, int count, int width) {
    int[] off = new int[count];
    for (int u = 0; u < count; u++) {
      off[u] = start + u * width;
    }
    return off;
  }

  /** The loss of example j (after {@link #backward}). */
  double loss(int j) {
    return loss[j];
  }

  /**
   * {@code out[j] = ||g_j||^2}, the squared L2 norm of example j's gradient over all parameters,
   * from {@link Blas#outerNormsSquared} (the weights) plus {@code ||delta_{k,j}||^2} (the biases).
   */
  void gradientNormsSquared(double[] out) {
    double[] part = new double[m];
    Arrays.fill(out, 0, m, 0.0);
    for (int k = 0; k < net.layers(); k++) {
      int width = net.width(k + 1);
      Blas.outerNormsSquared(delta[k], width, width, act[k], rowOffsets[k], m, net.width(k), part);
      for (int j = 0; j < m; j++) {
        out[j] += part[j] + Blas.dot(delta[k], j * width, delta[k], j * width, width);
      }
    }
  }

  /**
   * {@code out += sum_j s_j g_j}, the gradient of every example weighted by {@code s[j]} (all 1 when
   * {@code s} is null), in the parameter layout of {@link Mlp}. Examples with {@code s[j] == 0} are
   * left out rather than multiplied by 0, so one whose activations overflowed adds nothing (not
   * {@code 0 * Inf = NaN}).
   */
  void accumulateGradients(double[] s, double[] out) {
    int[] keep = new int[m];
    int kept = 0;
    for (int j = 0; j < m; j++) {
      if (s == null || s[j] != 0) {
        keep[kept++] = j;
      }
    }
    if (kept == 0) {
      return;
    }
    for (int k = 0; k < net.layers(); k++) {
      int width = net.width(k + 1);
      double[] c = new double[kept * width];
      int[] rows = new int[kept];
      for (int q = 0; q < kept; q++) {
        int j = keep[q];
        System.arraycopy(delta[k], j * width, c, q * width, width);
        if (s != null) {
          Blas.scale(s[j], c, q * width, width);
        }
        rows[q] = rowOffsets[k][j];
      }
      Blas.accumulateTN(c, width, act[k], rows, kept, out, net.weightOffset(k), width, net.width(k));
      int bo = net.biasOffset(k);
      for (int q = 0; q < kept; q++) {
        for (int u = 0; u < width; u++) {
          out[bo + u] += c[q * width + u];
        }
      }
    }
  }

  /**
   * Writes example j's gradient, times {@code s}, into {@code g} (length: the parameter count) in
   * the parameter layout of {@link Mlp}: {@code s delta_{k,j} a_{k,j}^T} for {@code W_k}, {@code s
   * delta_{k,j}} for {@code b_k}.
   */
  void exampleGradient(int j, double s, double[] g) {
    for (int k = 0; k < net.layers(); k++) {
      int width = net.width(k + 1);
      int in = net.width(k);
      int wo = net.weightOffset(k);
      int bo = net.biasOffset(k);
      int ao = rowOffsets[k][j];
      for (int u = 0; u < width; u++) {
        double d = s * delta[k][j * width + u];
        int row = wo + u * in;
        if (d == 0) {
          Arrays.fill(g, row, row + in, 0.0);
        } else {
          for (int v = 0; v < in; v++) {
            g[row + v] = d * act[k][ao + v];
          }
        }
        g[bo + u] = d;
      }
    }
  }
}
