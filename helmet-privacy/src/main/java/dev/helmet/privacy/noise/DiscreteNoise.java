package dev.helmet.privacy.noise;

import dev.helmet.core.util.Checks;
import java.math.BigInteger;

/**
 * Exact samplers on the integers: every draw has exactly the stated distribution, given uniform
 * bits from {@link RandomBits}, so nothing about the unnoised value leaks through rounding
 * (Mironov 2012).
 *
 * <ul>
 *   <li>the discrete Gaussian {@code N_Z(0, sigma^2)}, P[x] proportional to exp(-x^2 / (2
 *       sigma^2)), for rational sigma^2 (Canonne, Kamath, Steinke, NeurIPS 2020, Algorithm 3:
 *       a discrete Laplace proposal with scale t = floor(sigma) + 1, accepted with probability
 *       exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)));
 *   <li>Poisson(lambda) for rational lambda = num/den up to 2^40, in constant expected time:
 *       inversion of its distribution function for lambda < 256; above, rejection from a
 *       "table mountain" envelope (a flat top over floor(lambda) +- w, geometric tails);
 *   <li>the symmetric Skellam Sk(lambda, lambda) = Poisson(lambda) - Poisson(lambda);
 *   <li>the centred binomial Bin(N, 1/2) - N/2 for even N, in constant expected time up to 2^33
 *       trials ({@link BinomialSampler}: rejection from a step envelope of blocks with weights
 *       4^-k), and as an exact sum of such draws above (binomials with one p add up).
 * </ul>
 *
 * <p><b>Why exact.</b> Every random decision in these samplers has the form "U < c": a fresh
 * uniform real U in [0, 1) against a real constant c that is defined exactly (an exp(-p/q), a
 * rational, a ratio of factorials). U is known through its first k bits v (k = 53; the discrete
 * Gaussian cuts a 40-bit and a 23-bit uniform and a sign from one word), so U lies in [v, v + 1)
 * 2^-k. A floating-point approximation of c, whose error is bounded using only what the Java
 * specification guarantees (correctly rounded + - * / and conversions; Math.exp, Math.log and
 * Math.log1p within one ulp), gives an interval [c (1 - rel), c (1 + rel)] proved to contain c
 * (each site states its error analysis; rel <= 2^-20, mostly near 2^-45). If U's interval lies
 * on one side of it, the answer is certain; otherwise (probability about 2^-k + 4 rel) the same U
 * is compared exactly by {@link LazyUniform}, which reveals more of U's bits from the generator
 * and bounds c with BigInteger arithmetic until the two separate. So floating point decides only
 * where the exact comparison gives the same answer: each decision is exactly [U < c], and the
 * output is a function of the random bits alone, whatever the rounding. (A geometric variate
 * floor(ln U / ln rho) is a search over such decisions, U < rho^g, pre-checked as a whole.) Where
 * a pre-check decides, U's interval is much farther from c than the 2^-(k + 62) that the exact
 * comparison resolves without reading more bits, so the fast and the exact path consume the same
 * bits too: the draws for a seed do not depend on the JVM's Math.exp or Math.log. Integer choices
 * (a sign, a uniform position) use integer arithmetic only. {@link #DiscreteNoise(RandomBits,
 * boolean)} with {@code exactOnly} sends every decision through the exact path; tests check that
 * it gives the same draws for the same bits, also with U's prefix placed next to each kind of
 * constant (DiscreteNoiseBoundaryTest). No BigInteger is touched unless a pre-check is unsure (or
 * a parameter is beyond the ranges stated at each method).
 *
 * <p><b>Where.</b> {@link ExactDecisions} holds the generic pre-checks, {@link LazyUniform} the
 * exact comparison, {@link DiscreteGaussian} the discrete Laplace and Gaussian, {@link
 * PoissonSampler} with {@link PoissonInversion} and {@link PoissonEnvelope} the Poisson; each
 * states the error analysis of its pre-checks.
 *
 * <p><b>Timing.</b> These are rejection samplers: how long one draw takes depends on the value
 * drawn (a proposal may be rejected; a rare draw takes the slow exact path), so the time of a
 * single draw leaks a little about it. Callers draw a party's whole noise vector at once, in the
 * background while the round's key exchange goes out, and announce the masked input only when
 * both are done, so an observer sees at most the total time of thousands of draws, and only where
 * it exceeds the key exchange's network round trips; nothing is sent between draws.
 *
 * <p>Not thread-safe (one per thread or party).
 */
public final class DiscreteNoise {
  private final RandomBits bits;
  private final boolean exactOnly;

  /** The discrete Gaussian sampler for the last sigma^2 (null: none yet). */
  private DiscreteGaussian gaussian;

  /** The Poisson sampler for the last lambda = pNum / pDen (null: none yet). */
  private PoissonSampler pSampler;
  private long pNum;
  private long pDen;

  /** The binomial sampler for the last number of trials below 2^33 (null: none yet). */
  private BinomialSampler binomial;
  /** The binomial sampler of 2^33 trials, for larger counts (null: none yet). */
  private BinomialSampler binomialChunk;

  public DiscreteNoise(RandomBits bits) {
    this(bits, false);
  }

  /**
   * With {@code exactOnly}, every decision takes the exact BigInteger path (slow: for tests, which
   * check that it gives the same draws as the fast path for the same bits).
   */
  DiscreteNoise(RandomBits bits, boolean exactOnly) {
    this.bits = Checks.notNull("random bits", bits);
    this.exactOnly = exactOnly;
  }

  /** A sampler on a fresh secure source. */
  public static DiscreteNoise secure() {
    return new DiscreteNoise(RandomBits.secure());
  }

  /** Whether the underlying bits are cryptographically secure. */
  public boolean isSecure() {
    return bits.isSecure();
  }

  /**
   * Bernoulli(exp(-num/den)) for num >= 0, den > 0, exactly. Pre-check: num / den in double has
   * relative error at most 3 2^-53 (two conversions and a division), within eErr = e 2^-50.
   */
  boolean bernoulliExp(long num, long den) {
    if (num < 0 || den <= 0) {
      throw new IllegalArgumentException("exp(-" + num + "/" + den + ") needs num >= 0, den > 0");
    }
    long v = ExactDecisions.uniform53(bits);
    if (!exactOnly) {
      double e = (double) num / (double) den;
      int r = e > 0x1p20 ? ExactDecisions.below(v, 0, 0x1p-50)
          : ExactDecisions.belowExpNeg(v, ExactDecisions.TWO53, e, e * 0x1p-50);
      if (r != ExactDecisions.UNSURE) {
        return r == ExactDecisions.YES;
      }
    }
    return new LazyUniform(bits, v, 53).below(LazyUniform.expNeg(BigInteger.valueOf(num), BigInteger.valueOf(den)));
  }

  /** The discrete Laplace distribution with scale t >= 1, P[x] proportional to exp(-|x|/t). */
  long discreteLaplace(long t) {
    return DiscreteGaussian.discreteLaplace(bits, exactOnly, t);
  }

  /** The discrete Gaussian N_Z(0, sigma2) for integer {@code sigma2 >= 1}. */
  public long discreteGaussian(long sigma2) {
    Checks.require(sigma2 >= 1, "sigma^2 must be a positive integer. Provided value: " + sigma2);
    return discreteGaussian(sigma2, 1);
  }

  /** The discrete Gaussian N_Z(0, sigma^2) for rational sigma^2 = num / den > 0. */
  public long discreteGaussian(long num, long den) {
    return gaussianSampler(num, den).sample();
  }

  /** Fills {@code out} with independent draws of N_Z(0, sigma2), integer {@code sigma2 >= 1}. */
  public void fillDiscreteGaussian(long[] out, long sigma2) {
    Checks.require(sigma2 >= 1, "sigma^2 must be a positive integer. Provided value: " + sigma2);
    DiscreteGaussian g = gaussianSampler(sigma2, 1);
    for (int i = 0; i < out.length; i++) {
      out[i] = g.sample();
    }
  }

  private DiscreteGaussian gaussianSampler(long num, long den) {
    if (gaussian == null || num != gaussian.num || den != gaussian.den) {
      gaussian = new DiscreteGaussian(bits, exactOnly, num, den);
    }
    return gaussian;
  }

  /** Poisson(num / den) for num >= 0, den > 0, num / den <= 2^40; constant expected time. */
  public long poisson(long num, long den) {
    return poissonSampler(num, den).sample();
  }

  /** The symmetric Skellam Sk(num/den, num/den): the difference of two independent Poissons. */
  public long skellam(long num, long den) {
    PoissonSampler p = poissonSampler(num, den);
    return p.sample() - p.sample();
  }

  /** Fills {@code out} with independent draws of Sk(num/den, num/den). */
  public void fillSkellam(long[] out, long num, long den) {
    PoissonSampler p = poissonSampler(num, den);
    for (int i = 0; i < out.length; i++) {
      out[i] = p.sample() - p.sample();
    }
  }

  /** The most trials a centred binomial draw takes (2^52: the count stays exact as a double). */
  public static final long MAX_BINOMIAL_TRIALS = 1L << 52;

  /**
   * The centred binomial Bin(trials, 1/2) - trials/2 (cpSGD's noise), for even trials in [0, 2^52]:
   * constant expected time up to 2^33 trials; above, the exact sum of ceil(trials / 2^33) draws.
   */
  public long centredBinomial(long trials) {
    checkTrials(trials);
    return binomialDraw(trials);
  }

  /** Fills {@code out} with independent draws of Bin(trials, 1/2) - trials/2. */
  public void fillCentredBinomial(long[] out, long trials) {
    checkTrials(trials);
    for (int i = 0; i < out.length; i++) {
      out[i] = binomialDraw(trials);
    }
  }

  private static void checkTrials(long trials) {
    Checks.require(trials >= 0 && trials <= MAX_BINOMIAL_TRIALS && trials % 2 == 0,
        "binomial trials must be even and in [0, 2^52]. Provided value: " + trials);
  }

  private long binomialDraw(long trials) {
    long rest = trials;
    long sum = 0;
    while (rest > BinomialSampler.MAX_TRIALS) {
      if (binomialChunk == null) {
        binomialChunk = new BinomialSampler(bits, exactOnly, BinomialSampler.MAX_TRIALS);
      }
      sum += binomialChunk.sample();
      rest -= BinomialSampler.MAX_TRIALS;
    }
    if (rest == BinomialSampler.MAX_TRIALS && binomialChunk != null) {
      return sum + binomialChunk.sample();
    }
    if (binomial == null || binomial.trials() != rest) {
      binomial = new BinomialSampler(bits, exactOnly, rest);
    }
    return sum + binomial.sample();
  }

  private PoissonSampler poissonSampler(long num, long den) {
    if (pSampler == null || num != pNum || den != pDen) {
      pSampler = PoissonSampler.of(bits, exactOnly, num, den);
      pNum = num;
      pDen = den;
    }
    return pSampler;
  }
}
