package dev.helmet.privacy.mechanism;

import dev.helmet.core.util.Checks;

/**
 * The server's side of the Skellam mixture mechanism (Bao et al., PVLDB 15(11), 2022, Algorithm
 * 6): from the sum modulo 2^b of the clients' {@link SmmEncoder} messages, an unbiased estimate of
 * the sum of their clipped gradients (unbiased while no coordinate wraps around). Each coordinate
 * is mapped to its representative in [-2^(b-1), 2^(b-1)), divided by gamma and rotated back, and
 * the result truncated to the gradient's dimension d. This is post-processing of the aggregate and
 * costs no privacy.
 *
 * <p>Immutable and thread-safe.
 */
public final class SmmDecoder {
  private final RandomizedHadamard rotation;
  private final SmmParameters params;

  /** A decoder for messages encoded with the same rotation (public seed) and parameters. */
  public SmmDecoder(RandomizedHadamard rotation, SmmParameters params) {
    this.rotation = Checks.notNull("rotation", rotation);
    this.params = Checks.notNull("parameters", params);
  }

  /**
   * The estimated sum of the clients' gradients (length d) from {@code sum}, the coordinate-wise
   * sum modulo 2^b of their messages (length D, values in [0, 2^b)). Alg. 6 line 1 writes the
   * target range as [-m/2, m/2]; the half-open range is meant, as the text after it says.
   */
  public double[] decode(long[] sum) {
    Checks.notNull("sum", sum);
    int padded = rotation.paddedDimension();
    Checks.require(sum.length == padded,
        "sum length must be " + padded + ". Provided value: " + sum.length);
    int b = params.bits();
    long mask = params.mask();
    double gamma = params.gamma();
    double[] y = new double[padded];
    for (int j = 0; j < padded; j++) {
      if (Long.compareUnsigned(sum[j], mask) > 0) {
        throw new IllegalArgumentException("sum coordinate " + j + " must be in [0, 2^" + b
            + "). Provided value: " + sum[j]);
      }
      y[j] = toSigned(sum[j], b) / gamma;
    }
    return rotation.inverse(y);
  }

  /**
   * The representative of z (in [0, 2^b)) in [-2^(b-1), 2^(b-1)): z when z < 2^(b-1), else z -
   * 2^b. Shifting the b bits to the top of the long and back with an arithmetic shift sign-extends
   * bit b - 1, which is exactly that.
   */
  public static long toSigned(long z, int bits) {
    Checks.inRange("bits", bits, 2, 64);
    return (z << (64 - bits)) >> (64 - bits);
  }

  /**
   * The coordinate-wise sum modulo 2^b of clients' messages: what secure aggregation reveals (for
   * tests and simulations; in a run the secure aggregation protocol computes it).
   */
  public static long[] sumMod(int bits, long[]... messages) {
    Checks.inRange("bits", bits, 2, 64);
    Checks.require(messages.length > 0, "messages must be at least one. Provided value: 0");
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    long[] acc = new long[messages[0].length];
    for (long[] z : messages) {
      Checks.require(z.length == acc.length,
          "message length must be " + acc.length + ". Provided value: " + z.length);
      for (int j = 0; j < acc.length; j++) {
        acc[j] = (acc[j] + z[j]) & mask; // sums wrap modulo 2^64, which 2^b divides
      }
    }
    return acc;
  }

  /**
   * An upper bound (an estimate in floating point, for choosing b; wrapping costs accuracy, not
   * privacy) of the probability that some coordinate of the sum of {@code clients} messages leaves
   * [-2^(b-1), 2^(b-1)) and so decodes wrongly, in the worst case for the data: every coordinate's
   * sum of rounded values at Delta_inf times the number of clients. See {@link
   * #wrapProbabilityBound(int, double)}.
   */
  public double wrapProbabilityBound(int clients) {
    Checks.positive("clients", clients);
    return wrapProbabilityBound(clients, (double) clients * params.deltaInf());
  }

  /**
   * An upper bound (an estimate in floating point) of the probability that some coordinate of the
   * sum of {@code clients} messages leaves [-2^(b-1), 2^(b-1)), given that each coordinate's sum
   * of the rounded values (before noise) has magnitude at most {@code maxAbsSignal}: clients times
   * Delta_inf always holds; a smaller value that holds with high probability (the rotation makes
   * each coordinate about N(0, ||x||^2 / D)) gives a sharper estimate, to which that probability
   * must be added.
   *
   * <p>With t = 2^(b-1) - maxAbsSignal, a coordinate wraps only if its noise N ~ Sk(mu, mu), mu =
   * clients lambda, reaches t or -t. Chernoff's bound with the Skellam's moment generating
   * function E e^(sN) = exp(2 mu (cosh s - 1)) at s = asinh(t / (2 mu)) gives P[N >= t] <=
   * exp(-2 mu (x asinh x - sqrt(1 + x^2) + 1)), x = t / (2 mu); twice that per coordinate, D
   * coordinates by the union bound, capped at 1. 1 when t <= 0; 0 without noise and t > 0.
   */
  public double wrapProbabilityBound(int clients, double maxAbsSignal) {
    Checks.positive("clients", clients);
    Checks.nonNegative("maximum absolute signal", maxAbsSignal);
    double t = Math.scalb(1.0, params.bits() - 1) - maxAbsSignal;
    if (t <= 0) {
      return 1;
    }
    double mu = clients * params.lambda();
    if (mu == 0) {
      return 0;
    }
    double x = t / (2 * mu);
    double asinh = Math.log(x + Math.sqrt(1 + x * x));
    double exponent = 2 * mu * (x * asinh - Math.sqrt(1 + x * x) + 1);
    double p = 2.0 * rotation.paddedDimension() * Math.exp(-exponent);
    return Math.min(1, p);
  }
}
