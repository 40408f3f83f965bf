package dev.helmet.protocols.audit;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.privacy.Protection;

/**
 * The party-level pair, for user-level guarantees (one party's whole data set replaced): every
 * record of party 0 replaced by its mirror image {@code -x} with its label. The intercept is not
 * mirrored, so the map {@code (b, w) -> (b, -w)} takes every model's loss on D's local data to its
 * loss on the mirrored data and keeps its norm (so its penalty and the radius-R ball): a linear
 * local model that minimises at {@code (b, w)} on D minimises at {@code (b, -w)} on D', and moves
 * by {@code 2 |w|}, which approaches the user-level sensitivity {@code 2R} as the optimum nears
 * the ball's boundary with a small intercept.
 *
 * <p>Of the registered algorithms only helmet offers user-level protection (its local models are
 * confined to the radius-R ball, so a party's whole data set moves its model by at most 2R); dp-fl,
 * wd-dp, smm and cross-silo refuse any unit but the record when configured.
 */
public final class PartyCanary implements Canary {
  @Override
  public String id() {
    return "party";
  }

  @Override
  public String description() {
    return "every record of party 0 replaced by its mirror image -x with its label (replace one party's whole "
        + "data set, user-level)";
  }

  @Override
  public String notApplicable(AlgorithmSpec spec) {
    if (spec.common().protection().unit() != Protection.Unit.USER) {
      return "its pair replaces one party's whole data set (user-level neighbours); the guarantee protects a "
          + spec.common().protection().describe() + " under " + spec.neighbours().id() + " neighbours";
    }
    return GradientCanary.classification(spec);
  }

  @Override
  public NeighbourPair pair(AlgorithmSpec spec, Dataset data, Partition partition) {
    int[] rows = partition.indices(0);
    float[][] mirrors = new float[rows.length][data.dimension()];
    int[] labels = new int[rows.length];
    for (int k = 0; k < rows.length; k++) {
      for (int j = 0; j < data.dimension(); j++) {
        mirrors[k][j] = -data.feature(rows[k], j);
      }
      labels[k] = data.label(rows[k]);
    }
    NeighbourPair p = NeighbourPair.replaceParty(data, partition, 0, mirrors, labels);
    return new NeighbourPair(p.data(), p.neighbour(), p.partition(), "all " + rows.length + " rows of party 0 "
        + "replaced by their mirror images (one party's whole data set)");
  }
}
