package dev.helmet.secagg.protocol;

import dev.helmet.core.util.Checks;

/**
 * Chooses the neighbourhood size k and the Shamir threshold t of SecAgg/SecAgg+ for n parties
 * when a fraction gamma of them may collude with the server and a fraction delta may drop out.
 *
 * <p>The server can unmask party u's input only if it recovers both u's self-mask seed and u's
 * mask key. Colluding neighbours hold shares of both; honest neighbours reveal at most one kind,
 * and the signed consistency check stops the server from showing two groups of honest neighbours
 * different survivor sets unless each group, with the colluders' signatures, reaches t. With c
 * colluding neighbours the attack needs two disjoint groups of honest neighbours, each completing
 * t with the c colluders: {@code 2 (t - c) <= k - c}, i.e. {@code c >= 2t - k}. So:
 *
 * <ul>
 *   <li>SecAgg (complete graph, k = n - 1): at most floor(gamma n) parties collude, so {@code t =
 *       floor((k + floor(gamma n)) / 2) + 1}; it must leave room for floor(delta n) dropouts.
 *   <li>SecAgg+ (random Harary graph, sampled independently of who colludes; Bell et al. 2020): c
 *       is binomial(k, gamma). The smallest even k, and for it the smallest t, such that n
 *       P[Bin(k, gamma) >= 2t - k] <= 2^-40 (no party anywhere can be unmasked, except with
 *       negligible probability) and n P[Bin(k, 1 - delta) < t] <= 1e-3 (every party keeps t live
 *       neighbours, so a session aborts rarely). When no k below n - 1 works, the complete graph.
 * </ul>
 *
 * With gamma = 0 (the server alone is the adversary) both reduce to a strict majority, t = k/2 +
 * 1. Tolerating colluders costs dropout tolerance: t must exceed (1 + gamma) k / 2, so for gamma =
 * 1/2 no parameters tolerate 25 % dropouts or more.
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
   * The parameters for {@code parties} parties.
   *
   * @throws IllegalArgumentException if no parameters meet both bounds, naming what to change
   */
  public static Choice choose(boolean plus, int parties, double colluding, double dropout) {
    Checks.require(parties >= 2, "secure aggregation needs at least 2 parties. Provided value: " + parties);
    Checks.require(colluding >= 0 && colluding < 1, "colluding fraction must be in [0, 1). Provided value: " + colluding);
    Checks.require(dropout >= 0 && dropout < 1, "dropout tolerance must be in [0, 1). Provided value: " + dropout);
    if (plus) {
      for (int k = 2; k < parties - 1; k += 2) {
        Integer t = thresholdFor(k, parties, colluding, dropout);
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
              + "collude with the server: each party needs a threshold above %.0f %% of its neighbours. Lower the "
              + "dropout tolerance (--max-dropout), or raise --honest-fraction (or set --colluding-fraction)",
          parties, 100 * dropout, 100 * colluding, 50 * (1 + colluding)));
    }
    return new Choice(true, k, t);
  }

  /** The smallest secure threshold for k neighbours if it also keeps aborts rare, else null. */
  static Integer thresholdFor(int k, int n, double gamma, double delta) {
    double[] colluders = binomialPmf(k, gamma);
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
      double unsafe = m <= 0 ? 1 : tailC[Math.min(m, k + 1)];
      if (n * unsafe <= SECURITY) {
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
