package dev.helmet.protocols.audit;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.util.Checks;

/**
 * Two data sets that differ as the audited guarantee's neighbouring relation allows, split over the
 * parties alike.
 *
 * @param data D
 * @param neighbour D'
 * @param partition the split of D
 * @param neighbourPartition the split of D': the same parties, differing only where D and D' do (the
 *     same row indices under replace-one; one party one row more or fewer under add-or-remove)
 * @param description what the pair is, for reports ("row 0 of party 0 replaced by an input-space canary")
 */
public record NeighbourPair(Dataset data, Dataset neighbour, Partition partition, Partition neighbourPartition,
    String description) {
  public NeighbourPair {
    Checks.require(data.dimension() == neighbour.dimension(), "neighbouring data sets have the same features: "
        + data.dimension() + " against " + neighbour.dimension());
    Checks.require(partition.count() == neighbourPartition.count(), "neighbouring data sets are split over the "
        + "same parties: " + partition.count() + " against " + neighbourPartition.count());
    Checks.require(partition != neighbourPartition || data.size() == neighbour.size(),
        "one split serves both data sets only when they have the same size: " + data.size() + " against "
            + neighbour.size());
  }

  /** A pair split alike (replace-one: the same rows, the same parties). */
  public NeighbourPair(Dataset data, Dataset neighbour, Partition partition, String description) {
    this(data, neighbour, partition, partition, description);
  }

  /**
   * D' = D with row {@code row} replaced by a canary record (replace-one neighbours).
   *
   * @param features the canary's features (any size: preprocessing clips or normalises them as for any record)
   * @param label its label
   */
  public static NeighbourPair replaceOne(Dataset data, Partition partition, int row, float[] features, int label) {
    Checks.require(row >= 0 && row < data.size(), "row " + row + " is not in the data (" + data.size() + " rows)");
    Checks.require(features.length == data.dimension(), "the canary has " + features.length
        + " features; the data " + data.dimension());
    Checks.require(label >= 0 && label < data.numClasses(), "the canary's label " + label + " is not a class");
    int d = data.dimension();
    float[] values = new float[data.size() * d];
    for (int i = 0; i < data.size(); i++) {
      data.copyRow(i, values, i * d);
    }
    System.arraycopy(features, 0, values, row * d, d);
    int[] labels = data.labels().clone();
    labels[row] = label;
    Dataset neighbour = new Dataset(data.name() + "+canary", values, labels, d, data.labelSet(), null);
    return new NeighbourPair(data, neighbour, partition, "row " + row + " replaced by a canary of label " + label);
  }
}
