package dev.helmet.protocols.audit;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.protocols.algorithm.AlgorithmSpec;

/**
 * The add-or-remove pair: D' = D plus the gradient canary's {@link DiracRecord} in party 0, last
 * in its rows. Under add-or-remove neighbours the difference of a round's sum of clipped gradients
 * is the canary's own clipped gradient, of norm exactly C whenever it is sampled, which is the
 * sensitivity the noise is sized for: the tight case of DP-SGD's analysis (Nasr et al. 2021,
 * section 5; Nasr et al. 2023), for the algorithms that accept the relation (dp-fl with {@code
 * neighbours: add-remove}, smm always).
 *
 * <p>D' also has one record more. {@link ReleaseAudit} derives both sides' plans from one public
 * bound on the sizes (each party's larger size), as the runners derive theirs from configured or
 * claimed sizes; a release that leaked the private count through anything else would show it to
 * the projection test.
 */
public final class AddOneCanary implements Canary {
  @Override
  public String id() {
    return "add-one";
  }

  @Override
  public String description() {
    return "a record of one feature at full norm c and a rare label added to party 0, whose clipped gradient is "
        + "the whole difference of every round it is sampled in (add-or-remove)";
  }

  @Override
  public String notApplicable(AlgorithmSpec spec) {
    if (spec.neighbours() != NeighbourRelation.ADD_OR_REMOVE_ONE) {
      return "its pair adds a record; the guarantee is under " + spec.neighbours().id() + " neighbours, where D "
          + "and D' have the same size";
    }
    return GradientCanary.classification(spec);
  }

  @Override
  public NeighbourPair pair(AlgorithmSpec spec, Dataset data, Partition partition) {
    DiracRecord canary = DiracRecord.of(spec, data, -1);
    NeighbourPair p = NeighbourPair.addOne(data, partition, 0, canary.features(), canary.label());
    return new NeighbourPair(p.data(), p.neighbour(), p.partition(), p.neighbourPartition(), "a gradient canary ("
        + canary.describe() + ") added to party 0 as row " + data.size());
  }
}
