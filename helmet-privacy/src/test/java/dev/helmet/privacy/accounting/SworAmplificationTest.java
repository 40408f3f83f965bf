package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.accounting.SworAmplification.Exact;
import dev.helmet.privacy.accounting.SworAmplification.Slack;
import dev.helmet.privacy.accounting.SworAmplification.WorstCase;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.MixtureDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SampledWithoutReplacementDpEvent;
import dev.helmet.privacy.event.SlackDpEvent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import org.apache.commons.statistics.distribution.HypergeometricDistribution;
import org.junit.jupiter.api.Test;

@org.junit.jupiter.api.Tag("statistical")
class SworAmplificationTest {
  private static final double[] SLACKS = {1e-5, 1e-10, 1e-15};

  /**
   * Fig. 1's quantities at n = 50 000 (the authors' {@code plot_amplification_factors.py}), against
   * scipy 1.17's {@code hypergeom.ppf(delta_s, M=n, n=n_A, N=b)} as tabulated in
   * docs/design/cross-silo.md 1.4: fraction = (b - ppf)/(n - n_A).
   */
  @Test
  void figureOneTableMatchesScipy() {
    int[][] rows = {{500, 12500, 85, 67, 55}, {500, 25000, 203, 180, 163}, {2500, 25000, 1146, 1095, 1057},
        {500, 500, 0, 0, 0}};
    double[][] fractions = {{0.011067, 0.011547, 0.011867, 0.013333}, {0.011880, 0.012800, 0.013480, 0.020000},
        {0.054160, 0.056200, 0.057720, 0.100000}, {0.010101, 0.010101, 0.010101, 0.010101}};
    for (int r = 0; r < rows.length; r++) {
      SworAmplification s = new SworAmplification(50_000, rows[r][1], rows[r][0]);
      for (int i = 0; i < SLACKS.length; i++) {
        assertEquals(rows[r][2 + i], s.maliciousQuantile(SLACKS[i]), "b " + rows[r][0] + " n_A " + rows[r][1]
            + " delta_s " + SLACKS[i]);
        assertEquals(fractions[r][i], s.slackFraction(SLACKS[i]), 5e-7);
      }
      assertEquals(fractions[r][3], s.worstCaseFraction(), 5e-7);
      assertEquals(rows[r][0] / 50_000.0, s.poissonFraction(), 1e-15);
    }
  }

  /**
   * The quantile against exact rational arithmetic: P[X <= k] = sum_j C(n_A, j) C(n_H, b - j) /
   * C(n, b) in BigInteger, compared exactly with the double delta_s. The Java value could be one
   * below the exact one only where the exact CDF is within 1e-10 relative of delta_s (its
   * deliberate conservative rounding); no case here comes that close, so they must be equal.
   */
  @Test
  void quantilesAgreeWithExactBinomialSums() {
    int[][] cases = {{50_000, 12_500, 500}, {50_000, 25_000, 500}, {50_000, 25_000, 2500}, {50_000, 500, 500},
        {1000, 300, 100}, {200, 150, 60}, {5000, 2500, 40}};
    for (int[] c : cases) {
      SworAmplification s = new SworAmplification(c[0], c[1], c[2]);
      for (double ds : new double[] {1e-15, 1e-12, 1e-10, 1e-5, 0.01, 0.3, 0.5, 0.9}) {
        int exact = exactQuantile(c[0], c[1], c[2], ds);
        assertEquals(exact, s.maliciousQuantile(ds), "n " + c[0] + " n_A " + c[1] + " b " + c[2] + " delta_s " + ds);
      }
    }
  }

  /**
   * commons-statistics' hypergeometric probabilities, relative to exact ones, across the whole
   * support where they are above 1e-300: the error bound {@link
   * SworAmplification#TAIL_RELATIVE_ERROR} = 1e-10 allows for must hold with room (measured: 5.6e-13).
   */
  @Test
  void hypergeometricProbabilitiesAreAccurateToOneInHundredBillion() {
    double worst = 0;
    for (int[] c : new int[][] {{50_000, 25_000, 2500}, {50_000, 12_500, 500}, {1000, 300, 100}}) {
      HypergeometricDistribution x = HypergeometricDistribution.of(c[0], c[1], c[2]);
      BigInteger[] num = exactNumerators(c[0], c[1], c[2]);
      BigDecimal total = new BigDecimal(binomial(c[0], c[2]));
      for (int k = 0; k < num.length; k++) {
        double exact = new BigDecimal(num[k]).divide(total, MathContext.DECIMAL128).doubleValue();
        if (exact > 1e-300) {
          worst = Math.max(worst, Math.abs(x.probability(k) / exact - 1));
        }
      }
    }
    System.out.printf("hypergeometric pmf: worst relative error %.3g%n", worst);
    assertTrue(worst < 1e-11, "worst relative error " + worst);
  }

  /**
   * Without a coalition (n_H = n) every analysis is fixed-size sampling at b/n, accounted with
   * Dong, Roth and Su's C_q (class note): q = 400/50 000 = 0.008, sigma 1,
   * 1250 steps, delta 1e-5. The paper's 2.507 (Heikkila et al. Fig. 2; {@link PldAccountantTest})
   * is Poisson sampling's, with its replace-one pair; SWOR at the same rate costs far more.
   */
  @Test
  void withoutACoalitionEveryAnalysisIsTheFixedSizeBoundAtBOverN() {
    SworAmplification s = new SworAmplification(50_000, 0, 400);
    DpEvent e = s.event(1, new Exact());
    assertInstanceOf(MixtureDpEvent.class, e);
    assertEquals(1, ((MixtureDpEvent) e).size());
    double eps = s.epsilon(1, new Exact(), 1250, 1e-5);
    double pair = new PldAccountant().compose(SworAmplification.fixedSizeStep(400, 50_000, 1), 1250).epsilon(1e-5);
    assertEquals(pair, eps, 1e-6);
    assertEquals(eps, s.epsilon(1, new WorstCase(), 1250, 1e-5), 1e-9);
    double poisson = new PldAccountant().compose(SworAmplification.poissonPair(0.008, 1), 1250).epsilon(1e-5);
    assertEquals(2.507, poisson, 5e-4);
    assertTrue(eps > 2 * poisson, "SWOR " + eps + " against Poisson " + poisson);
  }

  /**
   * The exact mixture is never looser than the worst case or than the slack analysis (whose PLD
   * already carries 1250 delta_s at infinity), and eps grows with the coalition (doubt 20: the T + 1
   * largest parties are the worst case). q = b/n = 0.008 as in the paper.
   */
  @Test
  void exactIsTightestAndGrowsWithTheCoalition() {
    double previous = 0;
    for (int nA : new int[] {0, 500, 1000, 1500, 2000, 2500, 3000}) {
      SworAmplification s = new SworAmplification(5000, nA, 40);
      double exact = s.epsilon(1, new Exact(), 1250, 1e-5);
      double worst = s.epsilon(1, new WorstCase(), 1250, 1e-5);
      double slack = s.epsilon(1, new Slack(1e-10), 1250, 1e-5);
      System.out.printf("SWOR n 5000 b 40 n_A %d: exact %.4f, slack(1e-10) %.4f, worst %.4f%n", nA, exact, slack,
          worst);
      assertTrue(exact <= worst + 1e-9, "n_A " + nA + ": exact " + exact + " > worst " + worst);
      assertTrue(exact <= slack + 1e-9, "n_A " + nA + ": exact " + exact + " > slack " + slack);
      assertTrue(exact >= previous - 1e-9, "n_A " + nA + ": eps " + exact + " below " + previous);
      previous = exact;
    }
  }

  /**
   * Bucketing moves mass to larger m only, so it never lowers eps: one bucket per m (41 values of
   * m) against 16, 4 and 1 bucket(s).
   */
  @Test
  void bucketingNeverLowersEpsilon() {
    SworAmplification s = new SworAmplification(5000, 2000, 40);
    double previous = s.epsilon(1, new Exact(41, 0), 500, 1e-5);
    for (int buckets : new int[] {16, 4, 1}) {
      double eps = s.epsilon(1, new Exact(buckets, 1e-15), 500, 1e-5);
      assertTrue(eps >= previous - 1e-9, buckets + " buckets: " + eps + " < " + previous);
      previous = eps;
    }
    // One bucket is the worst case over the kept support (m up to the 1 - 1e-15 quantile).
    assertTrue(previous <= s.epsilon(1, new WorstCase(), 500, 1e-5) + 1e-9);
  }

  /** The shapes of the events: slack wraps its rate, the exact mixture charges its tail. */
  @Test
  void eventsHaveTheDocumentedShape() {
    SworAmplification s = new SworAmplification(50_000, 12_500, 500);
    SlackDpEvent slack = (SlackDpEvent) s.event(1, new Slack(1e-10));
    assertEquals(1e-10, slack.slack());
    SampledWithoutReplacementDpEvent step = (SampledWithoutReplacementDpEvent) slack.inner();
    assertEquals(500 - 67, step.sampleSize());
    assertEquals(37_500, step.populationSize());
    assertTrue(step.samplingFraction() > (500 - 67) / 37_500.0, "the rate is rounded up");
    assertEquals(0.5, ((GaussianDpEvent) step.event()).noiseMultiplier(), "sigma/2: the replace-one sensitivity is 2C");
    SlackDpEvent exact = (SlackDpEvent) s.event(1, new Exact());
    assertTrue(exact.slack() > 0 && exact.slack() <= 1e-15 * (1 + 1e-10), "tail " + exact.slack());
    MixtureDpEvent m = (MixtureDpEvent) exact.inner();
    assertTrue(m.size() <= SworAmplification.DEFAULT_BUCKETS, m.size() + " buckets");
    assertEquals(1, new SworAmplification(10, 5, 10).worstCaseFraction());
  }

  /**
   * The equivalent fraction is never below Poisson's b/n, and without a coalition it is above it:
   * SWOR at b/n costs more than Poisson at b/n, each with its own pair.
   */
  @Test
  void equivalentFractionIsNeverBelowPoissonsRate() {
    SworAmplification none = new SworAmplification(5000, 0, 40);
    double q = none.equivalentFraction(1, 200, 1e-5);
    System.out.printf("SWOR n 5000 b 40 no coalition, 200 steps: equivalent fraction %.5f (Poisson %.4f)%n", q,
        none.poissonFraction());
    assertTrue(q > none.poissonFraction() * 1.01, "q " + q);
    assertTrue(q <= 1, "q " + q);
  }

  /**
   * The windowed analyses (used above 2^20 counts, where enumerating the support ran out of memory
   * or ran for minutes) agree with the enumerating ones where both can run: the same k*, and an
   * exact mixture whose eps is within 1e-6. (Each mixture is an upper bound on the true one; their
   * bucket edges differ, so either may come out lower in the last digits.)
   */
  @Test
  void windowedAnalysesAgreeWithEnumeration() {
    int[][] cases = {{50_000, 12_500, 500}, {50_000, 25_000, 2500}, {5000, 2000, 40}, {1_000_000, 400_000, 300_000}};
    for (int[] c : cases) {
      SworAmplification s = new SworAmplification(c[0], c[1], c[2]);
      for (double ds : new double[] {1e-15, 1e-10, 1e-5, 0.3, 0.7}) {
        assertEquals(s.maliciousQuantile(ds), s.windowedQuantile(ds), java.util.Arrays.toString(c) + " ds " + ds);
      }
      if (c[2] > 500) {
        continue; // the quantile alone: composing these mixtures costs seconds each
      }
      PldAccountant full = new PldAccountant().compose(s.event(1, new Exact()), 50);
      PldAccountant windowed = new PldAccountant().compose(s.windowedExact(1, new Exact()), 50);
      double e = full.epsilon(1e-5);
      double w = windowed.epsilon(1e-5);
      assertEquals(e, w, 1e-6 * e, java.util.Arrays.toString(c));
    }
  }

  /**
   * At 2^31 - 1 records the analyses finish and stay sensible: k* sits about 6.4 standard
   * deviations below the mean for delta_s 1e-10 (normal quantile 6.36), the exact mixture's top
   * rate about 8 above it for its 1e-15 tail (7.94), and a batch of every record is the whole
   * data set every step.
   */
  @Test
  void theLargestPopulationsAreAnalysedNearTheirMode() {
    int n = Integer.MAX_VALUE;
    int nA = 1 << 30;
    int b = 1 << 30;
    SworAmplification s = new SworAmplification(n, nA, b);
    double mean = (double) b * nA / n;
    double sd = Math.sqrt(mean * (1 - (double) nA / n) * (n - (double) b) / (n - 1.0));
    double z = (mean - s.maliciousQuantile(1e-10)) / sd;
    assertTrue(z > 6.2 && z < 6.5, "z " + z);
    SlackDpEvent exact = (SlackDpEvent) s.event(1, new Exact());
    assertTrue(exact.slack() > 0 && exact.slack() <= 1e-15 * (1 + 1e-9), "tail " + exact.slack());
    MixtureDpEvent m = (MixtureDpEvent) exact.inner();
    assertTrue(m.size() <= SworAmplification.DEFAULT_BUCKETS, m.size() + " buckets");
    double nH = n - nA;
    double top = ((SampledWithoutReplacementDpEvent) m.component(0)).sampleSize();
    double honestMean = b - mean;
    assertTrue((top - honestMean) / sd > 7.7 && (top - honestMean) / sd < 8.3, "top " + (top - honestMean) / sd);
    assertMessage(() -> s.event(1, new Exact(64, 0)), "needs a positive tail");
    SworAmplification all = new SworAmplification(n, 0, n);
    assertEquals(all.epsilon(1, new WorstCase(), 1, 1e-5), all.epsilon(1, new Exact(), 1, 1e-5), 1e-12,
        "every record in every batch: the exact analysis is the worst case");
    assertEquals(0, all.maliciousQuantile(1e-10));
  }

  @Test
  void badParametersAreRefusedNamingThem() {
    assertMessage(() -> new SworAmplification(100, 100, 10), "malicious records must be in [0, records)");
    assertMessage(() -> new SworAmplification(100, 10, 101), "batch must be in [1, records]");
    assertMessage(() -> new Slack(0), "slack delta_s must be in (0, 1). Provided value: 0.0");
    assertMessage(() -> new Exact(0, 1e-15), "buckets");
    assertMessage(() -> new Exact(8, 0.1), "tail must be in [0, 1e-6]");
  }

  private static void assertMessage(Runnable r, String expected) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  /** The smallest k with P[X <= k] >= ds, X ~ Hyp(n, nA, b), in exact arithmetic. */
  static int exactQuantile(int n, int nA, int b, double ds) {
    BigInteger[] num = exactNumerators(n, nA, b);
    BigDecimal threshold = new BigDecimal(ds).multiply(new BigDecimal(binomial(n, b)));
    BigInteger cdf = BigInteger.ZERO;
    for (int k = 0; k < num.length; k++) {
      cdf = cdf.add(num[k]);
      if (new BigDecimal(cdf).compareTo(threshold) >= 0) {
        return k;
      }
    }
    throw new AssertionError("CDF never reached " + ds);
  }

  /**
   * C(nA, k) C(n - nA, b - k) for k = 0..b (zero outside the support), by the exact recurrence
   * N(k + 1) = N(k) (nA - k)(b - k) / ((k + 1)(n - nA - b + k + 1)): both sides are integers.
   */
  static BigInteger[] exactNumerators(int n, int nA, int b) {
    int nH = n - nA;
    BigInteger[] out = new BigInteger[b + 1];
    java.util.Arrays.fill(out, BigInteger.ZERO);
    int lo = Math.max(0, b - nH);
    int hi = Math.min(b, nA);
    BigInteger v = binomial(nA, lo).multiply(binomial(nH, b - lo));
    for (int k = lo; k <= hi; k++) {
      out[k] = v;
      v = v.multiply(BigInteger.valueOf((long) (nA - k) * (b - k)))
          .divide(BigInteger.valueOf((long) (k + 1) * (nH - b + k + 1)));
    }
    return out;
  }

  static BigInteger binomial(int n, int k) {
    int kk = Math.min(k, n - k);
    BigInteger r = BigInteger.ONE;
    for (int i = 0; i < kk; i++) {
      r = r.multiply(BigInteger.valueOf(n - i)).divide(BigInteger.valueOf(i + 1));
    }
    return r;
  }
}
