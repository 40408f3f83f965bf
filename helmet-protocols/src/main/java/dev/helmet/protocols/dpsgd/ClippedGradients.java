package dev.helmet.protocols.dpsgd;

import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.privacy.noise.RandomBits;

/** One party's Poisson-sampled, clipped softmax gradients: the private part of a DP-FL round. */
public final class ClippedGradients {
  /** Sampled records per block of the batched kernels. */
  private static final int BLOCK = 64;

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
  public static void add(DesignMatrix m, double[] theta, int classes, double clip, double q,
      RandomBits rng, double[] g) {
    add(m, theta, classes, clip, sample(m.rows(), q, rng), g);
  }

  /** As {@link #add(DesignMatrix, double[], int, double, double, RandomBits, double[])} over the records {@code sample}. */
  public static void add(DesignMatrix m, double[] theta, int classes, double clip, int[] sample, double[] g) {
    // In blocks of the sample: the scores of a block against every class row with the blocked
    // kernel, then the clipped gradients' sum as one update (coefficients f_i (p_i - e_y)).
    double[] scores = new double[BLOCK * classes];
    for (int from = 0; from < sample.length; from += BLOCK) {
      int b = Math.min(BLOCK, sample.length - from);
      m.scores(sample, from, b, theta, classes, scores);
      for (int j = 0; j < b; j++) {
        int at = j * classes;
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < classes; k++) {
          max = Math.max(max, scores[at + k]);
        }
        double z = 0;
        for (int k = 0; k < classes; k++) {
          scores[at + k] = Math.exp(scores[at + k] - max);
          z += scores[at + k];
        }
        double norm2 = 0;
        int i = sample[from + j];
        int y = m.label(i);
        for (int k = 0; k < classes; k++) {
          scores[at + k] = scores[at + k] / z - (k == y ? 1 : 0);
          norm2 += scores[at + k] * scores[at + k];
        }
        double norm = Math.sqrt(norm2) * m.rowNorm(i);
        double f = norm > clip ? clip / norm : 1;
        for (int k = 0; k < classes; k++) {
          scores[at + k] *= f;
        }
      }
      m.accumulate(sample, from, b, scores, classes, g);
    }
  }

  /** The indices a Poisson sample of {@code rows} records at rate q picks . */
  public static int[] sample(int rows, double q, RandomBits rng) {
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
