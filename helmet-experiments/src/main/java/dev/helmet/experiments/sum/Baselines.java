package dev.helmet.experiments.sum;

import java.util.List;

/**
 * The distributed baselines of the sum experiment besides SMM: the distributed discrete Gaussian,
 * the distributed Skellam mechanism and cpSGD's binomial mechanism (accounted in (eps, delta) terms:
 * it has no Renyi curve).
 */
final class Baselines {
  private Baselines() {}

  static List<SumMechanism> all() {
    return List.of(RingBaselineSum.ddg(), RingBaselineSum.skellam(), RingBaselineSum.cpsgd());
  }
}
