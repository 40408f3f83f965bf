package dev.helmet.secagg.protocol;

import dev.helmet.core.util.Checks;

/**
 * Chooses the neighbourhood size k and the Shamir threshold t of SecAgg/SecAgg+ for n parties
 * when a fraction gamma of them may collude with the server and a fraction delta may drop out.
 *
 * <p>Two attacks bound t from below. <b>Unmasking one party:</b> the server needs both u's
 * self-mask seed and u's mask key. Colluding neighbours hold shares of both; honest neighbours
 * reveal at most one kind, and the signed consistency check stops the server from showing two
 * groups of honest neighbours different survivor sets unless each group, with the colluders'
 * signatures, reaches t. With c colluding neighbours the attack needs two disjoint groups of honest
 * neighbours, each completing t with the c colluders: {@code 2 (t - c) <= k - c}, i.e. {@code c >=
 * 2t - k}. <b>Partial sums:</b> a malicious server can also declare live parties dropped and
 * reconstruct their mask keys; if the parties it removes (declared dropped or colluding) cut the
 * graph, it learns the sum of each piece. On the Harary ring an edge spans at most k/2 positions,
 * so a cut needs a gap of k/2 consecutive removed parties. Every honest party H in such a gap
 * neighbours the other H - 1, so its mask key is recoverable only if {@code k - (H - 1) >= t};
 * and an honest party signs a survivor set only if it names at least m (the minimum number of
 * contributors) parties, so at most n - m are declared dropped. A gap is safe if {@code H > min(k
 * - t + 1, n - m)}. This is conservative: it ignores that honest parties next to the gap see fewer
 * than t signers and refuse to reveal anything (which, without colluders, already blocks the cut
 * for any t > k/2).
 *
 * <ul>
 *   <li>SecAgg (complete graph, k = n - 1): at most floor(gamma n) parties collude, so {@code t =
 *       floor((k + floor(gamma n)) / 2) + 1}; it must leave room for floor(delta n) dropouts. No
 *       cut of the complete graph leaves two pieces.
 *   <li>SecAgg+ (random Harary graph, sampled independently of who colludes; Bell et al. 2020):
 *       each party is modelled as colluding independently with probability gamma, so c is
 *       Binomial(k, gamma) and H is Binomial(k/2, 1 - gamma). The smallest even k, and for
 *       it the smallest t, such that n P[Bin(k, gamma) >= 2t - k] <= 2^-40 and n P[Bin(k/2, 1 -
 *       gamma) <= min(k - t + 1, n - m)] <= 2^-40 (union bounds over parties and gap positions:
 *       no party anywhere can be unmasked and no piece summed, except with negligible
 *       probability), and n P[Bin(k, 1 - delta) < t] <= 1e-3 (every party keeps t live neighbours,
 *       so a session aborts rarely). When no k below n - 1 works, the complete graph.
 * </ul>
 *
 * With gamma = 0 (the server alone is the adversary) and no floor on contributors that rules out
 * the cut, the conservative bound asks for t = k/2 + 2 rather than a bare majority. Tolerating colluders costs dropout tolerance: t must exceed (1 + gamma) k /
 * 2, so for gamma = 1/2 no parameters tolerate 25 % dropouts or more.
 */
public final class SecAggSizing {
  /** Probability that some party can be unmasked by colluders (union over parties). */
  public static final double SECURITY = 0x1.0p-40;
  /** Probability that some party has fewer than t live neighbours, under independent dropouts. */
  public static final double ABORT = 1e-3;

  private SecAggSizing() {}

  /** The choice and why. */
  public record Choice(boolean complete, int neighbours, int threshold) {}

  /**
   * The parameters for {@code parties} parties of which at least {@code minSurvivors} must
   * contribute.
   *
   * @throws IllegalArgumentException if no parameters meet the bounds, naming what to change
   */
  public static Choice choose(boolean plus, int parties, double colluding, double dropout, int minSurvivors) {
    Checks.require(parties >= 2, "secure aggregation needs at least 2 parties. Provided value: " + parties);
    Checks.require(colluding >= 0 && colluding < 1, "colluding fraction must be in [0, 1). Provided value: " + colluding);
    Checks.require(dropout >= 0 && dropout < 1, "dropout tolerance must be in [0, 1). Provided value: " + dropout);
    Checks.require(minSurvivors >= 1 && minSurvivors <= parties,
        "min survivors must be in [1, " + parties + "]. Provided value: " + minSurvivors);
    if (plus) {
      for (int k = 2; k < parties - 1; k += 2) {
        Integer t = thresholdFor(k, parties, colluding, dropout, parties - minSurvivors);
        if (t != null) {
          return new Choice(false, k, t);
        }
      }
    }
    int k = parties - 1;
    int c = (int) Math.floor(colluding * parties + 1e-9);
    int t = (k + c) / 2 + 1;
    int drops = (int) Math.floor(dropout * parties + 1e-9);
    if (t > k || k - drops < t) {
      throw new IllegalArgumentException(String.format(
          "secure aggregation among %d parties cannot tolerate %.0f %% dropouts when %.0f %% of the parties may "
              + "collude with the server: each party needs a threshold above %.0f %% of its neighbours. Tolerate "
              + "fewer dropouts (raise --min-contributors or lower --max-dropout), or raise --honest-fraction "
              + "(or set --colluding-fraction)",
          parties, 100 * dropout, 100 * colluding, 50 * (1 + colluding)));
    }
    return new Choice(true, k, t);
  }

  /**
   * The smallest secure threshold for k neighbours (k even) if it also keeps aborts rare, else null.
   *
   * @param declarable how many parties a malicious server may declare dropped (n - m)
   */
  static Integer thresholdFor(int k, int n, double gamma, double delta, int declarable) {
    double[] colluders = binomialPmf(k, gamma);
    double[] honestInGap = binomialPmf(k / 2, 1 - gamma);
    double[] atMostH = new double[k / 2 + 1]; // atMostH[h] = P[H <= h]
    for (int h = 0; h <= k / 2; h++) {
      atMostH[h] = (h > 0 ? atMostH[h - 1] : 0) + honestInGap[h];
    }
    double[] alive = binomialPmf(k, 1 - delta);
    // tailC[m] = P[C >= m]
    double[] tailC = new double[k + 2];
    for (int m = k; m >= 0; m--) {
      tailC[m] = tailC[m + 1] + colluders[m];
    }
    double[] belowA = new double[k + 2]; // belowA[t] = P[A < t]
    for (int t = 1; t <= k + 1; t++) {
      belowA[t] = belowA[t - 1] + alive[t - 1];
    }
    for (int t = k / 2 + 1; t <= k; t++) {
      int m = 2 * t - k;
      double unmask = m <= 0 ? 1 : tailC[Math.min(m, k + 1)];
      int cuttable = Math.min(k - t + 1, declarable);
      double cut = cuttable < 0 ? 0 : atMostH[Math.min(cuttable, k / 2)];
      if (n * unmask <= SECURITY && n * cut <= SECURITY) {
        return n * belowA[t] <= ABORT ? t : null;
      }
    }
    return null;
  }

  /** The Binomial(k, p) probabilities, by the ratio recurrence in log space. */
  static double[] binomialPmf(int k, double p) {
    double[] pmf = new double[k + 1];
    if (p <= 0) {
      pmf[0] = 1;
      return pmf;
    }
    if (p >= 1) {
      pmf[k] = 1;
      return pmf;
    }
    double log = k * Math.log1p(-p);
    double ratio = Math.log(p) - Math.log1p(-p);
    for (int j = 0; j <= k; j++) {
      pmf[j] = Math.exp(log);
      if (j < k) {
        log += Math.log((double) (k - j) / (j + 1)) + ratio;
      }
    }
    return pmf;
  }
}
