package dev.helmet.privacy.noise;

import dev.helmet.core.util.Checks;

/**
 * The centred binomial Bin(N, 1/2) - N/2 for even N = 2M, exactly, in constant expected time
 * however large N is (cpSGD's noise: Agarwal et al., NeurIPS 2018). Counting N coin flips costs N
 * bits a draw, which is out of reach for the millions of trials that privacy at a few bits per
 * coordinate needs; this is a rejection sampler after Bringmann, Kuhn, Panagiotou, Peter and
 * Thomas (ICALP 2014, "Internal DLA"), its acceptance decided as {@link DiscreteNoise} decides
 * every comparison: exactly.
 *
 * <p><b>The target.</b> P[X = M + t] = C(2M, M + t) / 4^M, proportional to r(|t|), where r(0) = 1
 * and r(d) = C(2M, M + d) / C(2M, M) = prod_{i=1}^{d} (M + 1 - i) / (M + i) (zero for d > M).
 *
 * <p><b>The envelope.</b> A block k >= 0 is drawn with P[k] = (3/4) 4^-k (the number of leading
 * all-zero pairs of random bits), a side s in {0, 1} and an offset i uniform in [0, w); j = k w +
 * i, and the candidate is t = j (s = 0) or t = -(j + 1) (s = 1), so every integer t is proposed by
 * exactly one (s, k, i), with weight proportional to 4^-k. It is accepted with probability r(|t|)
 * 4^k, so P[t] is proportional to r(|t|), the target. That probability is at most 1 when r(k w) <=
 * 4^-k for every k >= 1 (r decreases, and |t| >= j). Proof: each factor of r(j) is 1 - (2i - 1) /
 * (M + i) in [0, 1] and ln(1 - x) <= -x, so r(j) <= exp(-sum_{i <= j} (2i - 1) / (M + j)) =
 * exp(-j^2 / (M + j)); at j = k w this is at most exp(-k ln 4) when k w^2 >= ln 4 (M + k w),
 * which for every k >= 1 follows from w^2 >= ln 4 (M + w); the width w is the smallest integer
 * with 10000 w^2 >= 13863 (M + w), checked in integer arithmetic (1.3863 > ln 4 = 1.386294...).
 * A proposal is accepted with probability sqrt(pi M) / (8 w / 3), about 0.56: about 1.8 proposals
 * a draw.
 *
 * <p><b>Exactness.</b> The block, side and offset use integer bits only. The acceptance is the
 * decision U < c with c = r(d) 4^k: for d up to 12 blocks a double t_d is tabled, t_d = t_{d-1}
 * (M + 1 - d) / (M + d) (integers below 2^34, exact as doubles; one product and one quotient,
 * each within 2^-53 relative; M + d < 2^33), so t_d is within (1 + 2^-53)^(2d) - 1 < 3 d 2^-53 of r(d), and the
 * scaling by 4^k is exact; {@link ExactDecisions#below} decides with that error, and the rare
 * undecided case, or a proposal beyond the table (probability 4^-12), compares the same U exactly
 * with {@link LazyUniform#factorProduct}, except where c < 2^-53 is proven (below), so that U >= 2^-53
 * rejects. Every decision is exactly [U < c] whatever the rounding.
 *
 * <p><b>Beyond the table</b> (d >= its length), c < 2^-53: either the table stopped where the
 * computed t fell below 2^-1000 with k < 12, so r(d) < 2^-999 and c < 2^-975; or k >= 12, and with
 * k w <= d <= M, r(d) <= exp(-(k w)^2 / (M + k w)) <= exp(-k^2 w^2 / (2M)) <= exp(-k^2 ln 4 / 2)
 * (as w^2 >= ln 4 M), so c <= 2^(2k - k^2) <= 2^-120. A U whose first 53 bits are not all zero is
 * then at least 2^-53 > c: rejected exactly, without the O(d) exact product.
 *
 * <p>Not thread-safe.
 */
final class BinomialSampler {
  /**
   * The most trials of one sampler: its table (12 w + 1 doubles, w about sqrt(1.39 N / 2)) stays
   * below 8 MB. {@link DiscreteNoise#centredBinomial} draws more as a sum of such draws.
   */
  static final long MAX_TRIALS = 1L << 33;
  /** Envelope blocks with tabled acceptance constants. */
  private static final int TABLE_BLOCKS = 12;

  private final RandomBits bits;
  private final boolean exactOnly;
  private final long trials;
  private final long half;
  private final long width;
  private final double[] ratio;
  private final double rel;

  BinomialSampler(RandomBits bits, boolean exactOnly, long trials) {
    Checks.require(trials >= 0 && trials <= MAX_TRIALS && trials % 2 == 0,
        "binomial trials of one sampler must be even and in [0, 2^33]. Provided value: " + trials);
    this.bits = bits;
    this.exactOnly = exactOnly;
    this.trials = trials;
    this.half = trials / 2;
    this.width = blockWidth(half);
    int n = (int) Math.min(half + 1, TABLE_BLOCKS * width + 1);
    double[] t = new double[n];
    t[0] = 1;
    int filled = 1;
    // Stops before a value could leave the normal range, where the relative error bound would fail:
    // a value below 2^-1000 is not kept (its successors are smaller still).
    while (filled < n) {
      long d = filled;
      double next = t[filled - 1] * (double) (half + 1 - d) / (double) (half + d);
      if (next < 0x1p-1000) {
        break;
      }
      t[filled++] = next;
    }
    this.ratio = java.util.Arrays.copyOf(t, filled);
    this.rel = Math.max(0x1p-50, 3.0 * filled * 0x1p-53);
  }

  /**
   * The envelope's block width for M: the smallest w >= 1 with 10000 w^2 >= 13863 (M + w) (no
   * overflow: M <= 2^32 keeps both sides below 2^63).
   */
  static long blockWidth(long half) {
    long w = Math.max(1, (long) Math.sqrt(1.3863 * half) - 2);
    while (10000 * w * w < 13863 * (half + w)) {
      w++;
    }
    while (w > 1 && 10000 * (w - 1) * (w - 1) >= 13863 * (half + w - 1)) {
      w--;
    }
    return w;
  }

  long trials() {
    return trials;
  }

  /** How many of r(0), r(1), ... are tabled (for tests). */
  int tabled() {
    return ratio.length;
  }

  /** The tabled approximation of r(d) and its relative error bound (for tests). */
  double[] tabledRatio(int d) {
    return new double[] {ratio[d], rel};
  }

  /** r(d) 4^k as the exact path compares it (for tests). */
  LazyUniform.Real exactAcceptance(long d, int k) {
    LazyUniform.Real product = LazyUniform.factorProduct(1, d, -1, half + 1, 1, half);
    return p -> product.at(p + 2 * k);
  }

  /** One draw of Bin(N, 1/2) - N/2. */
  long sample() {
    if (half == 0) {
      return 0;
    }
    while (true) {
      long k = block();
      int side = bits.nextBit();
      long offset = bits.nextLong(width);
      if (k > half / width) {
        continue; // j = k w + offset > M: outside the support, r = 0
      }
      long j = k * width + offset;
      long d = side == 0 ? j : j + 1;
      if (d > half) {
        continue;
      }
      if (accept(d, (int) k)) {
        return side == 0 ? d : -d;
      }
    }
  }

  /** k with P[k] = (3/4) 4^-k: the leading all-zero pairs of a stream of random bits. */
  private long block() {
    long k = 0;
    while (true) {
      int z = Long.numberOfLeadingZeros(bits.nextLong());
      if (z < 64) {
        return k + z / 2;
      }
      k += 32;
    }
  }

  /** Bernoulli(r(d) 4^k), exactly (r(d) 4^k <= 1, shown above). */
  private boolean accept(long d, int k) {
    long v = ExactDecisions.uniform53(bits);
    if (!exactOnly) {
      if (d >= ratio.length && v >= 1) {
        return false; // c < 2^-53 <= U beyond the table (see the class comment)
      }
      if (d < ratio.length) {
        int r = ExactDecisions.below(v, Math.scalb(ratio[(int) d], 53 + 2 * k), rel);
        if (r != ExactDecisions.UNSURE) {
          return r == ExactDecisions.YES;
        }
      }
    }
    return new LazyUniform(bits, v, 53).below(exactAcceptance(d, k));
  }
}
