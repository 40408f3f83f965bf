package dev.helmet.privacy.calculator;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.NeighbourRelation;

/**
 * The shape of the releases of the distributed mechanisms ({@code smm}, {@code cpsgd}): T rounds,
 * each Poisson-sampling clients at rate q, for add-remove neighbours (one client more or less).
 * Without --sampling-rate and --steps, one unsampled round.
 */
final class ClientRounds {
  private ClientRounds() {}

  /** The checked input, with q = 1 and T = 1 when neither was given. */
  static CalculatorInput check(String accountant, CalculatorInput in, NeighbourRelation relation) {
    Checks.require(in.compositions() == 1 && in.groupSize() == 1, "--compositions and --group-size do not apply to "
        + "--accountant " + accountant + " (give --steps, with --sampling-rate 1 for unsampled releases)");
    Checks.require(relation == NeighbourRelation.ADD_OR_REMOVE_ONE, "--accountant " + accountant + " bounds "
        + "add-remove neighbours (one client more or less) only");
    if (in.samplingRate() == null && in.steps() == null) {
      return in.withSampling(1.0, 1);
    }
    if (in.samplingRate() == null) {
      throw new IllegalArgumentException("--steps goes with --sampling-rate; for rounds without sampling give "
          + "--sampling-rate 1");
    }
    in.requireSampling();
    return in;
  }

  /** Who the distributed mechanisms' eps protects against. */
  static final String AGAINST = "anyone who sees the released sums";
  /** Their neighbouring relation in words. */
  static final String RELATION = "add or remove one client";
}
