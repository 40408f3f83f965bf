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
 *   <li>the symmetric Skellam Sk(lambda, lambda) = Poisson(lambda) - Poisson(lambda).
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
 * output is a function of the random bits alone, whatever the rounding. Integer choices (a sign,
 * a uniform position) use integer arithmetic only. {@link #DiscreteNoise(RandomBits, boolean)}
 * with {@code exactOnly} sends every decision through the exact path; tests check that it gives
 * the same draws for the same bits. No BigInteger is touched unless a pre-check is unsure (or a
 * parameter is beyond the ranges stated at each method).
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
  private static final int NO = 0;
  private static final int YES = 1;
  private static final int UNSURE = -1;
  private static final double TWO53 = 0x1p53;
  /** Below this, ln(b!/a!) is summed term by term instead of by Stirling's series. */
  private static final long STIRLING_MIN = 40;
  /** Poisson by inversion below this lambda, by rejection from the envelope above. */
  private static final long INVERSION_MAX = 256;
  /** Largest lambda: keeps every integer of the Poisson envelope exact in a double. */
  private static final long MAX_LAMBDA = 1L << 40;

  private final RandomBits bits;
  private final boolean exactOnly;

  // The discrete Gaussian's parameters for the last sigma^2 = gNum / gDen (gDen == 0: none yet).
  private long gNum;
  private long gDen;
  private long gT;
  private long gDT;
  private long gMaxFast;
  private double gInvScale;
  private BigInteger gBigDen;

  // The Poisson sampler for the last lambda = pNum / pDen.
  private PoissonSampler pSampler;
  private long pNum;
  private long pDen;

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
   * Decides U < c for a uniform U known to lie in [v, v + 1) 2^-k (its first k bits are v), from x,
   * an approximation of c 2^k with x (1 - rel) <= c 2^k <= max(x (1 + rel), 1/2), for 2^-50 <= rel
   * <= 2^-20. The products below round by at most 2^-53 relative, which the factor 2 on rel
   * absorbs: YES means v + 1 <= x (1 - rel) <= c 2^k, so U < c; NO means v >= x (1 + rel) and v >=
   * 1, so U >= v 2^-k >= c. UNSURE (U's interval meets the band) is left to the exact comparison.
   */
  private static int below(long v, double x, double rel) {
    if (v + 1 <= x * (1 - 2 * rel)) {
      return YES;
    }
    if (v != 0 && v >= x * (1 + 2 * rel)) {
      return NO;
    }
    return UNSURE;
  }

  /**
   * Decides U < exp(-e) for a uniform U known to lie in [a, a + 1) / scale (scale = 2^k, its first k
   * <= 53 bits are a), from ed, a double within eErr <= 2^-21 of the true e >= 0.
   *
   * <p>For ed <= 1, a squeeze saves the exponential: 1 - e + e^2/2 - e^3/6 <= exp(-e) <= 1 - e +
   * e^2/2 for every e >= 0 (Taylor's theorem; the remainders e^4/24 exp(-z) and -e^3/6 exp(-z) have
   * fixed signs). On [-2^-21, 1 + 2^-21] both polynomials have slopes below 1 + 2^-20 in absolute
   * value, and Horner's rule evaluates them with rounding error below 10 2^-53, so shifted by 1.01
   * eErr + 2^-46 they bound exp(-e) for the true e. Otherwise, if ed - eErr > 38, exp(-e) < e^-38 <
   * 2^-54, below any nonzero prefix; else Math.exp(-ed) (within one ulp) is within a factor exp(+-
   * eErr) (1 +- 2^-52) of exp(-e), the contract of {@link #below} with rel = 1.01 eErr + 2^-50.
   */
  private static int belowExpNeg(long a, double scale, double ed, double eErr) {
    if (ed <= 1) {
      double slack = 1.01 * eErr + 0x1p-46;
      double lower = 1 - ed * (1 - ed * (0.5 - ed * (1.0 / 6)));
      if (a + 1 <= (lower - slack) * scale) {
        return YES;
      }
      double upper = 1 - ed * (1 - 0.5 * ed);
      if (a >= (upper + slack) * scale) {
        return NO;
      }
    }
    if (ed - eErr > 38) {
      return below(a, 0, 0x1p-50);
    }
    return below(a, Math.exp(-ed) * scale, 1.01 * eErr + 0x1p-50);
  }

  private long uniform53() {
    return bits.nextLong() >>> 11;
  }

  /**
   * Bernoulli(exp(-num/den)) for num >= 0, den > 0, exactly. Pre-check: num / den in double has
   * relative error at most 3 2^-53 (two conversions and a division), within eErr = e 2^-50.
   */
  boolean bernoulliExp(long num, long den) {
    if (num < 0 || den <= 0) {
      throw new IllegalArgumentException("exp(-" + num + "/" + den + ") needs num >= 0, den > 0");
    }
    long v = uniform53();
    if (!exactOnly) {
      double e = (double) num / (double) den;
      int r = e > 0x1p20 ? below(v, 0, 0x1p-50) : belowExpNeg(v, TWO53, e, e * 0x1p-50);
      if (r != UNSURE) {
        return r == YES;
      }
    }
    return new LazyUniform(bits, v, 53).below(LazyUniform.expNeg(BigInteger.valueOf(num), BigInteger.valueOf(den)));
  }

  /**
   * G = floor(-t ln U) for a uniform U whose first 40 bits are v: P[G >= k] = P[U <= exp(-k/t)] =
   * exp(-k/t), the geometric distribution of the discrete Laplace with scale t. Pre-check, for v
   * >= 2^17 and integer t: ln U lies in [ln(v 2^-40), ln(v 2^-40) + 1/v); Math.log is within one
   * ulp (2^-48, as |ln| < 28) and the product with t rounds by less than 2^-48 t, so -t ln U lies
   * within t (1/v + 2^-47) of gh. When the band t (1/v + 2^-44) around gh holds no integer, floor
   * is certain; otherwise the exact search compares U with exp(-k/t) for the candidates.
   */
  private long geometricExp(long v, long t) {
    double gh = v == 0 ? 28.0 * t : -(double) t * Math.log(v * 0x1p-40);
    if (!exactOnly && v >= (1L << 17)) {
      // 1/v <= 2^-(63 - nlz(v)) (v has 64 - nlz(v) bits), a power of two built without a division
      double band = t * (Double.longBitsToDouble((1023L - 63 + Long.numberOfLeadingZeros(v)) << 52) + 0x1p-44);
      double k = Math.floor(gh);
      if (gh - band > k && gh + band < k + 1) {
        return (long) k;
      }
    }
    return geometricExpExact(v, t, gh);
  }

  /** The exact path of {@link #geometricExp}, kept apart so that the hot path stays small. */
  private long geometricExpExact(long v, long t, double gh) {
    LazyUniform u = new LazyUniform(bits, v, 40);
    long k = v >= (1L << 17) ? (long) Math.floor(gh) : (long) Math.floor(-t * u.lnEstimate());
    BigInteger bt = BigInteger.valueOf(t);
    // k must satisfy exp(-(k+1)/t) <= U < exp(-k/t) (U equals either with probability 0)
    while (k > 0 && !u.below(LazyUniform.expNeg(BigInteger.valueOf(k), bt))) {
      k--;
    }
    while (u.below(LazyUniform.expNeg(BigInteger.valueOf(k + 1), bt))) {
      k++;
    }
    return k;
  }

  /**
   * The discrete Laplace distribution with scale t, P[x] proportional to exp(-|x|/t): G from
   * {@link #geometricExp} on the top 40 bits of a word and the sign from its lowest bit; (negative,
   * 0) is rejected so that 0 is not counted twice.
   */
  long discreteLaplace(long t) {
    while (true) {
      long w = bits.nextLong();
      long g = geometricExp(w >>> 24, t);
      boolean negative = (w & 1) != 0;
      if (!(negative && g == 0)) {
        return negative ? -g : g;
      }
    }
  }

  /** The discrete Gaussian N_Z(0, sigma2) for integer {@code sigma2 >= 1}. */
  public long discreteGaussian(long sigma2) {
    Checks.require(sigma2 >= 1, "sigma^2 must be a positive integer. Provided value: " + sigma2);
    return discreteGaussian(sigma2, 1);
  }

  /** The discrete Gaussian N_Z(0, sigma^2) for rational sigma^2 = num / den > 0. */
  public long discreteGaussian(long num, long den) {
    if (gDen == 0 || num != gNum || den != gDen) {
      gaussianSetup(num, den);
    }
    return gaussianDraw();
  }

  /** Fills {@code out} with independent draws of N_Z(0, sigma2), integer {@code sigma2 >= 1}. */
  public void fillDiscreteGaussian(long[] out, long sigma2) {
    Checks.require(sigma2 >= 1, "sigma^2 must be a positive integer. Provided value: " + sigma2);
    if (sigma2 != gNum || gDen != 1) {
      gaussianSetup(sigma2, 1);
    }
    for (int i = 0; i < out.length; i++) {
      out[i] = gaussianDraw();
    }
  }

  private void gaussianSetup(long num, long den) {
    Checks.require(num >= 1 && den >= 1, "sigma^2 = num/den must have num >= 1 and den >= 1. Provided value: "
        + num + "/" + den);
    long t = BigInteger.valueOf(num / den).sqrt().longValueExact() + 1; // floor(sqrt(num/den)) + 1
    long dt;
    try {
      dt = Math.multiplyExact(den, t);
    } catch (ArithmeticException overflow) {
      dt = -1;
    }
    gT = t;
    gDT = dt;
    gMaxFast = dt > 0 ? Long.MAX_VALUE / dt : -1; // g * dt - num fits a long for g <= gMaxFast
    gInvScale = 1 / (2.0 * (double) num * (double) den * (double) t * (double) t);
    gBigDen = BigInteger.valueOf(num).multiply(BigInteger.valueOf(den)).shiftLeft(1)
        .multiply(BigInteger.valueOf(t)).multiply(BigInteger.valueOf(t));
    gNum = num;
    gDen = den;
  }

  /**
   * One 64-bit word a proposal: its top 40 bits are the uniform of the discrete Laplace's geometric
   * part, the next 23 the first bits of the acceptance test's uniform (the exact path reads more
   * from the generator when 23 do not decide, probability about 2^-22), the lowest bit the sign.
   */
  private long gaussianDraw() {
    final long t = gT;
    while (true) {
      long w = bits.nextLong();
      long g = geometricExp(w >>> 24, t);
      boolean negative = (w & 1) != 0;
      if (negative && g == 0) {
        continue;
      }
      if (gaussianAccept(g, (w >>> 1) & ((1L << 23) - 1))) {
        return negative ? -g : g;
      }
    }
  }

  /**
   * Bernoulli(exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2))) = Bernoulli(exp(-D^2 / (2 n d t^2))) with
   * sigma^2 = n/d and the integer D = |Y| d t - n, for the uniform whose first 23 bits are a.
   * Pre-check: D is exact in a long; e = D^2 (1 / (2 n d t^2)) in double has relative error below 10
   * 2^-53 (three conversions, four roundings for the reciprocal, two for the products), so eErr = e
   * 2^-48 is safe; beyond e = 2^20 the value is below 2^-54. Parameters with D beyond a long
   * (sigma^2 near 2^62) take the exact path every time.
   */
  private boolean gaussianAccept(long g, long a) {
    if (!exactOnly && g <= gMaxFast) {
      double d = (double) (g * gDT - gNum);
      double e = d * d * gInvScale;
      int r = e > 0x1p20 ? below(a, 0, 0x1p-50) : belowExpNeg(a, 0x1p23, e, e * 0x1p-48);
      if (r != UNSURE) {
        return r == YES;
      }
    }
    return gaussianAcceptExact(g, a);
  }

  private boolean gaussianAcceptExact(long g, long a) {
    BigInteger d = BigInteger.valueOf(g).multiply(BigInteger.valueOf(gDen)).multiply(BigInteger.valueOf(gT))
        .subtract(BigInteger.valueOf(gNum));
    return new LazyUniform(bits, a, 23).below(LazyUniform.expNeg(d.multiply(d), gBigDen));
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

  private PoissonSampler poissonSampler(long num, long den) {
    if (pSampler != null && num == pNum && den == pDen) {
      return pSampler;
    }
    Checks.require(num >= 0 && den > 0 && num / den < MAX_LAMBDA,
        "Poisson rate num/den must be >= 0 and below 2^40. Provided value: " + num + "/" + den);
    PoissonSampler s;
    if (num == 0) {
      s = () -> 0;
    } else if (num / den < INVERSION_MAX) {
      s = new PoissonInversion(num, den);
    } else {
      s = new PoissonEnvelope(num, den);
    }
    pSampler = s;
    pNum = num;
    pDen = den;
    return s;
  }

  /** A uniform integer in [0, n), 1 <= n <= 2^31, exactly: Lemire's multiply-shift with rejection. */
  private long uniformInt(long n) {
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

  @FunctionalInterface
  private interface PoissonSampler {
    long sample();
  }

  /**
   * Poisson(lambda), lambda < 256, by inversion: the least k with U < F(k), F the distribution
   * function, found from a table of F(k) 2^53 in double with a 256-entry guide table. Pre-check:
   * lambda in double has relative error 3 2^-53; exp(-lambda) then has at most (3 lambda + 2) 2^-53
   * (one ulp), each term lambda^k / k! computed as term * lambda / k adds 5 2^-53, and each
   * addition of positive terms 2^-53, so F(k) is within (6k + 3 lambda + 2) 2^-53 < 2^-39 relative
   * for k < 2000 (and exp(-lambda) > 10^-112 is a normal double). The table ends where F(k) exceeds 1 - 2^-46; U beyond it, or U within rel of a
   * table entry, goes to the exact search, where F(k) = exp(-lambda) A_k / B_k with A_k / B_k =
   * sum_{i <= k} lambda^i / i! as an exact rational.
   */
  private final class PoissonInversion implements PoissonSampler {
    private static final double REL = 0x1p-36;
    private final long num;
    private final long den;
    private final double[] x;
    private final int[] guide = new int[256];

    PoissonInversion(long num, long den) {
      this.num = num;
      this.den = den;
      double lambda = (double) num / (double) den;
      double term = Math.exp(-lambda);
      double f = term;
      double[] xs = new double[256];
      int n = 0;
      xs[n++] = f * TWO53;
      for (int k = 1; k < 2000 && 1 - f > 0x1p-46; k++) {
        term = term * lambda / k;
        f += term;
        if (n == xs.length) {
          xs = java.util.Arrays.copyOf(xs, 2 * n);
        }
        xs[n++] = f * TWO53;
      }
      this.x = java.util.Arrays.copyOf(xs, n);
      int k = 0;
      for (int i = 0; i < guide.length; i++) {
        double edge = i * 0x1p45; // bucket i holds v in [i 2^45, (i + 1) 2^45)
        while (k < n && x[k] <= edge) {
          k++;
        }
        guide[i] = k;
      }
    }

    @Override
    public long sample() {
      long v = uniform53();
      int n = x.length;
      int k = guide[(int) (v >>> 45)];
      while (k < n && x[k] <= v) {
        k++;
      }
      if (!exactOnly && k < n && below(v, x[k], REL) == YES && (k == 0 || below(v, x[k - 1], REL) == NO)) {
        return k; // F(k - 1) <= U < F(k)
      }
      LazyUniform u = new LazyUniform(bits, v, 53);
      long j = k;
      while (!u.below(cdf(j))) {
        j++;
      }
      while (j > 0 && u.below(cdf(j - 1))) {
        j--;
      }
      return j;
    }

    private LazyUniform.Real cdf(long k) {
      BigInteger bn = BigInteger.valueOf(num);
      BigInteger bd = BigInteger.valueOf(den);
      BigInteger a = BigInteger.ONE; // A_0 / B_0 = 1; A_j = A_{j-1} den j + num^j, B_j = B_{j-1} den j
      BigInteger b = BigInteger.ONE;
      BigInteger numPow = BigInteger.ONE;
      for (long j = 1; j <= k; j++) {
        BigInteger dj = bd.multiply(BigInteger.valueOf(j));
        numPow = numPow.multiply(bn);
        a = a.multiply(dj).add(numPow);
        b = b.multiply(dj);
      }
      return LazyUniform.ratioTimesExpNeg(a, b, bn, bd);
    }
  }

  /**
   * sum_{j=a+1}^{b} ln(j / x) = ln(b! / a!) - (b - a) ln x for 0 <= a <= b and x = xi + xf (xi >= 1
   * an integer below 2^41, 0 <= xf < 1 with absolute error at most 3 2^-53); sets
   * a bound on the error of the returned double in {@code err[0]}.
   *
   * <p>Terms j <= 40 are summed directly: x in double is within 4 2^-53 relative, j / x within 5,
   * so each Math.log is within 5.01 2^-53 + one ulp, and each addition rounds by 2^-53 of the
   * partial sum. Above, with r = b - a and Stirling's series ln n! = (n + 1/2) ln n - n + ln(2 pi)/2
   * + 1/(12n) - 1/(360 n^3) + 1/(1260 n^5) - ..., whose remainder is smaller than the first term
   * left out (1/(1680 n^7)) for real n > 0 (DLMF 5.11.ii), rewritten without cancellation:
   * (b + 1/2) log1p(r / a) + r log1p((a - x) / x) - r + the 1/n terms. The first product is within
   * 4 2^-53 relative; log1p((a - x)/x) within 9 2^-53 max(1, x/a) absolute plus 2 ulps (its
   * argument's error, 3 2^-53 + 6 2^-53 |a - x| / x, is magnified by x / a), and the three
   * additions round by 2^-53 of the sum of the magnitudes.
   */
  static double lnRatio(long a, long b, long xi, double xf, double[] err) {
    double x = xi + xf;
    double sum = 0;
    double e = 0;
    if (a < STIRLING_MIN) {
      long end = Math.min(b, STIRLING_MIN);
      double abs = 0;
      for (long j = a + 1; j <= end; j++) {
        double t = Math.log(j / x);
        sum += t;
        abs += Math.abs(t);
      }
      e = ((end - a) + 1) * (8 + 2 * abs) * 0x1p-53;
      a = end;
    }
    if (a == b) {
      err[0] = e;
      return sum;
    }
    long r = b - a;
    double ia = 1.0 / a;
    double ib = 1.0 / b;
    double t1 = (b + 0.5) * Math.log1p(r * ia);
    double t2 = r * Math.log1p(((double) (a - xi) - xf) / x);
    double ia2 = ia * ia;
    double ib2 = ib * ib;
    double corr = ib * (1.0 / 12 - ib2 * (1.0 / 360 - ib2 * (1.0 / 1260)))
        - ia * (1.0 / 12 - ia2 * (1.0 / 360 - ia2 * (1.0 / 1260)));
    double d = t1 + t2 - r + corr;
    e += (16 * (Math.abs(t1) + Math.abs(t2) + r + Math.abs(sum) + 1) + 10 * r * Math.max(1, x * ia)) * 0x1p-53
        + ia2 * ia2 * ia2 * ia * (1.0 / 800);
    err[0] = e;
    return sum + d;
  }

  /**
   * Poisson(lambda), 256 <= lambda < 2^40, by rejection. With m = floor(lambda) (a mode) and h(k) =
   * p(k) / p(m), the envelope is 1 on [L, R] = [m - w, m + w], w = round(1.1 sqrt(lambda)), and
   * geometric beyond: h(R) rhoR^(k - R) for k > R with rhoR = lambda / (R + 1), h(L) rhoL^(L - k) for
   * k < L with rhoL = L / lambda. It lies above h because the Poisson pmf is log-concave (ln p(k +
   * 1) - ln p(k) = ln(lambda / (k + 1)) decreases in k), so ln h lies below its chords' extensions:
   * for k >= R, ln h(k) - ln h(R) = sum_{j=R}^{k-1} ln(lambda / (j + 1)) <= (k - R) ln rhoR, and
   * likewise on the left. A proposal k is accepted with probability h(k) / envelope(k), which is a
   * ratio of integers: prod_{j=m+1}^{k} lambda / j (k > m) or prod_{j=k+1}^{m} j / lambda (k < m) on
   * the top, prod_{j=R+1}^{k} (R + 1) / j on the right, prod_{j=k+1}^{L} j / L on the left (0 for
   * k < 0). The acceptance rate is about 0.78.
   *
   * <p>Pre-checks use ln of these products from Stirling's series (error analysis at {@link
   * #lnRatio(long, long, long, double, double[])}); the exact path bounds the products (and the
   * piece thresholds, and rho^g for the tails) by interval arithmetic at any precision, so its
   * numbers stay small however far out k is.
   */
  private final class PoissonEnvelope implements PoissonSampler {
    private static final int TOP = 0;
    private static final int RIGHT = 1;
    private static final int LEFT = 2;

    private final long num;
    private final long den;
    private final long m;
    private final long w;
    private final long lo;
    private final long hi;
    /** lambda - m, in double: absolute error at most 3 2^-53. */
    private final double frac;
    /** ln rhoR and ln rhoL in double, relative error below 16 2^-53. */
    private final double lnRhoR;
    private final double lnRhoL;
    /** The piece thresholds (A_top / A and (A_top + A_right) / A) times 2^53, and their error. */
    private final double cTopX;
    private final double cRightX;
    private final double relSel;
    private BigInteger[][] selCache;
    private int selP = -1;
    /** The error bound of the last lnRatio. */
    private final double[] err = new double[1];

    PoissonEnvelope(long num, long den) {
      this.num = num;
      this.den = den;
      this.m = num / den;
      this.frac = (double) (num - m * den) / (double) den;
      double lambda = (double) num / (double) den;
      this.w = Math.max(1, Math.round(1.1 * Math.sqrt(lambda)));
      this.lo = m - w;
      this.hi = m + w;
      // rhoR = 1 - (w + 1 - frac) / (R + 1); rhoL = 1 - (w + frac) / lambda; both deltas < 1/6 here,
      // so log1p's condition number is below 1.2: relative error below 1.2 * 8 + 2 < 16 (2^-53).
      this.lnRhoR = Math.log1p(-((w + 1 - frac) / (hi + 1)));
      this.lnRhoL = Math.log1p(-((w + frac) / lambda));
      double lnhR = -lnRatio(m, hi, m, frac, err);
      double errR = err[0];
      double lnhL = lnRatio(lo, m, m, frac, err);
      double errL = err[0];
      // A_right = h(R) lambda / (R + 1 - lambda), A_left = h(L) L / (lambda - L); each within
      // 1.001 err + 12 2^-53 relative; the sums and quotients add a few roundings.
      double aRight = Math.exp(lnhR) * (lambda / (w + 1 - frac));
      double aLeft = Math.exp(lnhL) * (lo / (w + frac));
      double aTop = 2 * w + 1;
      double total = aTop + aRight + aLeft;
      this.cTopX = aTop / total * TWO53;
      this.cRightX = (aTop + aRight) / total * TWO53;
      double rel = 2.01 * Math.max(errR, errL) + 0x1p-46;
      this.relSel = rel <= 0x1p-20 ? rel : Double.NaN; // NaN: below() is always UNSURE
    }

    @Override
    public long sample() {
      while (true) {
        int piece = choosePiece(uniform53());
        long k;
        if (piece == TOP) {
          k = lo + uniformInt(2 * w + 1);
        } else if (piece == RIGHT) {
          k = hi + 1 + geometric(RIGHT);
        } else {
          k = lo - 1 - geometric(LEFT);
          if (k < 0) {
            continue;
          }
        }
        if (accept(piece, k)) {
          return k;
        }
      }
    }

    private int choosePiece(long v) {
      if (!exactOnly) {
        int r = below(v, cTopX, relSel);
        if (r == YES) {
          return TOP;
        }
        if (r == NO) {
          r = below(v, cRightX, relSel);
          if (r != UNSURE) {
            return r == YES ? RIGHT : LEFT;
          }
        }
      }
      LazyUniform u = new LazyUniform(bits, v, 53);
      if (u.below(q -> selectionBounds(q)[0])) {
        return TOP;
      }
      return u.below(q -> selectionBounds(q)[1]) ? RIGHT : LEFT;
    }

    /**
     * Bounds of the piece thresholds c1 = A_top / A and c2 = (A_top + A_right) / A at precision p,
     * {{c1 lo, c1 hi}, {c2 lo, c2 hi}}, where A_top = 2w + 1, A_right = h(R) lambda / (R + 1 -
     * lambda), A_left = h(L) L / (lambda - L), A their sum, with h(R) = prod_{j=m+1}^{R} num / (den
     * j) and h(L) = prod_{j=L+1}^{m} den j / num bounded by interval arithmetic. c1 falls as A_right
     * or A_left grows; c2 = 1 / (1 + A_left / (A_top + A_right)) rises with A_right and falls with
     * A_left, so the bounds of the A's give bounds of both.
     */
    private BigInteger[][] selectionBounds(int p) {
      if (p == selP) {
        return selCache;
      }
      int q = p + 2 * (64 - Long.numberOfLeadingZeros(w)) + 8;
      BigInteger bn = BigInteger.valueOf(num);
      BigInteger bd = BigInteger.valueOf(den);
      BigInteger[] hR = LazyUniform.factorProductBounds(m + 1, hi, 0, num, den, 0, q);
      BigInteger[] hL = LazyUniform.factorProductBounds(lo + 1, m, den, 0, 0, num, q);
      BigInteger rNum = bn;
      BigInteger rDen = BigInteger.valueOf(hi + 1).multiply(bd).subtract(bn);
      BigInteger lNum = BigInteger.valueOf(lo).multiply(bd);
      BigInteger lDen = bn.subtract(lNum);
      BigInteger rLo = hR[0].multiply(rNum).divide(rDen);
      BigInteger rHi = LazyUniform.ceilDiv(hR[1].multiply(rNum), rDen);
      BigInteger lLo = hL[0].multiply(lNum).divide(lDen);
      BigInteger lHi = LazyUniform.ceilDiv(hL[1].multiply(lNum), lDen);
      BigInteger top = BigInteger.valueOf(2 * w + 1).shiftLeft(q);
      BigInteger topP = top.shiftLeft(p);
      BigInteger c1Lo = topP.divide(top.add(rHi).add(lHi));
      BigInteger c1Hi = LazyUniform.ceilDiv(topP, top.add(rLo).add(lLo));
      BigInteger c2Lo = top.add(rLo).shiftLeft(p).divide(top.add(rLo).add(lHi));
      BigInteger c2Hi = LazyUniform.ceilDiv(top.add(rHi).shiftLeft(p), top.add(rHi).add(lLo));
      selCache = new BigInteger[][] {{c1Lo, c1Hi}, {c2Lo, c2Hi}};
      selP = p;
      return selCache;
    }

    /**
     * G with P[G >= g] = rho^g, by inversion: G = floor(ln U / ln rho). Pre-check as in
     * geometricExp: ln U lies in [ln(v 2^-53), ln(v 2^-53) + 1/v), Math.log is within 2^-47 and
     * ln rho within 16 2^-53 relative, so the band (1/v + 2^-44) / |ln rho| + |gh| 2^-44 around gh
     * holds the true quotient. The exact path compares U with bounds of rho^g.
     */
    private long geometric(int side) {
      long v = uniform53();
      double lnRho = side == RIGHT ? lnRhoR : lnRhoL;
      double gh = v == 0 ? 0 : Math.log(v * 0x1p-53) / lnRho;
      if (!exactOnly && v >= (1L << 30)) {
        double band = (1.0 / v + 0x1p-44) / -lnRho + gh * 0x1p-44;
        double k = Math.floor(gh);
        if (gh - band > k && gh + band < k + 1) {
          return (long) k;
        }
      }
      BigInteger p;
      BigInteger q;
      if (side == RIGHT) {
        p = BigInteger.valueOf(num);
        q = BigInteger.valueOf(hi + 1).multiply(BigInteger.valueOf(den));
      } else {
        p = BigInteger.valueOf(lo).multiply(BigInteger.valueOf(den));
        q = BigInteger.valueOf(num);
      }
      LazyUniform u = new LazyUniform(bits, v, 53);
      long k = (long) Math.floor(v >= (1L << 30) ? gh : u.lnEstimate() / lnRho);
      while (k > 0 && !u.below(LazyUniform.ratioPower(p, q, k))) {
        k--;
      }
      while (u.below(LazyUniform.ratioPower(p, q, k + 1))) {
        k++;
      }
      return k;
    }

    private boolean accept(int piece, long k) {
      long v = uniform53();
      if (!exactOnly) {
        double lnc;
        if (piece == TOP) {
          lnc = k >= m ? -lnRatio(m, k, m, frac, err) : lnRatio(k, m, m, frac, err);
        } else if (piece == RIGHT) {
          lnc = -lnRatio(hi, k, hi + 1, 0, err);
        } else {
          lnc = lnRatio(k, lo, lo, 0, err);
        }
        int r = UNSURE;
        if (lnc + err[0] < -38) {
          r = below(v, 0, 0x1p-50); // c < e^-38 < 2^-54
        } else if (err[0] <= 0x1p-21) {
          r = belowExpNeg(v, TWO53, -lnc, err[0]);
        }
        if (r != UNSURE) {
          return r == YES;
        }
      }
      return new LazyUniform(bits, v, 53).below(exactAcceptance(piece, k));
    }

    /** h(k) / envelope(k) as a product of factors at most 1 (see the class comment). */
    private LazyUniform.Real exactAcceptance(int piece, long k) {
      if (piece == TOP) {
        return k >= m ? LazyUniform.factorProduct(m + 1, k, 0, num, den, 0) // prod lambda / j
            : LazyUniform.factorProduct(k + 1, m, den, 0, 0, num); // prod j / lambda
      }
      if (piece == RIGHT) {
        return LazyUniform.factorProduct(hi + 1, k, 0, hi + 1, 1, 0); // prod (R + 1) / j
      }
      return LazyUniform.factorProduct(k + 1, lo, 1, 0, 0, lo); // prod j / L
    }
  }
}
