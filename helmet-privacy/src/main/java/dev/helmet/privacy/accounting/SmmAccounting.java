package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.accounting.SkellamMixtureRdp.Subsampling;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.event.SkellamMixtureDpEvent;
import java.util.function.Supplier;

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
    public Params withLambda(double l) {
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
    Result best = best(p);
    if (best == null) {
      throw new IllegalArgumentException(noValidOrder(p.lambda()));
    }
    return best;
  }

  /** The best order and its clip, or null when no order admits an L-infinity bound of at least 1. */
  private static Result best(Params p) {
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
    return best;
  }

  /** The refusal of a total lambda too small for Theorem 5 at every order. */
  public static String noValidOrder(double lambda) {
    return String.format(java.util.Locale.ROOT,
        "the Skellam mixture mechanism's RDP bound (Bao et al., Theorem 5) does not hold for total lambda = %.6g: "
            + "its conditions alpha < 2 lambda/Delta + 1 and 10.9 alpha^2 - 1.8 alpha - 9.1 < 4 lambda/Delta^2 "
            + "admit no L-infinity bound Delta >= 1 at any order >= 2 (need a total lambda, clients x lambda, of at "
            + "least about 7.7: more noise or more clients per round)", lambda);
  }

  /**
   * The run as a DP event: T rounds, each Poisson-sampling clients at rate q (1: all) and releasing
   * the mechanism with the clip of {@link #epsilon}'s best order. Accounted by {@link #accountant},
   * it gives exactly {@link #epsilon}'s eps: tau does not depend on the clip, which only decides at
   * which orders Theorem 5 holds, and every order valid for the chosen clip was among those tried.
   * When no order admits a clip of at least 1, the event has clip 1 and is valid at no order: its
   * eps is infinite (too little noise).
   */
  public static DpEvent event(Params p) {
    Result best = best(p);
    SkellamMixtureDpEvent round = best != null ? best.event() : new SkellamMixtureDpEvent(p.lambda(), p.c(), 1);
    return new SelfComposedDpEvent(new PoissonSampledDpEvent(p.samplingRate(), round), p.steps());
  }

  /**
   * Fresh accountants for {@link #event}: RDP over the integer orders 2 to {@link #MAX_ORDER} (the
   * orders {@link #epsilon} tries), with the given subsampling bound.
   */
  public static Supplier<PrivacyAccountant> accountant(Subsampling subsampling) {
    Checks.notNull("subsampling", subsampling);
    return () -> new RdpAccountant(ORDERS, subsampling);
  }

  /** The largest total lambda the calibration tries, 2^50 (about 1.1e15). */
  public static final double MAX_LAMBDA = 0x1p50;

  /**
   * The calibration's search over the total lambda of {@code p}'s run (its own lambda is ignored):
   * up to {@link #MAX_LAMBDA}, to a relative 1e-6; a target no lambda reaches is refused naming the
   * floor eps stays above.
   */
  public static Calibration.Search search(Params p) {
    return new Calibration.Search(l -> event(p.withLambda(l)), 1e-6, MAX_LAMBDA,
        // Noise alone cannot take eps to 0: the conversion's log(1/delta)/(a - 1) over orders up to
        // 256 (and, for the general subsampling bound, its factor 3) leave a floor.
        target -> "no Skellam lambda up to 1e15 gives eps = " + target + " for these parameters: however much noise "
            + "is added, eps stays at least " + String.format(java.util.Locale.ROOT, "%.4g",
                epsilon(p.withLambda(MAX_LAMBDA)).epsilon()) + " at this sampling rate, number of rounds and delta");
  }

  /**
   * The smallest total lambda (to a relative 1e-6, rounded up) for which the run is (eps, delta)-DP:
   * {@link Calibration#smallest} over {@link #search}, eps being decreasing in lambda.
   *
   * @throws IllegalArgumentException if no lambda up to 2^50 reaches the target
   */
  public static Result calibrate(Params p, double targetEpsilon) {
    Checks.require(targetEpsilon > 0 && Double.isFinite(targetEpsilon), "target eps must be positive. Provided value: "
        + targetEpsilon);
    double lambda = Calibration.smallest(search(p), accountant(p.subsampling()), targetEpsilon, p.delta());
    return epsilon(p.withLambda(lambda));
  }

  private static final double[] ORDERS = java.util.stream.IntStream.rangeClosed(2, MAX_ORDER)
      .asDoubleStream().toArray();
}
