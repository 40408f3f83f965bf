package dev.helmet.privacy.audit;

import dev.helmet.core.util.Checks;
import java.util.Arrays;
import org.apache.commons.statistics.distribution.BetaDistribution;

/**
 * The empirical lower bound on epsilon from a distinguishing test between a data set D and a
 * neighbour D'.
 *
 * <p>An (eps, delta)-DP release M gives, for every test that answers "D'" on an output set S,
 * {@code P[M(D') in S] <= e^eps P[M(D) in S] + delta}, so with the test's false-positive rate
 * {@code FPR = P[M(D) in S]} and false-negative rate {@code FNR = P[M(D') not in S]},
 *
 * <pre>
 *   eps >= log((1 - delta - FNR) / FPR),
 * </pre>
 *
 * and the same with D and D' exchanged, since the neighbouring relation is symmetric (Kairouz, Oh
 * and Viswanath 2015; Jagielski, Ullman and Oprea 2020, section 3). With trials in place of the true
 * rates, FPR and FNR are replaced by their one-sided Clopper-Pearson upper bounds, each at level
 * {@code (1 - confidence) / 2}, so by a union bound the returned eps holds with probability at least
 * {@code confidence} over the trials: a lower bound an honest mechanism stays under, and a printed
 * epsilon below it is a bug.
 *
 * <p>The test is fixed before it is scored: each score array is split in halves; the threshold and
 * the direction ("larger scores mean D'" or the reverse) are chosen on the first halves, and the
 * error counts are taken on the second halves only. Choosing the threshold on the counts it is
 * scored with would make the bound optimistic (a maximum over many thresholds of noisy bounds).
 */
public final class EpsilonLowerBound {
  private EpsilonLowerBound() {}

  /**
   * An audit's result.
   *
   * @param epsilon the empirical lower bound (0 where the test tells nothing)
   * @param threshold the score threshold, chosen on the first halves
   * @param largerMeansNeighbour whether the test answers "D'" for scores above the threshold (else
   *     for scores below it)
   * @param falsePositives the second-half trials on D the test called D'
   * @param falseNegatives the second-half trials on D' the test called D
   * @param trialsD the second-half trials on D
   * @param trialsNeighbour the second-half trials on D'
   * @param fprUpper the Clopper-Pearson upper bound on the false-positive rate
   * @param fnrUpper the Clopper-Pearson upper bound on the false-negative rate
   */
  public record Result(double epsilon, double threshold, boolean largerMeansNeighbour, long falsePositives,
      long falseNegatives, int trialsD, int trialsNeighbour, double fprUpper, double fnrUpper) {}

  /**
   * The lower bound from scores of the release on D and on D'.
   *
   * @param scoresD the test statistic of each trial on D (independent draws of the noise)
   * @param scoresNeighbour the same on D'
   * @param delta the delta of the guarantee being audited
   * @param confidence the probability, over the trials, that the returned bound holds
   */
  public static Result of(double[] scoresD, double[] scoresNeighbour, double delta, double confidence) {
    Checks.openUnit("confidence", confidence);
    if (!(delta >= 0 && delta < 1)) {
      throw new IllegalArgumentException("delta must be in [0, 1), got " + delta);
    }
    if (scoresD.length < 4 || scoresNeighbour.length < 4) {
      throw new IllegalArgumentException("an audit needs at least 4 trials on each data set, got "
          + scoresD.length + " and " + scoresNeighbour.length);
    }
    for (double[] s : new double[][] {scoresD, scoresNeighbour}) {
      for (double v : s) {
        if (Double.isNaN(v)) {
          throw new IllegalArgumentException("a trial's score is NaN");
        }
      }
    }
    double alpha = (1 - confidence) / 2;
    int hd = scoresD.length / 2;
    int hn = scoresNeighbour.length / 2;
    double[] chooseD = Arrays.copyOfRange(scoresD, 0, hd);
    double[] chooseN = Arrays.copyOfRange(scoresNeighbour, 0, hn);
    double[] scoreD = Arrays.copyOfRange(scoresD, hd, scoresD.length);
    double[] scoreN = Arrays.copyOfRange(scoresNeighbour, hn, scoresNeighbour.length);
    Choice up = choose(chooseD, chooseN, delta, alpha);
    Choice down = choose(negated(chooseD), negated(chooseN), delta, alpha);
    boolean larger = up.bound >= down.bound;
    double t = larger ? up.threshold : -down.threshold;
    long fp = 0;
    for (double v : scoreD) {
      fp += calls(v, t, larger) ? 1 : 0;
    }
    long fn = 0;
    for (double v : scoreN) {
      fn += calls(v, t, larger) ? 0 : 1;
    }
    double fprUpper = clopperPearsonUpper(fp, scoreD.length, alpha);
    double fnrUpper = clopperPearsonUpper(fn, scoreN.length, alpha);
    return new Result(bound(fprUpper, fnrUpper, delta), t, larger, fp, fn, scoreD.length, scoreN.length,
        fprUpper, fnrUpper);
  }

  /**
   * Whether the test calls a score D' (larger: above the threshold; else below it, strictly: the
   * test chosen on negated scores as "-v > -t").
   */
  private static boolean calls(double v, double t, boolean larger) {
    return larger ? v > t : v < t;
  }

  /** {@code log((1 - delta - fnr) / fpr)}, 0 where that is negative or undefined. */
  static double bound(double fprUpper, double fnrUpper, double delta) {
    double num = 1 - delta - fnrUpper;
    if (num <= 0 || fprUpper >= 1) {
      return 0;
    }
    return Math.max(0, Math.log(num / fprUpper));
  }

  /** The most thresholds tried on the first halves. */
  static final int CANDIDATES = 4096;

  private record Choice(double threshold, double bound) {}

  /**
   * The threshold "D' when the score is above t" with the best bound on these (first-half) trials.
   * Candidates are the scores themselves, at most {@link #CANDIDATES} of them evenly spaced in sorted
   * order (each costs a Beta quantile); one sorted sweep counts both error kinds at each.
   */
  private static Choice choose(double[] d, double[] n, double delta, double alpha) {
    double[] sd = d.clone();
    double[] sn = n.clone();
    Arrays.sort(sd);
    Arrays.sort(sn);
    Choice best = new Choice(Double.POSITIVE_INFINITY, 0);
    int i = 0; // scores of D at or below t
    int j = 0; // scores of D' at or below t
    double[] all = new double[sd.length + sn.length];
    System.arraycopy(sd, 0, all, 0, sd.length);
    System.arraycopy(sn, 0, all, sd.length, sn.length);
    Arrays.sort(all);
    int step = Math.max(1, all.length / CANDIDATES);
    for (int k = step - 1; k < all.length; k += step) {
      double t = all[k];
      while (i < sd.length && sd[i] <= t) {
        i++;
      }
      while (j < sn.length && sn[j] <= t) {
        j++;
      }
      long fp = sd.length - i;
      long fn = j;
      double b = bound(clopperPearsonUpper(fp, sd.length, alpha), clopperPearsonUpper(fn, sn.length, alpha), delta);
      if (b > best.bound) {
        best = new Choice(t, b);
      }
    }
    return best;
  }

  private static double[] negated(double[] a) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = -a[i];
    }
    return r;
  }

  /**
   * The one-sided Clopper-Pearson upper bound on a binomial proportion after {@code k} successes in
   * {@code n} trials: the p with {@code P[Bin(n, p) <= k] = alpha}, which is the {@code 1 - alpha}
   * quantile of Beta(k + 1, n - k) (1 where k = n). It errs high, so the bound built on it errs low.
   */
  public static double clopperPearsonUpper(long k, long n, double alpha) {
    if (n <= 0 || k < 0 || k > n) {
      throw new IllegalArgumentException("need 0 <= k <= n and n > 0, got k = " + k + ", n = " + n);
    }
    Checks.openUnit("alpha", alpha);
    if (k == n) {
      return 1;
    }
    return BetaDistribution.of(k + 1, n - k).inverseSurvivalProbability(alpha);
  }
}
