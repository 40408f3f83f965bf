package dev.helmet.experiments.sum;

import java.util.List;

/** The distributed baselines of the sum experiment besides SMM (filled in as they are built). */
final class Baselines {
  private Baselines() {}

  static List<SumMechanism> all() {
    return List.of();
  }
}
