package dev.helmet.core.nn;

import dev.helmet.core.util.Checks;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.StringJoiner;

/**
 * A multilayer perceptron classifier (the architecture only; immutable and thread-safe): widths
 * {@code n_0, n_1, ..., n_L} with {@code n_0} inputs, ReLU hidden layers and a softmax
 * cross-entropy output over {@code n_L} classes, e.g. the 784-80-10 network of the Skellam mixture
 * mechanism's experiments (SPEC section 6; Bao et al., VLDB 2022), which has 63,610 parameters.
 *
 * <p>Parameters are one flat {@code double[]} of {@link #parameterCount()} values: for each layer
 * {@code k = 0 .. L-1} in turn, its weights {@code W_k} ({@code n_{k+1} x n_k}, row-major: row u
 * holds the weights into unit u) at {@link #weightOffset}, then its bias {@code b_k} ({@code
 * n_{k+1}} values) at {@link #biasOffset}. Layer k computes {@code z = W_k a + b_k}.
 *
 * <p>The per-example loss is {@code l(x, y) = -log softmax(z_L(x))_y}. {@link #gradientSum} adds the
 * gradients of a batch's losses; {@link #clippedGradientSum} adds each example's gradient clipped
 * to an L2 norm bound, the sum DP-SGD perturbs (Abadi et al., CCS 2016, Algorithm 1), with the
 * per-example norms found without forming per-example gradients (see {@link BatchPass}).
 *
 * <p>FP64 throughout: the privacy analysis needs every clipped contribution's norm to be at most
 * the clip bound, and the norm is computed from the same doubles that are summed (rounding about
 * {@code n 2^-53} relative for a layer of width n, covered by {@link #CLIP_SLACK}). The inputs may
 * be stored as FP32 ({@link Examples#dense(float[], int[], int, int, int)}): they are data, and FP32
 * inputs or even an FP32 forward pass would only change which function is learnt; the norms, the
 * clip factors and the sum must stay FP64 for the bound to hold as stated.
 */
public final class Mlp {
  /**
   * The relative margin of the clip factor: an example whose computed gradient norm {@code g}
   * exceeds {@code C / (1 + CLIP_SLACK)} is scaled by {@code C / (g (1 + CLIP_SLACK))}. The
   * computed norm's relative error is at most about {@code n 2^-53} for a layer of width n (1e-13
   * for n = 784; below 1e-12 up to n of about 9000), so the scaled contribution's exact norm is at
   * most C: an over-approximation of the norm, to err on the safe side, as the linear learners'
   * 1e-12 slack on their norm bounds ({@link dev.helmet.core.linalg.Blas}).
   */
  public static final double CLIP_SLACK = 1e-12;

  /**
   * The margin this net uses: {@link #CLIP_SLACK}, or more where a layer is so wide that the
   * computed norm's relative error could pass it: {@code (2 (n_max + L) + 8) 2^-53}, twice the
   * error bound of a sum of n_max non-negative terms plus one term per layer and a few roundings
   * for the products and the square root (privacy review turn 3, finding 8: the fixed 1e-12 was
   * proven only up to widths of about 9,000). Equal to CLIP_SLACK up to widths of about 4,500.
   */
  private final double clipSlack;

  /** Examples per forward pass in {@link #predict} and {@link #meanLoss}, to bound the scratch. */
  private static final int CHUNK = 512;

  private final int[] widths;
  private final int[] weightOffsets;
  private final int[] biasOffsets;
  private final int parameterCount;

  /**
   * @param widths {@code n_0, ..., n_L}: the inputs, each hidden layer's units, the classes (at
   *     least 2 widths, each at least 1, and at least 2 classes)
   */
  public Mlp(int... widths) {
    Checks.require(widths.length >= 2,
        "an MLP needs at least an input and an output width. Provided widths: " + widths.length);
    for (int k = 0; k < widths.length; k++) {
      Checks.positive("width " + k, widths[k]);
    }
    Checks.require(widths[widths.length - 1] >= 2,
        "the output width (classes) must be >= 2. Provided value: " + widths[widths.length - 1]);
    this.widths = widths.clone();
    int layers = widths.length - 1;
    this.weightOffsets = new int[layers];
    this.biasOffsets = new int[layers];
    long at = 0;
    for (int k = 0; k < layers; k++) {
      weightOffsets[k] = (int) at;
      at += (long) widths[k] * widths[k + 1];
      biasOffsets[k] = (int) at;
      at += widths[k + 1];
      Checks.require(at < Integer.MAX_VALUE - 8, "an MLP of widths " + Arrays.toString(widths)
          + " has more parameters than one array holds");
    }
    this.parameterCount = (int) at;
    int widest = Arrays.stream(widths).max().getAsInt();
    this.clipSlack = Math.max(CLIP_SLACK, (2.0 * ((double) widest + layers) + 8) * 0x1p-53);
  }

  /** The relative clip margin this net uses (see {@link #CLIP_SLACK}). */
  public double clipSlack() {
    return clipSlack;
  }

  /** The widths {@code n_0, ..., n_L} (a copy). */
  public int[] widths() {
    return widths.clone();
  }

  /** {@code n_k}: the inputs for k = 0, the classes for k = {@link #layers()}. */
  public int width(int k) {
    return widths[k];
  }

  /** L, the number of weight layers (hidden layers plus the output layer). */
  public int layers() {
    return widths.length - 1;
  }

  /** {@code n_0}, the number of input values. */
  public int inputs() {
    return widths[0];
  }

  /** {@code n_L}, the number of classes. */
  public int classes() {
    return widths[widths.length - 1];
  }

  /** The length of the flat parameter vector: {@code sum_k n_{k+1} (n_k + 1)}. */
  public int parameterCount() {
    return parameterCount;
  }

  /** Where {@code W_k} (row-major, {@code n_{k+1} x n_k}) starts in the parameter vector. */
  public int weightOffset(int k) {
    return weightOffsets[k];
  }

  /** Where {@code b_k} ({@code n_{k+1}} values) starts in the parameter vector. */
  public int biasOffset(int k) {
    return biasOffsets[k];
  }

  /** Initial parameters drawn from {@code new SplittableRandom(seed)}; see {@link #initialise(SplittableRandom)}. */
  public double[] initialise(long seed) {
    return initialise(new SplittableRandom(seed));
  }

  /**
   * Initial parameters: every hidden layer's weights He-uniform, {@code U(-sqrt(6 / n_k), sqrt(6 /
   * n_k))} (He et al., ICCV 2015: variance {@code 2 / fan_in} keeps the activations' scale through
   * ReLU layers), the output layer's Glorot-uniform, {@code U(-sqrt(6 / (n_{L-1} + n_L)), ...)}
   * (Glorot and Bengio, AISTATS 2010: no ReLU follows it), every bias 0. The weights are drawn in
   * the parameter layout's order, one {@code nextDouble(-limit, limit)} each, so a public seed gives
   * the same start on every machine (the start is public: it depends on no data).
   */
  public double[] initialise(SplittableRandom random) {
    double[] params = new double[parameterCount];
    for (int k = 0; k < layers(); k++) {
      double limit = k + 1 < layers()
          ? Math.sqrt(6.0 / widths[k])
          : Math.sqrt(6.0 / (widths[k] + widths[k + 1]));
      int end = weightOffsets[k] + widths[k] * widths[k + 1];
      for (int i = weightOffsets[k]; i < end; i++) {
        params[i] = random.nextDouble(-limit, limit);
      }
    }
    return params;
  }

  private void checkCompatible(double[] params, Examples data) {
    Checks.require(params.length == parameterCount,
        "params must hold " + parameterCount + " values for an MLP " + this + ". Provided length: " + params.length);
    Checks.require(data.features() == inputs(), "the MLP " + this + " takes " + inputs()
        + " inputs. Provided examples have: " + data.features());
    Checks.require(data.classes() == classes(), "the MLP " + this + " has " + classes()
        + " classes. Provided examples have: " + data.classes());
  }

  private int[] labels(Examples data, int[] idx, int from, int m) {
    int[] y = new int[m];
    for (int j = 0; j < m; j++) {
      y[j] = data.label(idx[from + j]);
    }
    return y;
  }

  private BatchPass forward(double[] params, Examples data, int[] idx, int from, int m) {
    return new BatchPass(this, params, data.gather(idx, from, m), m);
  }

  private static int[] all(Examples data) {
    int[] idx = new int[data.size()];
    Arrays.setAll(idx, i -> i);
    return idx;
  }

  /** The class with the largest score for every example of {@code data} (the first on ties). */
  public int[] predict(double[] params, Examples data) {
    checkCompatible(params, data);
    int[] idx = all(data);
    int[] out = new int[idx.length];
    for (int from = 0; from < idx.length; from += CHUNK) {
      int m = Math.min(CHUNK, idx.length - from);
      BatchPass pass = forward(params, data, idx, from, m);
      for (int j = 0; j < m; j++) {
        out[from + j] = pass.predicted(j);
      }
    }
    return out;
  }

  /** The fraction of {@code data} whose predicted class is its label (0 for no examples). */
  public double accuracy(double[] params, Examples data) {
    int[] p = predict(params, data);
    int correct = 0;
    for (int i = 0; i < p.length; i++) {
      if (p[i] == data.label(i)) {
        correct++;
      }
    }
    return p.length == 0 ? 0 : (double) correct / p.length;
  }

  /** The mean cross-entropy over {@code data} (the non-private training objective). */
  public double meanLoss(double[] params, Examples data) {
    checkCompatible(params, data);
    Checks.require(data.size() > 0, "the mean loss needs at least one example");
    int[] idx = all(data);
    double sum = 0;
    for (int from = 0; from < idx.length; from += CHUNK) {
      int m = Math.min(CHUNK, idx.length - from);
      BatchPass pass = forward(params, data, idx, from, m);
      for (int j = 0; j < m; j++) {
        sum += pass.crossEntropy(j, data.label(idx[from + j]), null);
      }
    }
    return sum / idx.length;
  }

  /**
   * Adds into {@code out} the sum over the batch of each example's loss gradient, unclipped (the
   * non-private reference; divide by the batch size for the mean), and returns the sum of their
   * losses. Examples may repeat; an empty batch adds nothing and returns 0.
   */
  public double gradientSum(double[] params, Examples data, int[] batch, double[] out) {
    checkCompatible(params, data);
    checkOut(out);
    if (batch.length == 0) {
      return 0;
    }
    BatchPass pass = forward(params, data, batch, 0, batch.length);
    pass.backward(labels(data, batch, 0, batch.length));
    pass.accumulateGradients(null, out);
    double sum = 0;
    for (int j = 0; j < batch.length; j++) {
      sum += pass.loss(j);
    }
    return sum;
  }

  /**
   * Adds into {@code out} the sum over the batch of each example's loss gradient clipped to L2 norm
   * at most {@code clip}: {@code sum_i g_i min(1, clip / ||g_i||)} (Abadi et al., CCS 2016,
   * Algorithm 1), with the conservative margin of {@link #CLIP_SLACK}. One example changes the sum
   * by at most {@code clip} in L2 (add/remove), whatever the data and parameters: an example whose
   * gradient norm is not finite (parameters so large that the activations overflow) is left out of
   * the sum and counted as clipped. An empty batch (possible under Poisson sampling) adds nothing.
   *
   * @return the number of examples whose gradient was scaled down
   */
  public int clippedGradientSum(double[] params, Examples data, int[] batch, double clip, double[] out) {
    return clippedGradientSum(params, data, batch, clip, out, null);
  }

  /**
   * As {@link #clippedGradientSum(double[], Examples, int[], double, double[])}, and writes each
   * example's unclipped gradient norm {@code ||g_i||} into {@code norms[i]} when {@code norms} is
   * not null (for diagnostics and adaptive clipping; the norms are private data).
   */
  public int clippedGradientSum(double[] params, Examples data, int[] batch, double clip, double[] out,
      double[] norms) {
    checkCompatible(params, data);
    checkOut(out);
    Checks.positive("clip", clip);
    Checks.require(norms == null || norms.length >= batch.length,
        "norms must hold one value per batch example (" + batch.length + "). Provided length: "
        + (norms == null ? 0 : norms.length));
    int m = batch.length;
    if (m == 0) {
      return 0;
    }
    BatchPass pass = forward(params, data, batch, 0, m);
    pass.backward(labels(data, batch, 0, m));
    double[] sq = new double[m];
    pass.gradientNormsSquared(sq);
    double[] scale = new double[m];
    int clipped = 0;
    for (int j = 0; j < m; j++) {
      double norm = Math.sqrt(sq[j]);
      if (norms != null) {
        norms[j] = norm;
      }
      double padded = norm * (1 + clipSlack);
      if (!Double.isFinite(norm)) {
        scale[j] = 0;
        clipped++;
      } else if (padded > clip) {
        scale[j] = clip / padded;
        clipped++;
      } else {
        scale[j] = 1;
      }
    }
    pass.accumulateGradients(scale, out);
    return clipped;
  }

  /** Receives one example's clipped gradient (a buffer reused for the next example: copy what you keep). */
  @FunctionalInterface
  public interface GradientSink {
    void accept(int j, double[] gradient);
  }

  /**
   * Hands each example's gradient clipped to L2 norm at most {@code clip} (the factors of {@link
   * #clippedGradientSum}, with the same margin) to {@code sink}, one at a time in batch order, for
   * mechanisms that transform each example's gradient before summing (the Skellam mixture
   * mechanism rotates, scales and rounds each one). An example whose gradient norm is not finite
   * is handed over as zeros.
   *
   * @return the number of examples whose gradient was scaled down
   */
  public int clippedGradients(double[] params, Examples data, int[] batch, double clip, GradientSink sink) {
    checkCompatible(params, data);
    Checks.positive("clip", clip);
    int clipped = 0;
    double[] g = new double[parameterCount];
    for (int from = 0; from < batch.length; from += CHUNK) {
      int m = Math.min(CHUNK, batch.length - from);
      BatchPass pass = forward(params, data, batch, from, m);
      pass.backward(labels(data, batch, from, m));
      double[] sq = new double[m];
      pass.gradientNormsSquared(sq);
      for (int j = 0; j < m; j++) {
        double norm = Math.sqrt(sq[j]);
        double padded = norm * (1 + clipSlack);
        double s = !Double.isFinite(norm) ? 0 : padded > clip ? clip / padded : 1;
        if (s != 1) {
          clipped++;
        }
        pass.exampleGradient(j, s, g);
        sink.accept(from + j, g);
      }
    }
    return clipped;
  }

  private void checkOut(double[] out) {
    Checks.require(out.length == parameterCount,
        "out must hold " + parameterCount + " values for an MLP " + this + ". Provided length: " + out.length);
  }

  /** The widths joined by dashes, e.g. {@code 784-80-10}. */
  @Override
  public String toString() {
    StringJoiner j = new StringJoiner("-");
    for (int w : widths) {
      j.add(Integer.toString(w));
    }
    return j.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Mlp other && Arrays.equals(widths, other.widths);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(widths);
  }
}
