package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;

/**
 * {@code event} run on a Poisson sample of the data: each record is included independently with
 * probability {@code samplingProbability} (DP-SGD's batches).
 *
 * @param samplingProbability q in (0, 1]
 * @param event the mechanism run on the sample
 * @param neighbours the neighbour relation the guarantee is stated for: add-or-remove one record,
 *     or replace one record (the cross-silo paper's pair of mixtures)
 */
public record PoissonSampledDpEvent(double samplingProbability, DpEvent event, NeighbourRelation neighbours)
    implements DpEvent {
  public PoissonSampledDpEvent {
    Checks.require(samplingProbability > 0 && samplingProbability <= 1,
        "sampling probability must be in (0, 1]. Provided value: " + samplingProbability);
    Checks.notNull("event", event);
    Checks.notNull("neighbour relation", neighbours);
  }

  /** Add-or-remove neighbours, the usual relation for DP-SGD. */
  public PoissonSampledDpEvent(double samplingProbability, DpEvent event) {
    this(samplingProbability, event, NeighbourRelation.ADD_OR_REMOVE_ONE);
  }

  @Override
  public String describe() {
    return "PoissonSampled(q=" + samplingProbability + ", " + event.describe()
        + (neighbours == NeighbourRelation.REPLACE_ONE ? ", replace-one" : "") + ")";
  }
}
