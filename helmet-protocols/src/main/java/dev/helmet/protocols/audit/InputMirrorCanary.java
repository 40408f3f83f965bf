package dev.helmet.protocols.audit;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.protocols.algorithm.AlgorithmSpec;

/**
 * The input-space canary: party 0's first record replaced by its mirror image {@code -x}, with the
 * same label (replace-one). Normalising or clipping keeps its norm, and for a linear model whose
 * margins stay in the loss's linear part every per-class gradient of {@code -x} is the negation of
 * {@code x}'s, so the party's contribution moves by the full replace-one sensitivity along {@code x}.
 */
public final class InputMirrorCanary implements Canary {
  @Override
  public String id() {
    return "input-mirror";
  }

  @Override
  public String description() {
    return "party 0's first record replaced by its mirror image -x with its label (replace-one)";
  }

  @Override
  public String notApplicable(AlgorithmSpec spec) {
    return spec.neighbours() == NeighbourRelation.REPLACE_ONE ? null
        : "its pair replaces a record; the guarantee is under " + spec.neighbours().id() + " neighbours";
  }

  @Override
  public NeighbourPair pair(AlgorithmSpec spec, Dataset data, Partition partition) {
    int row = partition.indices(0)[0];
    float[] canary = new float[data.dimension()];
    for (int j = 0; j < canary.length; j++) {
      canary[j] = -data.feature(row, j);
    }
    return NeighbourPair.replaceOne(data, partition, row, canary, data.label(row));
  }
}
