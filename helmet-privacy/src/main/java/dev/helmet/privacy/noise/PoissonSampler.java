package dev.helmet.privacy.noise;

import dev.helmet.core.util.Checks;

/**
 * Poisson(lambda) for one rational lambda = num / den, 0 <= lambda < 2^40, in constant expected
 * time: {@link PoissonInversion} below lambda 256, {@link PoissonEnvelope} above. Every decision is
 * exact as {@link DiscreteNoise} explains.
 */
abstract class PoissonSampler {
  /** Poisson by inversion below this lambda, by rejection from the envelope above. */
  static final long INVERSION_MAX = 256;
  /** Largest lambda: keeps every integer of the Poisson envelope exact in a double. */
  static final long MAX_LAMBDA = 1L << 40;

  final RandomBits bits;
  final boolean exactOnly;

  PoissonSampler(RandomBits bits, boolean exactOnly) {
    this.bits = bits;
    this.exactOnly = exactOnly;
  }

  /** One draw. */
  abstract long sample();

  /** The sampler for lambda = num / den (num >= 0, den > 0, num / den < 2^40). */
  static PoissonSampler of(RandomBits bits, boolean exactOnly, long num, long den) {
    Checks.require(num >= 0 && den > 0 && num / den < MAX_LAMBDA,
        "Poisson rate num/den must be >= 0 and below 2^40. Provided value: " + num + "/" + den);
    if (num == 0) {
      return new PoissonSampler(bits, exactOnly) {
        @Override
        long sample() {
          return 0;
        }
      };
    }
    if (num / den < INVERSION_MAX) {
      return new PoissonInversion(bits, exactOnly, num, den);
    }
    return new PoissonEnvelope(bits, exactOnly, num, den);
  }

  final long uniform53() {
    return ExactDecisions.uniform53(bits);
  }

  /** A uniform integer in [0, n), 1 <= n <= 2^31, exactly: Lemire's multiply-shift with rejection. */
  final long uniformInt(long n) {
    long x = bits.nextLong() >>> 32;
    long m = x * n;
    long low = m & 0xffffffffL;
    if (low < n) {
      long threshold = ((1L << 32) - n) % n; // 2^32 mod n: the values of low to reject
      while (low < threshold) {
        x = bits.nextLong() >>> 32;
        m = x * n;
        low = m & 0xffffffffL;
      }
    }
    return m >>> 32;
  }
}
