package dev.helmet.privacy.mechanism;

import dev.helmet.core.linalg.Blas;
import dev.helmet.core.util.Checks;
import dev.helmet.privacy.noise.RandomBits;

/**
 * Conditional randomized rounding, the quantization of the distributed discrete Gaussian (Kairouz,
 * Liu, Steinke, ICML 2021, Algorithm 1 step 3 and Theorem 1) that the Skellam mechanism (Agarwal,
 * Kairouz, Liu, NeurIPS 2021) reuses: a real vector x of dimension D with ||x||_2 <= r (the scaled
 * clip, r = c gamma) is stochastically rounded coordinate by coordinate ({@link
 * StochasticRounding}, exact), and the rounding is repeated until the integer result y has
 *
 * <pre>
 *   ||y||_2^2 <= B = floor(min( r^2 + D/4 + sqrt(2 ln(1/beta)) (r + sqrt(D)/2), (r + sqrt(D))^2 )).
 * </pre>
 *
 * The second term always holds (||y - x||_2 < sqrt(D)); the first holds for one rounding with
 * probability at least 1 - beta (their Theorem 1, by the concentration of randomized rounding of
 * their Prop. 22),
 * so the expected number of attempts is at most 1 / (1 - beta): about 2.5 for the recommended beta
 * = e^-0.5 ({@link #DEFAULT_BETA}), where the first term is r^2 + D/4 + r + sqrt(D)/2. Bao et
 * al. (PVLDB 2022) quote the bound twice, differently: Eq. 6 with sqrt(d/2) for sqrt(d)/2, and
 * Section 6 with the square root over the first two terms only (a larger bound); this class
 * follows Kairouz et al.'s theorem, as their reference code (google-research/federated,
 * distributed_dp) computes it. beta = 0 keeps only the second term and never retries.
 *
 * <p><b>What privacy needs.</b> Only that every output satisfies ||y||_2^2 <= B, which is checked
 * exactly in integer arithmetic on the rounded values; the formula for B and the floating-point
 * computation of x matter only for how often a rounding is accepted. So the L2 sensitivity of an
 * output is sqrt(B) and, as y is an integer vector, its L1 sensitivity is min(B, sqrt(D B)) (|y_j|
 * <= y_j^2 and Cauchy-Schwarz): {@link #l2Sensitivity} and {@link #l1Sensitivity}, rounded up.
 *
 * <p><b>Bias and timing.</b> Rejecting roundings biases the result towards smaller norms (their
 * Section 4.1); SMM avoids this step. The number of attempts depends on x, so the time taken leaks
 * a little about it: callers announce the message only after the whole encoding, as with the
 * noise samplers ({@link dev.helmet.privacy.noise.DiscreteNoise}).
 *
 * <p>Immutable and thread-safe (the bits are passed in).
 */
public final class ConditionalRounding {
  /** beta = e^-0.5, as Kairouz et al. recommend and Bao et al. use. */
  public static final double DEFAULT_BETA = Math.exp(-0.5);

  /**
   * Attempts before giving up: for ||x|| <= r each attempt fails with probability at most beta, so
   * giving up has probability below beta^10000 (1e-2171 for the default beta).
   */
  public static final int MAX_ATTEMPTS = 10_000;

  /** Largest r + sqrt(D): B and every partial sum of squares then fit in a long. */
  static final double MAX_RADIUS = 0x1p31;

  /** Slack on ||x||_2 <= r for the floating-point error of clipping and rotating (relative). */
  private static final double NORM_SLACK = 1 + 1e-9;

  private final double radius;
  private final int dimension;
  private final double beta;
  private final long squaredBound;
  private final long rootBound;

  /**
   * Rounding of vectors of {@code dimension} coordinates whose L2 norm is at most {@code radius},
   * with {@code beta} in [0, 1).
   */
  public ConditionalRounding(double radius, int dimension, double beta) {
    Checks.require(radius > 0 && Double.isFinite(radius), "radius must be positive. Provided value: " + radius);
    Checks.positive("dimension", dimension);
    Checks.require(beta >= 0 && beta < 1, "beta must be in [0, 1). Provided value: " + beta);
    Checks.require(radius + Math.sqrt(dimension) < MAX_RADIUS,
        "radius + sqrt(dimension) must be below 2^31. Provided value: " + (radius + Math.sqrt(dimension)));
    this.radius = radius;
    this.dimension = dimension;
    this.beta = beta;
    // floor of a double below 2^62: exact; that B may exceed the formula by an ulp's worth is
    // harmless, as the accounting uses B itself.
    this.squaredBound = (long) Math.floor(squaredNormBound(radius, dimension, beta));
    Checks.require(squaredBound >= 1, "radius " + radius + ", dimension " + dimension + " and beta " + beta
        + " give the squared-norm bound B = 0: only the zero vector would pass the rounding. Raise the radius or"
        + " lower beta.");
    long s = (long) Math.sqrt((double) squaredBound);
    while (s * s > squaredBound) {
      s--;
    }
    while ((s + 1) * (s + 1) <= squaredBound) {
      s++;
    }
    this.rootBound = s; // floor(sqrt(B)): an integer coordinate above it alone breaks the bound
  }

  /**
   * The real bound on ||y||_2^2 of Kairouz et al., Theorem 1: min(r^2 + D/4 + sqrt(2 ln(1/beta))
   * (r + sqrt(D)/2), (r + sqrt(D))^2); the second term alone for beta = 0.
   */
  public static double squaredNormBound(double radius, int dimension, double beta) {
    double sqrtD = Math.sqrt(dimension);
    double always = (radius + sqrtD) * (radius + sqrtD);
    if (beta == 0) {
      return always;
    }
    double likely = radius * radius + dimension / 4.0 + Math.sqrt(2 * Math.log(1 / beta)) * (radius + sqrtD / 2);
    return Math.min(likely, always);
  }

  /** r, the bound on the L2 norm of the vectors rounded. */
  public double radius() {
    return radius;
  }

  /** D, the dimension of the vectors rounded. */
  public int dimension() {
    return dimension;
  }

  /** beta. */
  public double beta() {
    return beta;
  }

  /** B, the enforced bound on the squared L2 norm of every output. */
  public long squaredBound() {
    return squaredBound;
  }

  /** sqrt(B), rounded up: the L2 sensitivity of one output under add-or-remove neighbours. */
  public double l2Sensitivity() {
    return Math.nextUp(Math.sqrt(Math.nextUp((double) squaredBound)));
  }

  /**
   * floor(sqrt(B)), exactly: the L-infinity sensitivity of one output (no integer coordinate of a
   * vector within the bound exceeds it).
   */
  public long lInfSensitivity() {
    return rootBound;
  }

  /** min(B, sqrt(D B)), rounded up: the L1 sensitivity of one output. */
  public double l1Sensitivity() {
    double b = Math.nextUp((double) squaredBound);
    return Math.min(b, Math.nextUp(Math.sqrt(Math.nextUp((double) dimension * b))));
  }

  /**
   * The rounded vector: stochastic roundings of {@code x} (length D, ||x||_2 <= r up to a relative
   * 1e-9) drawn from {@code bits} until one has squared L2 norm at most B.
   *
   * @throws IllegalStateException after {@link #MAX_ATTEMPTS} failures (probability below
   *     beta^10000 for a valid x)
   */
  public long[] round(double[] x, RandomBits bits) {
    long[] y = new long[dimension];
    roundInto(x, y, bits);
    return y;
  }

  /** {@link #round} into {@code y} (length D, overwritten), for callers that keep one buffer. */
  public void roundInto(double[] x, long[] y, RandomBits bits) {
    if (x.length != dimension) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("vector length must be " + dimension + ". Provided value: " + x.length);
    }
    if (y.length != dimension) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("output length must be " + dimension + ". Provided value: " + y.length);
    }
    double norm = l2Norm(x);
    if (!(norm <= radius * NORM_SLACK)) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("vector L2 norm must be at most the radius " + radius
          + ". Provided value: " + norm);
    }
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      StochasticRounding.roundAll(x, y, bits);
      if (withinBound(y)) {
        return;
      }
    }
    throw new IllegalStateException("conditional rounding failed " + MAX_ATTEMPTS + " times (beta " + beta + ")");
  }

  /** Whether ||y||_2^2 <= B, exactly (no overflow: each square and partial sum stays below 2^63). */
  public boolean withinBound(long[] y) {
    long sum = 0;
    for (long v : y) {
      if (v > rootBound || v < -rootBound) {
        return false;
      }
      sum += v * v; // <= B < 2^62, and sum <= B before the addition
      if (sum > squaredBound) {
        return false;
      }
    }
    return true;
  }

  /**
   * ||x||_2: the square root of the kernels' dot product of x with itself ({@link Blas#dot}); if
   * that overflows or is small enough for squares to have underflowed, a second computation scales
   * x by a power of two near 1 / max |x_j| first (exact unless a scaled value is subnormal; the
   * norm only gates an argument check, privacy rests on {@link #withinBound}).
   */
  static double l2Norm(double[] x) {
    double s = Blas.dot(x, 0, x, 0, x.length);
    if (s >= 0x1p-900 && s < Double.POSITIVE_INFINITY) {
      // squares lost to underflow are each below 2^-1022, with at most 2^31 of them below 2^-91 of s
      return Math.sqrt(s);
    }
    return scaledNorm(x);
  }

  private static double scaledNorm(double[] x) {
    double max = 0;
    for (double v : x) {
      max = Math.max(max, Math.abs(v));
    }
    if (max == 0 || !Double.isFinite(max)) {
      return max;
    }
    double scale = Math.scalb(1.0, -Math.getExponent(max));
    double s = 0;
    for (double v : x) {
      double t = v * scale;
      s += t * t;
    }
    return Math.sqrt(s) / scale;
  }

  /**
   * x scaled to L2 norm at most {@code c} (unchanged if already within): DP-SGD's clip, the first
   * step of both encoders. A new array.
   */
  public static double[] clipL2(double[] x, double c) {
    double[] out = new double[x.length];
    clipL2Into(x, c, out);
    return out;
  }

  /** {@link #clipL2} into {@code out} (x's length). */
  private static void clipL2Into(double[] x, double c, double[] out) {
    if (!(c > 0 && Double.isFinite(c))) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("clip norm must be positive. Provided value: " + c);
    }
    double norm = l2Norm(x);
    if (!Double.isFinite(norm)) { // hot path: the message is built only on failure
      throw new IllegalArgumentException("vector must be finite");
    }
    double f = norm > c ? c / norm : 1;
    for (int j = 0; j < x.length; j++) {
      out[j] = norm > c ? x[j] * f : x[j];
    }
  }


  /**
   * The clipped, rotated and scaled vector that {@link #round} rounds: gamma H D_xi clip_c(x) /
   * sqrt(D), of length D and L2 norm c gamma (up to rounding). Shared by both encoders.
   */
  public static double[] clipRotateScale(RandomizedHadamard rotation, double[] x, double c, double gamma) {
    double[] g = new double[rotation.paddedDimension()];
    clipRotateScaleInto(rotation, x, c, gamma, new double[x.length], g);
    return g;
  }

  /**
   * {@link #clipRotateScale} into {@code out} (length D), with {@code clipped} (x's length) for the
   * clipped x: the same values, bit for bit, for callers that keep the buffers.
   */
  public static void clipRotateScaleInto(RandomizedHadamard rotation, double[] x, double c, double gamma,
      double[] clipped, double[] out) {
    if (clipped.length != x.length || clipped == x || clipped == out) { // hot path
      throw new IllegalArgumentException("the clip buffer must be a new array of the vector's length " + x.length);
    }
    clipL2Into(x, c, clipped);
    rotation.rotateInto(clipped, out);
    for (int j = 0; j < out.length; j++) {
      out[j] *= gamma;
    }
  }
}
