package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.accounting.SworAmplification.Exact;
import dev.helmet.privacy.accounting.SworAmplification.Slack;
import dev.helmet.privacy.accounting.SworAmplification.WorstCase;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.MixtureDpEvent;
import dev.helmet.privacy.event.NoOpDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.statistics.distribution.HypergeometricDistribution;
import org.apache.commons.statistics.distribution.NormalDistribution;
import org.junit.jupiter.api.Test;

/**
 * SWOR steps are accounted with the pair that fixed-size sampling attains under replace-one, not
 * with the Poisson replace-one pair (privacy review, turn 3, finding 1). The crafted neighbours:
 * D' = n_H copies of x', D = x plus n_H - 1 copies of x', clipped gradients g(x) = C u = -g(x').
 * Given m honest records in the batch, the released step is exactly P = (1 - q_m) N(0, s^2) + q_m
 * N(2, s^2) against Q = N(0, s^2) (in units of C), q_m = m/n_H. Every golden value below is from
 * /work/shared/reviews/turn3/privacy-review.md, finding 1 (scripts WorPair.java, SworTrue.java,
 * SworExp.java, run on the project's own PLD accountant at a5230d4), and each was printed by a
 * different code path from the one tested here: the review built the pair by hand.
 */
class SworFixedSizePairTest {
  private static final double DELTA = 1e-5;

  /**
   * The breast-cancer run of the review: {@code ./helmet train --algorithm cross-silo --dataset
   * breast-cancer --parties 3 --sampling swor --batch 20 --rounds 200 --epsilon 3 --learner softmax
   * --swor-mixnet ideal --colluders 0}: n = 546 records on the token list, the coalition (the
   * observer) knows 182, b = 20, 200 steps. At the sigma it printed, 1.4814869611479062, the crafted
   * neighbours reach eps 6.979 ({@code SworTrue 546 182 20 1.4814869611479062 200}); the code at
   * a5230d4 said 3.00. The accountant's eps there must be at least the attained 6.979 (to the
   * review's three decimals) and, the pair being attained, not far above it.
   */
  @Test
  void sworIsAccountedWithTheFixedSizePairThatTheCraftedNeighboursAttain() {
    SworAmplification s = new SworAmplification(546, 182, 20);
    double eps = s.epsilon(1.4814869611479062, new Exact(), 200, DELTA);
    assertTrue(eps >= 6.979 - 5e-4, "eps " + eps + " below the attained 6.979");
    assertTrue(eps <= 6.979 * 1.01, "eps " + eps + " more than 1 % above the attained 6.979");
  }

  /**
   * Calibrating the same setting to eps 3 gives a sigma at which the crafted neighbours' pair,
   * built by hand as the review's SworTrue does (every m of Hyp(546, 364, 20) with its own q_m =
   * m/364, no buckets, no rounding), stays within eps 3: the printed target holds against the
   * attack that broke it.
   */
  @Test
  void calibrationAtEpsilonThreeHoldsAgainstTheCraftedNeighbours() {
    SworAmplification s = new SworAmplification(546, 182, 20);
    double sigma = Calibration.noiseMultiplier(x -> new SelfComposedDpEvent(s.event(x, new Exact()), 200),
        PldAccountant::new, 3, DELTA, 1e-4);
    double attained = new PldAccountant().compose(craftedMixture(546, 182, 20, sigma), 200).epsilon(DELTA);
    System.out.printf("breast-cancer SWOR at eps 3: sigma %.5f (1.48149 at a5230d4), crafted pair eps %.4f%n", sigma,
        attained);
    assertTrue(sigma > 1.4814869611479062, "sigma " + sigma + " is not above the Poisson pair's 1.48149");
    assertTrue(attained <= 3, "the crafted neighbours reach eps " + attained + " > 3 at sigma " + sigma);
    assertTrue(attained >= 2.9, "the calibration is no longer tight: the crafted pair reaches only " + attained);
  }

  /**
   * The accountant composes each direction of the fixed-size pair on its own and reports the
   * worse. Replace-one neighbours can mix them: a step in which the other records' gradients equal
   * g(x') is the pair P vs Q (the record's data set is the mixture), one in which they equal g(x)
   * is Q vs P, and the model can move the others from one to the other. Whether a mixed sequence
   * can beat both pure ones is not proven here (docs/design/cross-silo.md, doubt 21); this
   * adversarial check composes k steps of one direction with 200 - k of the other, for the
   * breast-cancer run calibrated to eps 3, and asks that none passes the printed eps.
   */
  @Test
  void neighboursWhoseStepsMixTheTwoDirectionsStayWithinThePrintedEps() {
    SworAmplification s = new SworAmplification(546, 182, 20);
    double sigma = Calibration.noiseMultiplier(x -> new SelfComposedDpEvent(s.event(x, new Exact()), 200),
        PldAccountant::new, 3, DELTA, 1e-4);
    PldAccountant acc = new PldAccountant();
    double printed = acc.compose(s.event(sigma, new Exact()), 200).epsilon(DELTA);
    Pld[] step = new PldAccountant().single(s.event(sigma, new Exact()));
    double tail = PldAccountant.DEFAULT_TAIL;
    double worst = 0;
    for (int k = 0; k <= 200; k += 25) {
      Pld mixed = k == 0 ? step[1].power(200, tail) : k == 200 ? step[0].power(200, tail)
          : step[0].power(k, tail).convolve(step[1].power(200 - k, tail), tail);
      worst = Math.max(worst, mixed.epsilon(DELTA, PldAccountant.DEFAULT_INTERVAL));
    }
    assertTrue(worst <= printed + 1e-9, "a mixed sequence reaches eps " + worst + " > printed " + printed);
  }

  /**
   * The published crosssilo-eps MNIST SWOR cells: n = 60 000 (32 silos of 1875), the coalition 4
   * silos (T = 3 plus the observer) = 7500 records, b = 400, 1500 steps. At the sigma that a5230d4
   * calibrated to eps 1.07, 1.8268, the crafted pair reaches at least 1.751 ({@code SworExp 60000 7500
   * 400 1500 1.07}, a lower bound: the mixture kept within 7 sd of m).
   */
  @Test
  void theMnistSworCellAtEpsilonOnePointZeroSevenCostsAtLeastTheAttainedValue() {
    double eps = new SworAmplification(60_000, 7500, 400).epsilon(1.8268, new Exact(), 1500, DELTA);
    assertTrue(eps >= 1.751 - 5e-4, "eps " + eps + " below the attained 1.751 (a5230d4 printed 1.07)");
  }

  /**
   * Two rows of the review's WorPair table: the plain fixed-size pair at rate q (what {@link
   * WorstCase} uses with no coalition, b/n_H = b/n) over T steps. q 0.01, sigma 1, T 1000: 13.36
   * (the Poisson replace-one pair gave 2.843); q 0.05, sigma 3, T 200: 2.349 (against 1.865).
   */
  @Test
  void withoutACoalitionSworCostsWhatTheReviewsWorPairTablePrints() {
    double a = new SworAmplification(100_000, 0, 1000).epsilon(1.0, new WorstCase(), 1000, DELTA);
    assertEquals(13.36, a, 0.005 + 1e-3 * 13.36, "q 0.01, sigma 1, T 1000");
    double b = new SworAmplification(10_000, 0, 500).epsilon(3.0, new WorstCase(), 200, DELTA);
    assertEquals(2.349, b, 0.0005 + 1e-3 * 2.349, "q 0.05, sigma 3, T 200");
  }

  /**
   * Adversarial, one step, against a closed form that shares no code with the accountant: the
   * revealed mixture over m of the crafted pair has hockey-stick divergence delta(eps) = sum_m h(m)
   * delta_m(eps) in each direction (the coalition sees m), with delta_m from the Gaussian CDF at the
   * threshold where the likelihood ratio crosses e^eps. The accountant's delta(eps), the worse
   * direction of every analysis (exact, slack, worst case), is never below it, over settings from
   * the review and eps from 0.25 to 4.
   */
  @Test
  void noAnalysisIsBelowTheCraftedPairsHockeyStickInOneStep() {
    int[][] settings = {{546, 182, 20}, {60_000, 7500, 400}, {5000, 2000, 40}, {200, 0, 50}};
    double[] sigmas = {0.6, 1.0, 1.4814869611479062, 3.0};
    for (int[] st : settings) {
      SworAmplification s = new SworAmplification(st[0], st[1], st[2]);
      for (double sigma : sigmas) {
        for (double eps : new double[] {0.25, 0.5, 1, 2, 4}) {
          double attained = craftedDelta(st[0], st[1], st[2], sigma, eps);
          for (SworAmplification.Analysis a : List.of(new Exact(), new WorstCase(), new Slack(1e-10))) {
            double accounted = new PldAccountant().compose(s.event(sigma, a), 1).delta(eps);
            assertTrue(accounted >= attained * (1 - 1e-9) - 1e-15, String.format(
                "n %d n_A %d b %d sigma %s eps %s %s: accountant delta %.6e < crafted %.6e", st[0], st[1], st[2], sigma,
                eps, a, accounted, attained));
          }
        }
      }
    }
  }

  /**
   * Adversarial, composed: the crafted pair's T-step eps (the mixture built by hand over every m,
   * composed on a fresh accountant) is never above what the analyses print, for each of them.
   */
  @Test
  void noAnalysisIsBelowTheCraftedPairAfterComposition() {
    int[][] settings = {{546, 182, 20}, {5000, 2000, 40}, {1000, 100, 100}};
    for (int[] st : settings) {
      SworAmplification s = new SworAmplification(st[0], st[1], st[2]);
      for (double sigma : new double[] {0.8, 1.5, 3.0}) {
        double attained = new PldAccountant().compose(craftedMixture(st[0], st[1], st[2], sigma), 100).epsilon(DELTA);
        for (SworAmplification.Analysis a : List.of(new Exact(), new WorstCase(), new Slack(1e-10))) {
          double accounted = s.epsilon(sigma, a, 100, DELTA);
          assertTrue(accounted >= attained - 1e-3, String.format("n %d n_A %d b %d sigma %s %s: eps %.4f < crafted %.4f",
              st[0], st[1], st[2], sigma, a, accounted, attained));
        }
      }
    }
  }

  /**
   * The equivalent fraction compares like with like: Poisson sampling with its own (replace-one)
   * pair at the fraction reaches SWOR's eps, and 0.2 % below the fraction it does not. At sigma 1,
   * where the fixed-size pair costs far more than Poisson at b/n_H, the fraction lies above the
   * worst case b/n_H, which the bracket before the fix could not return.
   */
  @Test
  void theEquivalentFractionIsThePoissonRateThatCostsWhatSworCosts() {
    SworAmplification s = new SworAmplification(5000, 2000, 40);
    double sworEps = s.epsilon(1, new Exact(), 200, DELTA);
    double q = s.fractionAtEpsilon(sworEps, 1, 200, DELTA);
    System.out.printf("SWOR n 5000 b 40 n_A 2000, sigma 1, 200 steps: eps %.4f, equivalent Poisson fraction %.5f "
        + "(b/n %.4f, b/n_H %.5f)%n", sworEps, q, s.poissonFraction(), s.worstCaseFraction());
    double at = new PldAccountant().compose(SworAmplification.poissonPair(q, 1), 200).epsilon(DELTA);
    double below = new PldAccountant().compose(SworAmplification.poissonPair(q * 0.998, 1), 200).epsilon(DELTA);
    assertTrue(at >= sworEps, "Poisson at " + q + ": eps " + at + " < SWOR's " + sworEps);
    assertTrue(below <= sworEps, "Poisson 0.2 % below " + q + ": eps " + below + " > SWOR's " + sworEps);
    assertTrue(q > s.worstCaseFraction(), "fraction " + q + " not above b/n_H " + s.worstCaseFraction());
    assertEquals(s.equivalentFraction(1, 200, DELTA), q);
  }

  /**
   * The crafted neighbours' step as the review's SworTrue builds it: every m of Hyp(n, n_H, b) with
   * probability at least 1e-18 (renormalised), each the fixed-size pair at exactly m/n_H.
   */
  static DpEvent craftedMixture(int n, int nA, int b, double sigma) {
    int nH = n - nA;
    HypergeometricDistribution h = HypergeometricDistribution.of(n, nH, b);
    List<Double> w = new ArrayList<>();
    List<DpEvent> parts = new ArrayList<>();
    double total = 0;
    for (int m = h.getSupportLowerBound(); m <= h.getSupportUpperBound(); m++) {
      double p = h.probability(m);
      if (p < 1e-18) {
        continue;
      }
      w.add(p);
      total += p;
      parts.add(m == 0 ? new NoOpDpEvent() : SworAmplification.fixedSizePair(Math.min(1, (double) m / nH), sigma));
    }
    double[] ws = new double[w.size()];
    for (int i = 0; i < ws.length; i++) {
      ws[i] = w.get(i) / total;
    }
    return new MixtureDpEvent(ws, parts.toArray(new DpEvent[0]));
  }

  /**
   * One step of the crafted neighbours, in closed form: max over the two directions of sum_m h(m)
   * H_{e^eps}, with P_m = (1 - q) N(0, s^2) + q N(2, s^2) and Q = N(0, s^2) in units of C. The
   * likelihood ratio P_m/Q = (1 - q) + q exp((2x - 2)/s^2) is increasing in x.
   */
  static double craftedDelta(int n, int nA, int b, double s, double eps) {
    int nH = n - nA;
    HypergeometricDistribution h = HypergeometricDistribution.of(n, nH, b);
    NormalDistribution z = NormalDistribution.of(0, 1);
    double remove = 0;
    double add = 0;
    double e = Math.exp(eps);
    for (int m = Math.max(1, h.getSupportLowerBound()); m <= h.getSupportUpperBound(); m++) {
      double w = h.probability(m);
      double q = Math.min(1, (double) m / nH);
      // P - e^eps Q > 0 where q exp((2x - 2)/s^2) > e^eps - (1 - q): x > t.
      double t = 1 + s * s / 2 * Math.log((e - (1 - q)) / q);
      remove += w * ((1 - q) * z.survivalProbability(t / s) + q * z.survivalProbability((t - 2) / s)
          - e * z.survivalProbability(t / s));
      // Q - e^eps P > 0 where (1 - q) + q exp((2x - 2)/s^2) < e^-eps: x < u (none if e^-eps <= 1 - q).
      double r = (1 / e - (1 - q)) / q;
      if (r > 0) {
        double u = 1 + s * s / 2 * Math.log(r);
        add += w * (z.cumulativeProbability(u / s) - e * ((1 - q) * z.cumulativeProbability(u / s)
            + q * z.cumulativeProbability((u - 2) / s)));
      }
    }
    return Math.max(remove, add);
  }
}
