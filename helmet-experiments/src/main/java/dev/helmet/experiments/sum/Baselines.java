package dev.helmet.experiments.sum;

import java.util.List;

/**
 * The distributed baselines of the sum experiment besides SMM. cpSGD (binomial noise) is not among
 * them: a shifted binomial puts mass where the unshifted one has none, so it has no RDP curve at
 * any order, and its (eps, delta) bound needs conditions and constants this project has not been
 * able to verify (see docs/smm.md).
 */
final class Baselines {
  private Baselines() {}

  static List<SumMechanism> all() {
    return List.of(RingBaselineSum.ddg(), RingBaselineSum.skellam());
  }
}
