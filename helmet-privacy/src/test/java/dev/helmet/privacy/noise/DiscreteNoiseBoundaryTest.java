package dev.helmet.privacy.noise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.SplittableRandom;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/**
 * The floating-point pre-checks where they can go wrong: with U's known bits right next to the
 * constant c of a decision "U < c". Random draws (DiscreteNoiseExactnessTest) land within a
 * pre-check's error band with probability about 2^-40, so they would not notice a bound that is
 * too tight; here every case puts U's prefix 0 to 3 and 2^2 to 2^14 units (of 2^-k) from c on
 * either side (or, for the generic decisions, at the last prefix a pre-check decides), where an
 * error bound smaller than the actual rounding error gives a wrong answer. Each fast decision is
 * compared with the exact one: the fast sampler and an exact-only sampler get generators with the
 * same seed and the same prefix, so they must return the same value. Deterministic; each test of
 * this class fails on mutants that make a bound tighter than the rounding it must cover.
 */
class DiscreteNoiseBoundaryTest {
  private static final int P = 53 + 64;

  /** floor(c 2^k) for the real c, from its exact lower bound at k + 64 bits. */
  private static long floorScaled(LazyUniform.Real c, int k) {
    return c.at(k + 64)[0].shiftRight(64).longValueExact();
  }

  /**
   * Offsets from floor(c 2^k) of the prefixes tried: the three on either side, where a bound that
   * is slightly too tight shows, and powers of two up to 2^14 on either side, where one that is
   * too tight by a larger factor does (a pre-check errs only for prefixes between c 2^k and its
   * own estimate of it).
   */
  private static final long[] OFFSETS;

  static {
    java.util.List<Long> d = new java.util.ArrayList<>();
    for (long i = -3; i <= 3; i++) {
      d.add(i);
    }
    for (int j = 2; j <= 14; j++) {
      d.add(1L << j);
      d.add(-(1L << j));
    }
    OFFSETS = d.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * For prefixes v = center + each offset (within [0, 2^k)): the fast sampler's answer equals the
   * exact-only sampler's, each built on a generator with the same seed.
   */
  private static void sameAround(long center, int k, long seed, LongFunction<long[]> fastAndExact, String what) {
    for (long d : OFFSETS) {
      long v = center + d;
      if (v < 0 || v >= 1L << k) {
        continue;
      }
      long[] r = fastAndExact.apply(v);
      assertEquals(r[1], r[0], what + ", prefix " + v + " (c 2^" + k + " near " + center + "), seed " + seed);
    }
  }

  /**
   * belowExpNeg(a, 2^k, ed, eErr) says YES only for prefixes a with a + 1 <= exp(-e) 2^k and NO
   * only for a >= exp(-e) 2^k, for e = num/den and any ed within eErr of e: the largest YES and the
   * smallest NO prefix (both found by bisection, the answers being monotone in a) are checked
   * against exact bounds of exp(-e) at 400 bits. e covers the squeeze (e <= 1), its edge at 1, the
   * exponential, the cut-off at 38; ed sits at e, or 0.98 eErr above or below it.
   */
  @Test
  void belowExpNegNeverDecidesAcrossItsBound() {
    SplittableRandom r = new SplittableRandom(61);
    MathContext mc = new MathContext(60);
    int checked = 0;
    for (int i = 0; i < 1500; i++) {
      long den = 1 + r.nextLong(1L << (1 + r.nextInt(50)));
      double[] targets = {r.nextDouble() * 1e-6, r.nextDouble(), 1 + (r.nextDouble() - 0.5) * 1e-3,
          r.nextDouble() * 40, 37.5 + r.nextDouble()};
      long num = (long) (targets[i % targets.length] * den);
      BigInteger bn = BigInteger.valueOf(num);
      BigInteger bd = BigInteger.valueOf(den);
      BigDecimal e = new BigDecimal(bn).divide(new BigDecimal(bd), mc);
      int k = i % 2 == 0 ? 53 : 23;
      double scale = Math.scalb(1.0, k);
      BigInteger[] c = LazyUniform.expNegBounds(bn, bd, 400); // c 2^400 within [c[0], c[1]]
      double eErr = i % 3 == 0 ? e.doubleValue() * 0x1p-50 : Math.scalb(1.0, -21 - r.nextInt(30));
      double ed = e.add(new BigDecimal(eErr * 0.98 * (i % 3 - 1)), mc).doubleValue();
      if (eErr == 0 || new BigDecimal(ed).subtract(e).abs().compareTo(new BigDecimal(eErr)) > 0) {
        continue;
      }
      long yesMax = -1; // largest prefix with YES (-1: none)
      long no = 1L << k;
      while (no - yesMax > 1) {
        long mid = (yesMax + no) >>> 1;
        if (ExactDecisions.belowExpNeg(mid, scale, ed, eErr) == ExactDecisions.YES) {
          yesMax = mid;
        } else {
          no = mid;
        }
      }
      long yes = -1;
      long noMin = 1L << k; // smallest prefix with NO (2^k: none)
      while (noMin - yes > 1) {
        long mid = (yes + noMin) >>> 1;
        if (ExactDecisions.belowExpNeg(mid, scale, ed, eErr) == ExactDecisions.NO) {
          noMin = mid;
        } else {
          yes = mid;
        }
      }
      String what = "exp(-" + num + "/" + den + ") at " + k + " bits, ed " + ed + ", eErr " + eErr;
      assertTrue(yesMax < 0 || BigInteger.valueOf(yesMax + 1).shiftLeft(400 - k).compareTo(c[0]) <= 0,
          what + ": YES for prefix " + yesMax);
      assertTrue(noMin == 1L << k || BigInteger.valueOf(noMin).shiftLeft(400 - k).compareTo(c[1]) >= 0,
          what + ": NO for prefix " + noMin);
      for (long v = Math.max(0, yesMax - 2); v <= yesMax + 2 && v < 1L << k; v++) {
        assertEquals(v <= yesMax, ExactDecisions.belowExpNeg(v, scale, ed, eErr) == ExactDecisions.YES, what);
      }
      for (long v = Math.max(0, noMin - 2); v <= noMin + 2 && v < 1L << k; v++) {
        assertEquals(v >= noMin, ExactDecisions.belowExpNeg(v, scale, ed, eErr) == ExactDecisions.NO, what);
      }
      checked++;
    }
    assertTrue(checked > 1000, "cases checked: " + checked);
  }

  /**
   * The discrete Laplace's geometric part G = floor(-t ln U) with U's 40-bit prefix next to each
   * crossing exp(-k/t), for scales t from 1 to the largest (sigma^2 near 2^63). The crossings are
   * taken where U >= max(2^-23, 4 t 2^-40), at least four prefix units apart, so that the exact
   * search stays short.
   */
  @Test
  void geometricExpAgreesAtItsCrossings() {
    SplittableRandom r = new SplittableRandom(62);
    for (long t : new long[] {1, 2, 3, 7, 100, 746, 10_000, 316_228, 3_037_000_500L}) {
      double lnMinU = Math.max(-23, Math.log(4.0 * t) / Math.log(2) - 40) * Math.log(2);
      long kMax = (long) Math.floor(-lnMinU * t);
      for (int i = 0; i < 12; i++) {
        long k = i < 4 ? i + 1 : 1 + r.nextLong(kMax);
        long center = floorScaled(LazyUniform.expNeg(BigInteger.valueOf(k), BigInteger.valueOf(t)), 40);
        long seed = r.nextLong();
        sameAround(center, 40, seed, v -> new long[] {
            DiscreteGaussian.geometricExp(RandomBits.insecureForTesting(seed), false, v, t),
            DiscreteGaussian.geometricExp(RandomBits.insecureForTesting(seed), true, v, t)},
            "t " + t + ", k " + k);
      }
    }
  }

  /**
   * The discrete Gaussian's acceptance exp(-D^2 / (2 n d t^2)) with the 23-bit prefix of its
   * uniform next to the constant, for proposals across the bulk and into the tail.
   */
  @Test
  void discreteGaussianAcceptanceAgreesAtItsThresholds() {
    SplittableRandom r = new SplittableRandom(63);
    for (long[] s2 : new long[][] {{1, 4}, {4, 1}, {556_009, 1}, {1_000_003, 7}, {100_000_000_000L, 1}}) {
      long num = s2[0];
      long den = s2[1];
      long t = BigInteger.valueOf(num / den).sqrt().longValueExact() + 1;
      BigInteger bigDen = BigInteger.valueOf(2 * num).multiply(BigInteger.valueOf(den))
          .multiply(BigInteger.valueOf(t * t));
      double sigma = Math.sqrt((double) num / den);
      for (int i = 0; i < 25; i++) {
        long g = (long) Math.floor(r.nextDouble() * 5 * sigma) + (i < 3 ? i : 0);
        BigInteger d = BigInteger.valueOf(g).multiply(BigInteger.valueOf(den * t)).subtract(BigInteger.valueOf(num));
        long center = floorScaled(LazyUniform.expNeg(d.multiply(d), bigDen), 23);
        long seed = r.nextLong();
        sameAround(center, 23, seed, a -> new long[] {
            new DiscreteGaussian(RandomBits.insecureForTesting(seed), false, num, den).accept(g, a) ? 1 : 0,
            new DiscreteGaussian(RandomBits.insecureForTesting(seed), true, num, den).accept(g, a) ? 1 : 0},
            "sigma^2 " + num + "/" + den + ", |Y| " + g);
      }
    }
  }

  /**
   * The exponent e = D^2 / (2 n d t^2) of the discrete Gaussian's acceptance, in double, is within
   * the eErr = e 2^-48 that its pre-check assumes of the exact rational (the analysis gives 10
   * 2^-53 to first order), from the bulk to the largest proposal that still takes the pre-check.
   */
  @Test
  void discreteGaussianExponentIsWithinItsErrorBound() {
    SplittableRandom r = new SplittableRandom(66);
    MathContext mc = new MathContext(50);
    double worst = 0;
    for (long[] s2 : new long[][] {{1, 4}, {4, 1}, {556_009, 1}, {1_000_003, 7}, {100_000_000_000L, 1},
        {1, 1_000_000_000_000L}, {Long.MAX_VALUE, 1}, {Long.MAX_VALUE / 3, 1_000_003}, {999_999_999_989L, 999_999_999_959L}}) {
      DiscreteGaussian dg = new DiscreteGaussian(RandomBits.insecureForTesting(0), false, s2[0], s2[1]);
      BigInteger bigDen = BigInteger.valueOf(s2[0]).multiply(BigInteger.valueOf(s2[1])).shiftLeft(1)
          .multiply(BigInteger.valueOf(dg.t).pow(2));
      for (int i = 0; i < 200 && dg.maxFast >= 0; i++) {
        long g = i < 3 ? i : i < 6 ? dg.maxFast - (i - 3) : r.nextLong(Math.min(dg.maxFast, 40 * dg.t) + 1);
        if (g < 0) {
          continue;
        }
        BigInteger d = BigInteger.valueOf(g).multiply(BigInteger.valueOf(s2[1])).multiply(BigInteger.valueOf(dg.t))
            .subtract(BigInteger.valueOf(s2[0]));
        BigDecimal exact = new BigDecimal(d.multiply(d)).divide(new BigDecimal(bigDen), mc);
        double e = dg.exponent(g);
        double err = new BigDecimal(e).subtract(exact).abs().doubleValue();
        assertTrue(err <= e * 0x1p-48, "sigma^2 " + s2[0] + "/" + s2[1] + ", |Y| " + g + ": e " + e + ", error " + err);
        if (e > 0) {
          worst = Math.max(worst, err / e / 0x1p-53);
        }
      }
    }
    assertTrue(worst <= 10.01, "largest relative error " + worst + " 2^-53, above the analysis' 10");
  }

  /**
   * Poisson by inversion with U's 53-bit prefix next to table entries F(k): the first and last,
   * a few at random, and, of the entries a pre-check can decide, the three that the double table
   * overestimates most and the three it underestimates most (against exact F(k)), where a
   * pre-check whose bound were too tight would err first. lambda near 256 has the largest table
   * errors (its rounding alone gives 3 lambda 2^-53).
   */
  @Test
  void poissonInversionAgreesAtTheDistributionFunction() {
    SplittableRandom r = new SplittableRandom(64);
    for (long[] lambda : new long[][] {{1, 1_000_000_007}, {3, 10}, {5, 2}, {64, 1}, {511, 2}, {255, 1},
        {2551, 10}, {2559, 10}, {Long.MAX_VALUE, Long.MAX_VALUE / 200}}) {
      long num = lambda[0];
      long den = lambda[1];
      PoissonInversion table = new PoissonInversion(RandomBits.insecureForTesting(0), false, num, den);
      int n = table.x.length;
      long[] center = new long[n];
      double[] excess = new double[n]; // x[k] - F(k) 2^53
      BigInteger a = BigInteger.ONE; // sum_{i <= k} lambda^i / i! = a / b, as in PoissonInversion.cdf
      BigInteger b = BigInteger.ONE;
      BigInteger numPow = BigInteger.ONE;
      for (int k = 0; k < n; k++) {
        if (k > 0) {
          BigInteger dk = BigInteger.valueOf(den).multiply(BigInteger.valueOf(k));
          numPow = numPow.multiply(BigInteger.valueOf(num));
          a = a.multiply(dk).add(numPow);
          b = b.multiply(dk);
        }
        BigInteger lo = LazyUniform.ratioTimesExpNeg(a, b, BigInteger.valueOf(num), BigInteger.valueOf(den)).at(P)[0];
        center[k] = lo.shiftRight(64).longValueExact();
        excess[k] = new BigDecimal(table.x[k]).subtract(new BigDecimal(lo).divide(new BigDecimal(BigInteger.ONE.shiftLeft(64))))
            .doubleValue();
      }
      // entries at least 2^12 units from both neighbours: there a pre-check decides (further out
      // in the tail the entries crowd within its band and every prefix goes to the exact path)
      java.util.List<Integer> apart = new java.util.ArrayList<>();
      for (int k = 1; k + 1 < n; k++) {
        if (table.x[k + 1] - table.x[k] > 0x1p12 && table.x[k] - table.x[k - 1] > 0x1p12) {
          apart.add(k);
        }
      }
      apart.sort((i, j) -> Double.compare(excess[i], excess[j]));
      java.util.Set<Integer> ks = new java.util.TreeSet<>(java.util.List.of(0, n - 1));
      for (int i = 0; i < Math.min(3, apart.size()); i++) {
        ks.add(apart.get(i));
        ks.add(apart.get(apart.size() - 1 - i));
        ks.add(r.nextInt(n));
      }
      for (int k : ks) {
        long seed = r.nextLong();
        sameAround(center[k], 53, seed, v -> new long[] {
            new PoissonInversion(RandomBits.insecureForTesting(seed), false, num, den).invert(v),
            new PoissonInversion(RandomBits.insecureForTesting(seed), true, num, den).invert(v)},
            "Poisson(" + num + "/" + den + "), F(" + k + ") (table " + excess[k] + " units off)");
      }
    }
  }

  /**
   * Poisson by rejection from the envelope, each of its decisions with U's 53-bit prefix next to
   * its constant: the choice of the piece, the tails' geometric crossings rho^g, and the acceptance
   * h(k) / envelope(k) on the top (both sides of the mode), on the tails and at their ends. The
   * exact constants cost one product per factor (w = 1.15 million at lambda 2^40), so lambda 2^40
   * is checked only where they have a few factors.
   */
  @Test
  void poissonEnvelopeAgreesAtItsThresholds() {
    SplittableRandom r = new SplittableRandom(65);
    for (long[] lambda : new long[][] {{256, 1}, {2001, 2}, {30_001, 3}, {7_000_001, 7}, {(1L << 40) - 1, 1}}) {
      long num = lambda[0];
      long den = lambda[1];
      String what = "Poisson(" + num + "/" + den + ")";
      LongFunction<PoissonEnvelope> fast = seed -> new PoissonEnvelope(RandomBits.insecureForTesting(seed), false, num, den);
      LongFunction<PoissonEnvelope> exact = seed -> new PoissonEnvelope(RandomBits.insecureForTesting(seed), true, num, den);
      PoissonEnvelope e = fast.apply(0);
      boolean small = num / den < 1L << 30;
      if (small) {
        BigInteger[][] c = e.selectionBounds(P);
        for (int i = 0; i < 2; i++) {
          long seed = r.nextLong();
          sameAround(c[i][0].shiftRight(64).longValueExact(), 53, seed,
              v -> new long[] {fast.apply(seed).choosePiece(v), exact.apply(seed).choosePiece(v)},
              what + ", piece threshold " + i);
        }
      }
      for (int side : new int[] {PoissonEnvelope.RIGHT, PoissonEnvelope.LEFT}) {
        // rho^g from near 1 down to 2^-23, the smallest U the pre-check takes (prefix >= 2^30)
        double perHalving = Math.log(2) / -Math.log(e.rhoPower(side, 1).at(60)[1].doubleValue() * 0x1p-60);
        long[] gs = {1, 2, 3, e.w / 3, e.w, 3 * e.w, (long) (8 * perHalving), (long) (16 * perHalving),
            (long) (22.9 * perHalving), 1 + r.nextLong((long) (23 * perHalving))};
        for (long g : gs) {
          long seed = r.nextLong();
          sameAround(floorScaled(e.rhoPower(side, g), 53), 53, seed,
              v -> new long[] {fast.apply(seed).geometric(side, v), exact.apply(seed).geometric(side, v)},
              what + ", tail " + side + ", rho^" + g);
        }
      }
      int top = PoissonEnvelope.TOP;
      int right = PoissonEnvelope.RIGHT;
      int left = PoissonEnvelope.LEFT;
      long[][] proposals = small
          ? new long[][] {{top, e.m}, {top, e.m + 1}, {top, e.m - 1}, {top, e.hi}, {top, e.lo},
              {top, e.lo + 1 + r.nextLong(2 * e.w - 1)}, {right, e.hi + 1}, {right, e.hi + 2},
              {right, e.hi + 1 + r.nextLong(3 * e.w)}, {left, e.lo - 1}, {left, e.lo - 2},
              {left, e.lo - 1 - r.nextLong(3 * e.w)}}
          : new long[][] {{top, e.m}, {top, e.m + 1}, {top, e.m + 2}, {top, e.m - 1}, {top, e.m - 2},
              {right, e.hi + 1}, {right, e.hi + 2}, {left, e.lo - 1}, {left, e.lo - 2}};
      for (long[] pk : proposals) {
        int piece = (int) pk[0];
        long k = pk[1];
        long seed = r.nextLong();
        sameAround(floorScaled(e.exactAcceptance(piece, k), 53), 53, seed,
            v -> new long[] {fast.apply(seed).accept(piece, k, v) ? 1 : 0,
                exact.apply(seed).accept(piece, k, v) ? 1 : 0},
            what + ", piece " + piece + ", acceptance of " + k);
      }
    }
  }
}
