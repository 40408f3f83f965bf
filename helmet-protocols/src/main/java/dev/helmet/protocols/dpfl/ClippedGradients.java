package dev.helmet.protocols.dpfl;

import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.privacy.noise.RandomBits;

/** One party's Poisson-sampled, clipped softmax gradients: the private part of a DP-FL round. */
final class ClippedGradients {
  private ClippedGradients() {}

  /**
   * Adds to {@code g} the sum over a Poisson sample (rate q) of the party's records of the softmax
   * cross-entropy gradients, each clipped to L2 norm C. The gradient of one record is the outer
   * product (p - e_y) x^T, whose norm is |p - e_y| |x|.
   *
   * <p>The sample is drawn by geometric skips: the gap before the next sampled record is
   * floor(ln U / ln(1 - q)), U uniform in (0, 1], which includes each record independently with
   * probability q (up to floating-point rounding, as for any sampler on doubles) while drawing only
   * about q n random numbers instead of n.
   */
  static void add(DesignMatrix m, double[] theta, int classes, double clip, double q,
      RandomBits rng, double[] g) {
    int cols = m.cols();
    double[] p = new double[classes];
    double logMiss = q < 1 ? Math.log1p(-q) : Double.NEGATIVE_INFINITY;
    int rows = m.rows();
    for (int i = next(rng, -1, logMiss, rows); i < rows; i = next(rng, i, logMiss, rows)) {
      double max = Double.NEGATIVE_INFINITY;
      for (int k = 0; k < classes; k++) {
        p[k] = m.dot(i, theta, k * cols);
        max = Math.max(max, p[k]);
      }
      double z = 0;
      for (int k = 0; k < classes; k++) {
        p[k] = Math.exp(p[k] - max);
        z += p[k];
      }
      double norm2 = 0;
      int y = m.label(i);
      for (int k = 0; k < classes; k++) {
        p[k] = p[k] / z - (k == y ? 1 : 0);
        norm2 += p[k] * p[k];
      }
      double norm = Math.sqrt(norm2) * m.rowNorm(i);
      double f = norm > clip ? clip / norm : 1;
      for (int k = 0; k < classes; k++) {
        if (p[k] != 0) {
          m.axpy(i, f * p[k], g, k * cols);
        }
      }
    }
  }

  /** The indices a Poisson sample of {@code rows} records at rate q picks (for tests of the sampler). */
  static int[] sampleForTesting(int rows, double q, RandomBits rng) {
    double logMiss = q < 1 ? Math.log1p(-q) : Double.NEGATIVE_INFINITY;
    java.util.stream.IntStream.Builder b = java.util.stream.IntStream.builder();
    for (int i = next(rng, -1, logMiss, rows); i < rows; i = next(rng, i, logMiss, rows)) {
      b.add(i);
    }
    return b.build().toArray();
  }

  /** The next sampled row after {@code i} (or {@code rows} when there is none). */
  private static int next(RandomBits rng, int i, double logMiss, int rows) {
    if (logMiss == Double.NEGATIVE_INFINITY) {
      return i + 1; // q = 1: every record
    }
    double skip = Math.floor(Math.log(rng.nextDoubleNonZero()) / logMiss);
    return skip >= rows - i - 1 ? rows : i + 1 + (int) skip;
  }

}
