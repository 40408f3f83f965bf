package dev.helmet.core.partition;

import java.util.Arrays;
import java.util.List;

/**
 * Which rows of a data set each party holds: party {@code i} holds rows {@code indices(i)}. The
 * parties' rows are disjoint.
 *
 * @param parties one array of row indices per party
 * @param description how the partition was made, for reports and provenance
 * @param countFreeDescription the same from the configuration alone, with no count computed from the
 *     data ("iid over 2 parties" where the description says "iid, all 200 points over 2 parties"):
 *     what a run whose record counts are private (add-or-remove neighbours) may release
 */
public record Partition(List<int[]> parties, String description, String countFreeDescription) {
  public Partition {
    parties = List.copyOf(parties);
    if (parties.isEmpty()) {
      throw new IllegalArgumentException("a partition needs at least one party");
    }
    java.util.Objects.requireNonNull(description, "description");
    java.util.Objects.requireNonNull(countFreeDescription, "countFreeDescription");
  }

  /** A partition whose description states only configuration (the parties, points per party given). */
  public Partition(List<int[]> parties, String description) {
    this(parties, description, description);
  }

  /** The description to release: {@link #countFreeDescription} when the record counts are private. */
  public String description(boolean countsPrivate) {
    return countsPrivate ? countFreeDescription : description;
  }

  /** Number of parties W. */
  /**
   * One seed per party: the i-th value of {@code seed}'s stream is party i's, so what a party
   * draws does not depend on the number of threads. Refuses a partition with an empty party.
   */
  public long[] partySeeds(long seed) {
    for (int i = 0; i < count(); i++) {
      if (size(i) == 0) {
        throw new IllegalArgumentException("party " + i + " holds no data; every party needs at least one point");
      }
    }
    long[] seeds = new long[count()];
    java.util.SplittableRandom root = new java.util.SplittableRandom(seed);
    for (int i = 0; i < seeds.length; i++) {
      seeds[i] = root.nextLong();
    }
    return seeds;
  }

  public int count() {
    return parties.size();
  }

  /** Row indices of party {@code i} (a copy). */
  public int[] indices(int i) {
    return parties.get(i).clone();
  }

  /** Number of rows party {@code i} holds. */
  public int size(int i) {
    return parties.get(i).length;
  }

  /** The largest local data size. */
  public int maxSize() {
    return parties.stream().mapToInt(p -> p.length).max().orElse(0);
  }

  /** The smallest local data size. */
  public int minSize() {
    return parties.stream().mapToInt(p -> p.length).min().orElse(0);
  }

  /** Total rows over all parties. */
  public long totalSize() {
    return parties.stream().mapToLong(p -> p.length).sum();
  }

  /** All rows of all parties, party by party: the pooled data of a centralized reference. */
  public int[] pooled() {
    return parties.stream().flatMapToInt(Arrays::stream).toArray();
  }
}
