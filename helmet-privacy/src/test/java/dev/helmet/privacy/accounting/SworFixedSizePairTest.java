package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.accounting.SworAmplification.Exact;
import dev.helmet.privacy.accounting.SworAmplification.Slack;
import dev.helmet.privacy.accounting.SworAmplification.WorstCase;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.MixtureDpEvent;
import dev.helmet.privacy.event.NoOpDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SampledWithoutReplacementDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.statistics.distribution.HypergeometricDistribution;
import org.apache.commons.statistics.distribution.NormalDistribution;
import org.junit.jupiter.api.Test;

/**
 * SWOR steps are accounted with Dong, Roth and Su's C_q, the bound fixed-size sampling has under
 * replace-one, not with the Poisson replace-one pair (privacy review, turn 3, finding 1), nor with
 * one direction of C_q's pair composed on its own (the turn-3 attacker's read: neighbours may meet
 * either direction, or a symmetric step, in any step). The crafted neighbours: D' = n_H copies of
 * x', D = x plus n_H - 1 copies of x', clipped gradients g(x) = C u = -g(x'). Given m honest records
 * in the batch, the released step is exactly P = (1 - q_m) N(0, s^2) + q_m N(2, s^2) against Q =
 * N(0, s^2) (in units of C), q_m = m/n_H. The attained values are from
 * /work/shared/reviews/turn3/privacy-review.md, finding 1 (scripts WorPair.java, SworTrue.java,
 * SworExp.java, run on the project's own PLD accountant at a5230d4), each printed by a different
 * code path from the one tested here: the review built the pair by hand. The C_q values are
 * bracketed by {@code scripts/swor-cq-reference.py} (numpy, its own construction of the
 * symmetrised PLD: positive losses, their mirror and an atom at 0), which shares no code with the
 * accountant.
 */
@org.junit.jupiter.api.Tag("statistical")
class SworFixedSizePairTest {
  private static final double DELTA = 1e-5;

  /**
   * The breast-cancer run of the review: {@code ./helmet train --algorithm cross-silo --dataset
   * breast-cancer --parties 3 --sampling swor --batch 20 --rounds 200 --epsilon 3 --learner softmax
   * --swor-mixnet ideal --colluders 0}: n = 546 records on the token list, the coalition (the
   * observer) knows 182, b = 20, 200 steps. At the sigma it printed, 1.4814869611479062, the crafted
   * neighbours reach eps 6.979 ({@code SworTrue 546 182 20 1.4814869611479062 200}); the code at
   * a5230d4 said 3.00. The accountant's eps there must be at least the attained 6.979. At the sigma
   * that per-direction accounting calibrated to eps 3 (2.16137, commit a5d57a3), C_q gives 3.39: the
   * reference script brackets it in [3.3787, 3.4055] ({@code swor-cq-reference.py 546 182 20 2.16137
   * 200 2e-4 4}).
   */
  @Test
  void sworIsAccountedWithDongRothSusBoundAboveWhatTheCraftedNeighboursAttain() {
    SworAmplification s = new SworAmplification(546, 182, 20);
    double eps = s.epsilon(1.4814869611479062, new Exact(), 200, DELTA);
    assertTrue(eps >= 6.979 - 5e-4, "eps " + eps + " below the attained 6.979");
    double cq = s.epsilon(2.16137, new Exact(), 200, DELTA);
    assertTrue(cq >= 3.3787 && cq <= 3.4055, "C_q eps " + cq + " outside the reference bracket [3.3787, 3.4055]");
  }

  /**
   * Calibrating the same setting to eps 3 gives a sigma at which the crafted neighbours' pair,
   * built by hand as the review's SworTrue does (every m of Hyp(546, 364, 20) with its own q_m =
   * m/364, no buckets, no rounding), stays within eps 3: the printed target holds against the
   * attack that broke it. The sigma is above the per-direction calibration's 2.16137, and the
   * reference script's bracket at it holds 3 ([2.9859, 3.0135] at 2.3065777: {@code
   * swor-cq-reference.py 546 182 20 2.3065776696567486 200 2e-4 4}).
   */
  @Test
  void calibrationAtEpsilonThreeHoldsAgainstTheCraftedNeighbours() {
    double sigma = breastCancerSigma();
    double attained = new PldAccountant().compose(craftedMixture(546, 182, 20, sigma), 200).epsilon(DELTA);
    System.out.printf("breast-cancer SWOR at eps 3: sigma %.5f (1.48149 at a5230d4, 2.16137 per direction), "
        + "crafted pair eps %.4f%n", sigma, attained);
    assertTrue(sigma > 2.16137, "sigma " + sigma + " is not above the per-direction calibration's 2.16137");
    assertEquals(2.3065777, sigma, 2e-3, "the sigma at which the reference script brackets eps 3");
    assertTrue(attained <= 3, "the crafted neighbours reach eps " + attained + " > 3 at sigma " + sigma);
    assertTrue(attained >= 2.5, "the calibration is far from the attack: the crafted pair reaches only " + attained);
  }

  /**
   * Replace-one neighbours can meet a different pair in each step: with the other records'
   * gradients at g(x') a step is P vs Q (the crafted neighbours), at g(x) it is Q vs P, and with
   * them at 0 and g(x) = C u = -g(x') it is the symmetric Poisson replace-one pair at sigma (the
   * turn-3 attacker's step, dominated by neither direction of P vs Q); the model can move the others
   * between these from step to step. C_q dominates all three in every step, so any sequence of them
   * stays within the printed eps: this composes every split (k steps of one direction, j of the
   * other, the rest symmetric) on a grid of 40 steps, for the breast-cancer run calibrated to eps 3.
   */
  @Test
  void neighboursWhoseStepsMixTheTwoDirectionsAndTheSymmetricStepStayWithinThePrintedEps() {
    SworAmplification s = new SworAmplification(546, 182, 20);
    double sigma = breastCancerSigma();
    double printed = new PldAccountant().compose(s.event(sigma, new Exact()), 200).epsilon(DELTA);
    Pld[] directions = new PldAccountant().single(craftedMixture(546, 182, 20, sigma));
    Pld symmetric = new PldAccountant().single(attackersMixture(546, 182, 20, sigma))[0];
    double tail = PldAccountant.DEFAULT_TAIL;
    Pld[][] powers = new Pld[3][201];
    Pld[] base = {directions[0], directions[1], symmetric};
    for (int p = 0; p < 3; p++) {
      for (int k = 0; k <= 200; k += 40) {
        powers[p][k] = k == 0 ? Pld.identity() : base[p].power(k, tail);
      }
    }
    double worst = 0;
    String at = "";
    for (int k = 0; k <= 200; k += 40) {
      for (int j = 0; k + j <= 200; j += 40) {
        Pld seq = powers[0][k].convolve(powers[1][j], tail).convolve(powers[2][200 - k - j], tail);
        double e = seq.epsilon(DELTA, PldAccountant.DEFAULT_INTERVAL);
        if (e > worst) {
          worst = e;
          at = k + " remove, " + j + " add, " + (200 - k - j) + " symmetric";
        }
      }
    }
    System.out.printf("breast-cancer SWOR at sigma %.5f: printed eps %.4f, worst mixed sequence %.4f (%s)%n", sigma,
        printed, worst, at);
    assertTrue(worst <= printed + 1e-9, "a mixed sequence (" + at + ") reaches eps " + worst + " > printed " + printed);
  }

  /**
   * One step, eps from -4 to 4 (negative ones included, where the add direction's profile is the
   * larger): the symmetrised PLD's delta is at least the exact hockey-stick divergence of each
   * direction of the crafted pair and of the attacker's symmetric step (closed forms at the
   * likelihood ratio's threshold, sharing no code with the accountant), and it is symmetric,
   * delta(-eps) = 1 - e^-eps + e^-eps delta(eps) (the identity of a pair with T(P, Q) = T(Q, P)).
   */
  @Test
  void theSymmetrisedStepDominatesBothDirectionsAndTheSymmetricStepAtEveryEps() {
    double h = PldAccountant.DEFAULT_INTERVAL;
    for (double[] qs : new double[][] {{0.01, 1.0}, {0.055, 2.3}, {0.3, 0.8}, {1, 1.5}}) {
      double q = qs[0];
      double sigma = qs[1];
      Pld sym = new PldAccountant().single(SworAmplification.fixedSizeStep(qsample(q), 1_000_000, sigma))[0];
      for (double eps = -4; eps <= 4; eps += 0.05) {
        double d = sym.delta(eps, h);
        double[] exact = pairDelta(q, sigma, eps);
        double attack = symmetricStepDelta(q, sigma, eps);
        for (double other : new double[] {exact[0], exact[1], attack}) {
          assertTrue(d >= other * (1 - 1e-12) - 1e-14, String.format("q %s sigma %s eps %.2f: symmetrised %.9e < %.9e",
              q, sigma, eps, d, other));
        }
        if (eps > 0) {
          double mirrored = 1 - Math.exp(-eps) + Math.exp(-eps) * d;
          assertEquals(mirrored, sym.delta(-eps, h), 1e-4 * d + 5e-8,
              String.format("q %s sigma %s eps %.2f: not symmetric", q, sigma, eps));
        }
      }
    }
  }

  /**
   * {remove, add}: the exact delta(eps) of P = (1 - q) N(0, sigma^2) + q N(2, sigma^2) against Q =
   * N(0, sigma^2) and of Q against P (units of C), at any real eps.
   */
  static double[] pairDelta(double q, double sigma, double eps) {
    NormalDistribution z = NormalDistribution.of(0, 1);
    double e = Math.exp(eps);
    double s = sigma;
    double remove;
    if (e - (1 - q) <= 0) {
      remove = 1 - e; // P > e^eps Q everywhere
    } else {
      double t = 1 + s * s / 2 * Math.log((e - (1 - q)) / q);
      remove = (1 - q) * z.survivalProbability(t / s) + q * z.survivalProbability((t - 2) / s)
          - e * z.survivalProbability(t / s);
    }
    double add = 0;
    double r = (1 / e - (1 - q)) / q;
    if (r > 0) {
      double u = 1 + s * s / 2 * Math.log(r);
      add = z.cumulativeProbability(u / s) - e * ((1 - q) * z.cumulativeProbability(u / s)
          + q * z.cumulativeProbability((u - 2) / s));
    }
    return new double[] {Math.max(0, remove), Math.max(0, add)};
  }

  /**
   * The exact delta(eps) of the attacker's step (1 - q) N(0, sigma^2) + q N(1, sigma^2) against (1 -
   * q) N(0, sigma^2) + q N(-1, sigma^2): the loss is increasing in x, so the set is {x > x*}, x*
   * found by bisection.
   */
  static double symmetricStepDelta(double q, double sigma, double eps) {
    NormalDistribution z = NormalDistribution.of(0, 1);
    java.util.function.DoubleUnaryOperator loss = x -> Math.log((1 - q) + q * Math.exp((2 * x - 1) / (2 * sigma * sigma)))
        - Math.log((1 - q) + q * Math.exp((-2 * x - 1) / (2 * sigma * sigma)));
    double lo = -60 * sigma;
    double hi = 60 * sigma;
    if (loss.applyAsDouble(lo) > eps) {
      return 1 - Math.exp(eps);
    }
    if (loss.applyAsDouble(hi) <= eps) {
      return 0;
    }
    for (int i = 0; i < 200; i++) {
      double mid = 0.5 * (lo + hi);
      if (loss.applyAsDouble(mid) > eps) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    double x = lo;
    double p = (1 - q) * z.survivalProbability(x / sigma) + q * z.survivalProbability((x - 1) / sigma);
    double qq = (1 - q) * z.survivalProbability(x / sigma) + q * z.survivalProbability((x + 1) / sigma);
    return Math.max(0, p - Math.exp(eps) * qq);
  }

  private static double breastCancerSigma;

  /** The breast-cancer run's sigma calibrated to eps 3 (computed once: each calibration composes 200 steps a dozen times). */
  private static synchronized double breastCancerSigma() {
    if (breastCancerSigma == 0) {
      SworAmplification s = new SworAmplification(546, 182, 20);
      breastCancerSigma = Calibration.noiseMultiplier(x -> new SelfComposedDpEvent(s.event(x, new Exact()), 200),
          PldAccountant::new, 3, DELTA, 1e-4);
    }
    return breastCancerSigma;
  }

  private static int qsample(double q) {
    return (int) Math.round(q * 1_000_000);
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
   * Two rows of the review's WorPair table: the crafted pair at rate q (what {@link WorstCase}
   * uses with no coalition, b/n_H = b/n) over T steps, one direction composed. q 0.01, sigma 1, T
   * 1000: it attains 13.36 (the Poisson replace-one pair gave 2.843); q 0.05, sigma 3, T 200: 2.349
   * (against 1.865). C_q is at least that; at q 0.05 the reference script brackets it in [2.6389,
   * 2.6693] ({@code swor-cq-reference.py 10000 0 500 3 200 2e-4 4}).
   */
  @Test
  void withoutACoalitionSworCostsAtLeastWhatTheReviewsWorPairTableAttains() {
    double a = new SworAmplification(100_000, 0, 1000).epsilon(1.0, new WorstCase(), 1000, DELTA);
    assertTrue(a >= 13.36 - 0.005, "q 0.01, sigma 1, T 1000: " + a + " below the attained 13.36");
    double b = new SworAmplification(10_000, 0, 500).epsilon(3.0, new WorstCase(), 200, DELTA);
    assertTrue(b >= 2.349, "q 0.05, sigma 3, T 200: " + b + " below the attained 2.349");
    assertTrue(b >= 2.6389 && b <= 2.6693, "q 0.05, sigma 3, T 200: C_q eps " + b
        + " outside the reference bracket [2.6389, 2.6693]");
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
        for (SworAmplification.Analysis a : List.of(new Exact(), new WorstCase(), new Slack(1e-10))) {
          PldAccountant one = new PldAccountant().compose(s.event(sigma, a), 1);
          for (double eps : new double[] {0.25, 0.5, 1, 2, 4}) {
            double attained = craftedDelta(st[0], st[1], st[2], sigma, eps);
            double accounted = one.delta(eps);
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
   * probability at least 1e-18 (renormalised), each the add-or-remove Poisson pair at exactly m/n_H
   * and sigma/2 (P vs Q in the remove direction, Q vs P in the add direction).
   */
  static DpEvent craftedMixture(int n, int nA, int b, double sigma) {
    return mixtureOverM(n, nA, b, q -> new PoissonSampledDpEvent(q, new GaussianDpEvent(sigma / 2)));
  }

  /**
   * The turn-3 attacker's step: the other records' gradients at 0, g(x) = C u = -g(x'); given m the
   * honest sum is g(x) or g(x') with probability q_m, else 0: the Poisson replace-one pair at sigma.
   */
  static DpEvent attackersMixture(int n, int nA, int b, double sigma) {
    return mixtureOverM(n, nA, b, q -> SworAmplification.poissonPair(q, sigma));
  }

  private static DpEvent mixtureOverM(int n, int nA, int b, java.util.function.DoubleFunction<DpEvent> step) {
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
      parts.add(m == 0 ? new NoOpDpEvent() : step.apply(Math.min(1, (double) m / nH)));
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
