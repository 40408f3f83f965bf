package dev.helmet.privacy.noise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import org.junit.jupiter.api.Test;

/**
 * The floating-point pre-checks of {@link DiscreteNoise} decide only what the exact comparison
 * decides: a sampler that sends every decision through the exact BigInteger path ({@code
 * exactOnly}) gives the same draws for the same bits. A pre-check whose error bound were wrong
 * would show as a different draw (or a shifted stream) here. Deterministic, no false failures.
 */
class DiscreteNoiseExactnessTest {

  private static void sameDraws(long seed, int n, java.util.function.ToLongFunction<DiscreteNoise> draw, String what) {
    DiscreteNoise fast = new DiscreteNoise(RandomBits.insecureForTesting(seed));
    DiscreteNoise exact = new DiscreteNoise(RandomBits.insecureForTesting(seed), true);
    long[] a = new long[n];
    long[] b = new long[n];
    for (int i = 0; i < n; i++) {
      a[i] = draw.applyAsLong(fast);
      b[i] = draw.applyAsLong(exact);
    }
    assertArrayEquals(b, a, what);
  }

  @Test
  void discreteGaussianFastPathDecidesAsTheExactPath() {
    sameDraws(21, 1000, d -> d.discreteGaussian(1, 4), "sigma^2 = 1/4");
    sameDraws(22, 1000, d -> d.discreteGaussian(4), "sigma^2 = 4");
    sameDraws(23, 1000, d -> d.discreteGaussian(556_009), "sigma^2 = 556009");
    sameDraws(24, 500, d -> d.discreteGaussian(100_000_000_000L), "sigma^2 = 1e11");
    sameDraws(25, 1000, d -> d.discreteGaussian(1_000_003, 7), "sigma^2 = 1000003/7");
  }

  @Test
  void poissonFastPathDecidesAsTheExactPath() {
    sameDraws(31, 1000, d -> d.poisson(5, 2), "lambda = 2.5");
    sameDraws(32, 500, d -> d.poisson(511, 2), "lambda = 255.5");
    sameDraws(33, 1000, d -> d.poisson(256, 1), "lambda = 256");
    sameDraws(35, 1000, d -> d.poisson(1001, 1), "lambda = 1001");
    sameDraws(34, 500, d -> d.poisson(30_001, 3), "lambda = 10000.33");
  }

  @Test
  void bernoulliExpFastPathDecidesAsTheExactPath() {
    for (long[] g : new long[][] {{1, 2}, {7, 2}, {3, 100}, {1_000_000, 1}, {700, 1}, {745, 1}}) {
      sameDraws(41, 2000, d -> d.bernoulliExp(g[0], g[1]) ? 1 : 0, "exp(-" + g[0] + "/" + g[1] + ")");
    }
  }

  /** exp(-x) to 60 digits by BigDecimal Taylor series (positive terms for e^x, then 1 / e^x). */
  private static BigDecimal expNeg(BigDecimal x) {
    MathContext mc = new MathContext(80);
    BigDecimal sum = BigDecimal.ONE;
    BigDecimal term = BigDecimal.ONE;
    for (int j = 1; j < 400; j++) {
      term = term.multiply(x, mc).divide(BigDecimal.valueOf(j), mc);
      sum = sum.add(term, mc);
    }
    return BigDecimal.ONE.divide(sum, mc);
  }

  /** The exact bounds of exp(-x) contain exp(-x), are at most 2 apart, and nest as precision grows. */
  @Test
  void expBoundsContainTheValueAndAreTight() {
    long[][] xs = {{1, 1}, {1, 2}, {7, 3}, {0, 1}, {123_456_789, 1_000_000}, {50, 1}, {1, 1_000_000_007}};
    for (long[] x : xs) {
      BigDecimal truth = expNeg(new BigDecimal(x[0]).divide(new BigDecimal(x[1]), new MathContext(80)));
      BigInteger prevLo = null;
      BigInteger prevHi = null;
      for (int p : new int[] {53, 117, 181}) {
        BigInteger[] b = LazyUniform.expNegBounds(BigInteger.valueOf(x[0]), BigInteger.valueOf(x[1]), p);
        BigDecimal scaled = truth.multiply(new BigDecimal(BigInteger.ONE.shiftLeft(p)));
        assertTrue(new BigDecimal(b[0]).compareTo(scaled) <= 0, "lo at " + p + " for " + x[0] + "/" + x[1]);
        assertTrue(new BigDecimal(b[1]).compareTo(scaled) >= 0, "hi at " + p + " for " + x[0] + "/" + x[1]);
        assertTrue(b[1].subtract(b[0]).compareTo(BigInteger.TWO) <= 0, "width at " + p);
        if (prevLo != null) {
          assertTrue(b[0].compareTo(prevLo.shiftLeft(64)) >= 0 || b[0].signum() == 0);
          assertTrue(b[1].compareTo(prevHi.shiftLeft(64)) <= 0);
        }
        prevLo = b[0];
        prevHi = b[1];
      }
    }
  }

  /** A lazy uniform compares exactly: with a prefix right at c, more bits decide. */
  @Test
  void lazyUniformRevealsBitsUntilDecided() {
    RandomBits bits = RandomBits.insecureForTesting(1);
    // c = 1/2 exactly: U with prefix 2^52 (U in [1/2, 1/2 + 2^-53)) is never below 1/2
    LazyUniform u = new LazyUniform(bits, 1L << 52, 53);
    assertEquals(false, u.below(LazyUniform.ratio(BigInteger.ONE, BigInteger.TWO)));
    // c = 1/3: prefix floor(2^53 / 3) is undecided at 53 bits; the next bits of U decide, and
    // comparing again gives the same answer
    LazyUniform w = new LazyUniform(bits, (1L << 53) / 3, 53);
    boolean first = w.below(LazyUniform.ratio(BigInteger.ONE, BigInteger.valueOf(3)));
    assertEquals(first, w.below(LazyUniform.ratio(BigInteger.ONE, BigInteger.valueOf(3))));
  }

  private static final MathContext MC = new MathContext(70);
  private static final BigDecimal LN2 = atanh2(BigDecimal.ONE.divide(BigDecimal.valueOf(3), MC));

  /** 2 atanh(s) = ln((1 + s) / (1 - s)) for |s| <= 1/3, by its series, to about 70 digits. */
  private static BigDecimal atanh2(BigDecimal s) {
    BigDecimal s2 = s.multiply(s, MC);
    BigDecimal power = s;
    BigDecimal sum = BigDecimal.ZERO;
    for (int i = 0; i < 400; i++) {
      sum = sum.add(power.divide(BigDecimal.valueOf(2 * i + 1), MC), MC);
      power = power.multiply(s2, MC);
    }
    return sum.multiply(BigDecimal.valueOf(2), MC);
  }

  /** ln p for an integer p >= 1, to about 70 digits: k ln 2 + ln(z) with z = p / 2^k in [1, 2). */
  private static BigDecimal ln(BigInteger p) {
    int k = p.bitLength() - 1;
    int keep = Math.min(k, 300);
    BigDecimal z = new BigDecimal(p.shiftRight(k - keep)).divide(new BigDecimal(BigInteger.ONE.shiftLeft(keep)), MC);
    BigDecimal s = z.subtract(BigDecimal.ONE).divide(z.add(BigDecimal.ONE), MC);
    return LN2.multiply(BigDecimal.valueOf(k), MC).add(atanh2(s), MC);
  }

  /**
   * lnRatio(a, b, x) = sum_{j=a+1}^{b} ln(j / x) lies within its stated error bound of the value to
   * 70 digits (ln((a+1)...b) - (b - a) ln x with x = xi + xf taken as the exact value of the
   * double), at the places the Poisson envelope uses it: short and long products, x below, near
   * and above the factors, lambda from 64 to 10^12, and the bound stays small enough to decide.
   */
  @Test
  void lnRatioIsWithinItsStatedErrorBound() {
    Object[][] cases = {
        {0L, 5L, 3L, 0.0}, {0L, 40L, 64L, 0.5}, {10L, 60L, 50L, 0.5}, {64L, 65L, 64L, 0.25}, {55L, 64L, 64L, 0.0},
        {1000L, 1100L, 1050L, 0.1}, {1_000_000L, 1_001_100L, 1_000_000L, 0.3}, {998_900L, 1_000_000L, 1_000_000L, 0.7},
        {5L, 20_000L, 20_000L, 0.0}, {1_001_100L, 1_003_000L, 1_001_101L, 0.0}, {41L, 42L, 1_000_000L, 0.0},
        {1_000_000_000_000L, 1_000_000_020_000L, 1_000_000_000_000L, 0.5},
        {999_999_990_000L, 1_000_000_000_000L, 1_000_000_000_000L, 0.125}};
    double[] err = new double[1];
    for (Object[] c : cases) {
      long a = (Long) c[0];
      long b = (Long) c[1];
      long xi = (Long) c[2];
      double xf = (Double) c[3];
      double got = PoissonEnvelope.lnRatio(a, b, xi, xf, err);
      // x = xi + xf exactly: xf = m / 2^e
      BigDecimal xfExact = new BigDecimal(xf);
      int e = Math.max(0, xfExact.scale()) * 4; // 10^-scale divides 2^-(4 scale) for dyadic xf
      BigInteger xNum = new BigDecimal(xi).add(xfExact).multiply(new BigDecimal(BigInteger.ONE.shiftLeft(e)))
          .toBigIntegerExact();
      BigDecimal lnX = ln(xNum).subtract(LN2.multiply(BigDecimal.valueOf(e), MC), MC);
      BigDecimal truth = ln(product(a + 1, b)).subtract(lnX.multiply(BigDecimal.valueOf(b - a), MC), MC);
      double diff = Math.abs(truth.subtract(new BigDecimal(got), MC).doubleValue());
      String what = "lnRatio(" + a + ", " + b + ", " + xi + " + " + xf + ") = " + got + ", error " + diff
          + ", bound " + err[0];
      assertTrue(diff <= err[0], what);
      assertTrue(err[0] <= 0x1p-21, what);
    }
  }

  /** lo * (lo + 1) * ... * hi (1 if lo > hi), by halves so the operands stay balanced. */
  static BigInteger product(long lo, long hi) {
    if (lo > hi) {
      return BigInteger.ONE;
    }
    if (hi - lo < 8) {
      BigInteger r = BigInteger.valueOf(lo);
      for (long j = lo + 1; j <= hi; j++) {
        r = r.multiply(BigInteger.valueOf(j));
      }
      return r;
    }
    long mid = lo + (hi - lo) / 2;
    return product(lo, mid).multiply(product(mid + 1, hi));
  }

  /**
   * The interval products and powers of the exact path contain the exact rational and stay a few
   * units wide: prod_{j=11}^{300} j / 300, prod_{j=1001}^{1100} 1000 / j, (7 / 9)^1000 and (1/2)^0.
   */
  @Test
  void intervalProductsAndPowersContainTheExactValue() {
    BigInteger[][] exact = {
        {product(11, 300), BigInteger.valueOf(300).pow(290)},
        {BigInteger.valueOf(1000).pow(100), product(1001, 1100)},
        {BigInteger.valueOf(7).pow(1000), BigInteger.valueOf(9).pow(1000)},
        {BigInteger.ONE, BigInteger.ONE}};
    LazyUniform.Real[] reals = {
        LazyUniform.factorProduct(11, 300, 1, 0, 0, 300),
        LazyUniform.factorProduct(1001, 1100, 0, 1000, 1, 0),
        LazyUniform.ratioPower(BigInteger.valueOf(7), BigInteger.valueOf(9), 1000),
        LazyUniform.ratioPower(BigInteger.ONE, BigInteger.TWO, 0)};
    for (int i = 0; i < reals.length; i++) {
      for (int p : new int[] {53, 117, 2000}) {
        BigInteger[] b = reals[i].at(p);
        BigInteger scaledNum = exact[i][0].shiftLeft(p);
        // lo <= num 2^p / den <= hi
        assertTrue(b[0].multiply(exact[i][1]).compareTo(scaledNum) <= 0, "lo, case " + i + " at " + p);
        assertTrue(b[1].multiply(exact[i][1]).compareTo(scaledNum) >= 0, "hi, case " + i + " at " + p);
        assertTrue(b[1].subtract(b[0]).compareTo(BigInteger.valueOf(4)) <= 0, "width, case " + i + " at " + p);
      }
    }
  }
}
