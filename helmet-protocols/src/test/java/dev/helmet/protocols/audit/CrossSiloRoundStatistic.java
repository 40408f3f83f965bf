package dev.helmet.protocols.audit;

import dev.helmet.core.util.Checks;
import dev.helmet.protocols.simulation.Simulation;
import java.util.List;

/**
 * The Neyman-Pearson test of the fixed-size-batch pair, step by step, for a release scored as every
 * round's model (the start, then the model after each of {@code rounds} steps, one block each, as
 * {@code CrossSiloAuditVariants.everyRound} releases it).
 *
 * <p>Each step's model change, projected on a direction w, is z_t = m0 + N(0, s^2) under D and,
 * under D', z_t + a with probability q (the canary's record drawn) and z_t otherwise. The
 * likelihood ratio of the run is the product over the steps of (1 - q) + q exp((a (z_t - m0) -
 * a^2 / 2) / s^2); its logarithm is the score. Everything but q is fitted from the pilot pairs
 * (never scored): w and a from their differences (D' minus D with the same noise, so only the
 * steps that drew the record differ, by a w), m0 and s from the pilots on D. q is the public rate
 * b / n. For the pair itself this is the most powerful test there is; a final-model test sees only
 * the sum of the z_t, which does not tell this pair from the Poisson one.
 */
final class CrossSiloRoundStatistic implements Statistic {
  private final int rounds;
  private final double q;

  /**
   * @param rounds the steps of the release (its parameters hold rounds + 1 blocks)
   * @param q the chance a step draws the canary's record, b / n
   */
  CrossSiloRoundStatistic(int rounds, double q) {
    this.rounds = Checks.positive("rounds", rounds);
    Checks.require(q > 0 && q < 1, "q must be in (0, 1). Provided value: " + q);
    this.q = q;
  }

  @Override
  public String id() {
    return "fixed-batch-likelihood-ratio";
  }

  /** Step t's change (t = 0 .. rounds - 1) of a release's models. */
  private double[][] steps(Simulation.Result r) {
    double[] all = r.model().parameters();
    Checks.require(all.length % (rounds + 1) == 0, "a release of " + all.length + " values is not " + (rounds + 1)
        + " models");
    int n = all.length / (rounds + 1);
    double[][] out = new double[rounds][n];
    for (int t = 0; t < rounds; t++) {
      for (int i = 0; i < n; i++) {
        out[t][i] = all[(t + 1) * n + i] - all[t * n + i];
      }
    }
    return out;
  }

  @Override
  public Score fit(List<Simulation.Result> onD, List<Simulation.Result> onNeighbour) {
    Checks.require(!onD.isEmpty() && onD.size() == onNeighbour.size(), "the test needs pilot pairs, got "
        + onD.size() + " and " + onNeighbour.size());
    int n = onD.get(0).model().parameters().length / (rounds + 1);
    double[] w = new double[n];
    for (int p = 0; p < onD.size(); p++) {
      double[][] a = steps(onD.get(p));
      double[][] b = steps(onNeighbour.get(p));
      for (int t = 0; t < rounds; t++) {
        for (int i = 0; i < n; i++) {
          w[i] += b[t][i] - a[t][i];
        }
      }
    }
    double norm = Math.sqrt(dot(w, w));
    Checks.require(norm > 0, "no pilot pair differs: add pilots");
    for (int i = 0; i < n; i++) {
      w[i] /= norm;
    }
    // a: the mean shift of the pilot steps that drew the record (those far from 0; the rest differ
    // by rounding only).
    double largest = 0;
    double[][] shifts = new double[onD.size()][];
    for (int p = 0; p < onD.size(); p++) {
      double[][] a = steps(onD.get(p));
      double[][] b = steps(onNeighbour.get(p));
      shifts[p] = new double[rounds];
      for (int t = 0; t < rounds; t++) {
        shifts[p][t] = dot(b[t], w) - dot(a[t], w);
        largest = Math.max(largest, shifts[p][t]);
      }
    }
    double sum = 0;
    int drawn = 0;
    for (double[] s : shifts) {
      for (double v : s) {
        if (v > largest / 2) {
          sum += v;
          drawn++;
        }
      }
    }
    double a = sum / drawn;
    double m = 0;
    double m2 = 0;
    int count = 0;
    for (Simulation.Result r : onD) {
      for (double[] step : steps(r)) {
        double z = dot(step, w);
        m += z;
        m2 += z * z;
        count++;
      }
    }
    double m0 = m / count;
    double s2 = (m2 - count * m0 * m0) / (count - 1);
    Checks.require(s2 > 0, "the pilots on D show no noise");
    // Without a draw the pilots differ by the ring's rounding only, orders of magnitude below the noise.
    Checks.require(a > 1e-3 * Math.sqrt(s2), "no pilot pair drew the canary's record (the largest difference is "
        + a / Math.sqrt(s2) + " noise standard deviations): add pilots");
    double logStay = Math.log1p(-q);
    double logDraw = Math.log(q);
    return r -> {
      double score = 0;
      for (double[] step : steps(r)) {
        double z = dot(step, w);
        double l = logDraw + (a * (z - m0) - a * a / 2) / s2;
        double hi = Math.max(logStay, l);
        score += hi + Math.log1p(Math.exp(Math.min(logStay, l) - hi));
      }
      return score;
    };
  }

  private static double dot(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }
}
