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

  /**
   * D' = D with every row of party {@code party} replaced by a record of its own (user-level
   * neighbours: one party's whole data set replaced), the other parties' rows as they are.
   *
   * @param features the replacement of each of the party's rows, in the order of {@code
   *     partition.indices(party)}
   * @param labels their labels, in the same order
   */
  public static NeighbourPair replaceParty(Dataset data, Partition partition, int party, float[][] features,
      int[] labels) {
    Checks.require(party >= 0 && party < partition.count(), "party " + party + " is not one of the "
        + partition.count() + " parties");
    int[] rows = partition.indices(party);
    Checks.require(features.length == rows.length && labels.length == rows.length, "party " + party + " holds "
        + rows.length + " rows; " + features.length + " replacements and " + labels.length + " labels were given");
    int d = data.dimension();
    float[] values = copy(data, data.size());
    int[] y = data.labels().clone();
    for (int k = 0; k < rows.length; k++) {
      check(data, features[k], labels[k]);
      System.arraycopy(features[k], 0, values, rows[k] * d, d);
      y[rows[k]] = labels[k];
    }
    Dataset neighbour = new Dataset(data.name() + "+party-canary", values, y, d, data.labelSet(), null);
    return new NeighbourPair(data, neighbour, partition, "all " + rows.length + " rows of party " + party
        + " replaced by canaries");
  }

  /**
   * D' = D plus one canary record held by party {@code party} (add-or-remove neighbours): D''s rows
   * are D's with the canary appended as row {@code data.size()}, and D''s split is D''s with that
   * row last in the party's list, so every other party, and the party's other rows in their order,
   * are the same on both sides (a sampler that walks a party's rows in order then draws alike for
   * all of them).
   */
  public static NeighbourPair addOne(Dataset data, Partition partition, int party, float[] features, int label) {
    Checks.require(party >= 0 && party < partition.count(), "party " + party + " is not one of the "
        + partition.count() + " parties");
    check(data, features, label);
    int d = data.dimension();
    int n = data.size();
    float[] values = copy(data, n + 1);
    System.arraycopy(features, 0, values, n * d, d);
    int[] y = java.util.Arrays.copyOf(data.labels(), n + 1);
    y[n] = label;
    Dataset neighbour = new Dataset(data.name() + "+canary", values, y, d, data.labelSet(), null);
    java.util.List<int[]> parties = new java.util.ArrayList<>(partition.parties());
    int[] own = partition.indices(party);
    int[] grown = java.util.Arrays.copyOf(own, own.length + 1);
    grown[own.length] = n;
    parties.set(party, grown);
    Partition split = new Partition(parties, partition.description() + ", one canary added to party " + party,
        partition.countFreeDescription() + ", one canary added to party " + party);
    return new NeighbourPair(data, neighbour, partition, split, "a canary of label " + label + " added to party "
        + party);
  }

  private static void check(Dataset data, float[] features, int label) {
    Checks.require(features.length == data.dimension(), "the canary has " + features.length
        + " features; the data " + data.dimension());
    Checks.require(label >= 0 && label < data.numClasses(), "the canary's label " + label + " is not a class");
  }

  /** D's features, row-major, in an array of {@code rows} rows (the ones past D's left zero). */
  private static float[] copy(Dataset data, int rows) {
    int d = data.dimension();
    float[] values = new float[rows * d];
    for (int i = 0; i < data.size(); i++) {
      data.copyRow(i, values, i * d);
    }
    return values;
  }
}
