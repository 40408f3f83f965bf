package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.SkellamMixtureRdp.Subsampling;
import dev.helmet.privacy.event.SkellamMixtureDpEvent;

/**
 * Privacy of federated training with the Skellam mixture mechanism (Bao et al., PVLDB 2022,
 * Theorem 6): T rounds, each Poisson-sampling clients with probability q and releasing the sum of
 * their mixture-clipped, stochastically rounded vectors plus Skellam noise of total parameter
 * lambda; (eps, delta) by the improved RDP conversion (Canonne, Kamath, Steinke 2020, Prop. 12;
 * the paper's Lemma 3), best over the integer orders 2 to {@link #MAX_ORDER}.
 *
 * <p>The L-infinity clip Delta is not an input: as in the paper, each order a comes with the
 * largest integer Delta valid there ({@link SkellamMixtureRdp#integerDeltaInf}); the result names
 * the best order and its Delta, and a release that clips to that Delta is covered by the result
 * (its RDP at that order is exactly what was composed). Orders where no Delta >= 1 is valid are
 * skipped; if none is left, the parameters are outside the theorem and are refused.
 */
public final class SmmAccounting {
  /** The largest order tried (the paper tries 2 to 100). */
  public static final int MAX_ORDER = 256;

  /**
   * Public parameters of a training run.
   *
   * @param lambda total Skellam parameter of the noise in one round's sum (expected clients per
   *     round times each client's lambda)
   * @param c the mixture clip bound
   * @param samplingRate q, each client's probability of taking part in a round (1: no sampling)
   * @param steps T, the number of rounds
   * @param delta the target delta
   * @param subsampling how a sampled round is bounded ({@link Subsampling#GENERAL} unless
   *     reproducing the paper)
   */
  public record Params(double lambda, double c, double samplingRate, int steps, double delta,
      Subsampling subsampling) {
    public Params {
      Checks.require(lambda > 0 && Double.isFinite(lambda), "Skellam lambda must be positive. Provided value: "
          + lambda);
      Checks.require(c > 0 && Double.isFinite(c), "mixture clip bound c must be positive. Provided value: " + c);
      Checks.require(samplingRate > 0 && samplingRate <= 1, "sampling rate must be in (0, 1]. Provided value: "
          + samplingRate);
      Checks.positive("steps", steps);
      Checks.openUnit("delta", delta);
      Checks.notNull("subsampling", subsampling);
    }

    /** The same run with another total lambda. */
    Params withLambda(double l) {
      return new Params(l, c, samplingRate, steps, delta, subsampling);
    }
  }

  /**
   * The guarantee at the best order.
   *
   * @param epsilon the smallest eps over the orders tried (rounded up)
   * @param order the order that gives it
   * @param deltaInfBound the supremum of valid L-infinity bounds at that order (the paper's figure)
   * @param deltaInf the integer L-infinity clip that the release must use
   * @param event one round as a DP event (for a ledger)
   */
  public record Result(double epsilon, int order, double deltaInfBound, int deltaInf, SkellamMixtureDpEvent event) {}

  private SmmAccounting() {}

  /**
   * The (eps, delta) guarantee.
   *
   * @throws IllegalArgumentException naming the conditions when no order satisfies them with an
   *     L-infinity bound of at least 1 (too little noise for the theorem)
   */
  public static Result epsilon(Params p) {
    Result best = null;
    for (int a = 2; a <= MAX_ORDER; a++) {
      int d = SkellamMixtureRdp.integerDeltaInf(a, p.lambda());
      if (d < 1) {
        break; // the bound only shrinks with the order
      }
      SkellamMixtureDpEvent e = new SkellamMixtureDpEvent(p.lambda(), p.c(), d);
      double rdp = p.steps() * SkellamMixtureRdp.subsampledRdp(e, p.samplingRate(), a, p.subsampling());
      double eps = rdp + Math.log((a - 1.0) / a) - (Math.log(p.delta()) + Math.log(a)) / (a - 1);
      if (best == null || eps < best.epsilon()) {
        best = new Result(Math.max(0, eps), a, SkellamMixtureRdp.deltaInfBound(a, p.lambda()), d, e);
      }
    }
    if (best == null) {
      throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
          "the Skellam mixture mechanism's RDP bound (Bao et al., Theorem 5) does not hold for total lambda = %.6g: "
              + "its conditions alpha < 2 lambda/Delta + 1 and 10.9 alpha^2 - 1.8 alpha - 9.1 < 4 lambda/Delta^2 "
              + "admit no L-infinity bound Delta >= 1 at any order >= 2 (need a total lambda, clients x lambda, of at least about 7.7: "
              + "more noise or more clients per round)", p.lambda()));
    }
    return best;
  }

  /**
   * The smallest total lambda (to a relative 1e-6, rounded up) for which the run is (eps, delta)-DP:
   * bisection, eps being decreasing in lambda.
   *
   * @throws IllegalArgumentException if no lambda up to 1e15 reaches the target
   */
  public static Result calibrate(Params p, double targetEpsilon) {
    Checks.require(targetEpsilon > 0 && Double.isFinite(targetEpsilon), "target eps must be positive. Provided value: "
        + targetEpsilon);
    double lo = 1;
    double hi = 16;
    while (!meets(p.withLambda(hi), targetEpsilon)) {
      lo = hi;
      hi *= 4;
      if (hi > 1e15) {
        // Noise alone cannot take eps to 0: the conversion's log(1/delta)/(a - 1) over orders up to
        // 256 (and, for the general subsampling bound, its factor 3) leave a floor.
        throw new IllegalArgumentException("no Skellam lambda up to 1e15 gives eps = " + targetEpsilon
            + " for these parameters: however much noise is added, eps stays at least "
            + String.format(java.util.Locale.ROOT, "%.4g", epsilon(p.withLambda(hi)).epsilon())
            + " at this sampling rate, number of rounds and delta");
      }
    }
    while (hi - lo > 1e-6 * hi) {
      double mid = 0.5 * (lo + hi);
      if (meets(p.withLambda(mid), targetEpsilon)) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return epsilon(p.withLambda(hi));
  }

  private static boolean meets(Params p, double target) {
    try {
      return epsilon(p).epsilon() <= target;
    } catch (IllegalArgumentException e) {
      return false; // too little noise for the theorem's conditions
    }
  }
}
