package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;

/** Consistency checks shared by the events that take more than one sensitivity. */
final class Sensitivities {
  private Sensitivities() {}

  /**
   * Refuses an L1 sensitivity below the L2 one. Every vector has ||x||_2 <= ||x||_1, so such a pair
   * is almost surely two arguments swapped; accounting it as given would use the smaller figure as
   * the L1 bound and could under-report the privacy loss.
   */
  static void requireOrdered(double l1Sensitivity, double l2Sensitivity) {
    Checks.require(l1Sensitivity >= l2Sensitivity, "L1 sensitivity " + l1Sensitivity + " is below L2 sensitivity "
        + l2Sensitivity + ": no vector's L1 norm is below its L2 norm. Were the two swapped?");
  }
}
