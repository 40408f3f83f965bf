package dev.helmet.core.partition;

import dev.helmet.core.data.DataFormatException;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Shuffle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.sampling.distribution.DirichletSampler;

/**
 * How to split a data set among parties. Every strategy is deterministic given the random source
 * (seeded, recorded randomness: partitions are reproducible; they are not a secret).
 */
public sealed interface PartitionStrategy {

  /** Splits {@code data}; fails with a message naming the problem if the data is too small. */
  Partition split(Dataset data, SplittableRandom rng);

  /**
   * The number of records the split hands out when the configuration alone fixes it (parties x the
   * points per party given), whatever the data; 0 when it depends on the data (all rows dealt out,
   * or the data's party column). A split that cannot hand them out fails instead.
   */
  default long configuredRecords() {
    if (this instanceof Iid i) {
      return (long) i.parties() * i.perParty();
    } else if (this instanceof IidWithReplacement i) {
      return (long) i.parties() * i.perParty();
    } else if (this instanceof OneClassPerParty o) {
      return (long) o.parties() * o.perParty();
    } else if (this instanceof Dirichlet d) {
      return (long) d.parties() * d.perParty();
    } else if (this instanceof Uneven u) {
      int large = (int) Math.round(u.parties() * u.largeFraction());
      return (long) large * Math.round(u.perParty() * u.ratio()) + (long) (u.parties() - large) * u.perParty();
    }
    return 0;
  }

  /**
   * IID: a random {@code parties x perParty} sample without replacement, or all rows dealt out
   * evenly (sizes differ by at most one) when {@code perParty == 0}.
   */
  record Iid(int parties, int perParty) implements PartitionStrategy {
    public Iid {
      Checks.positive("parties", parties);
      Checks.nonNegative("per-party", perParty);
    }

    @Override
    public Partition split(Dataset data, SplittableRandom rng) {
      int[] order = Shuffle.permutation(data.size(), rng);
      long need = (long) parties * perParty;
      if (perParty > 0 && need > data.size()) {
        throw new DataFormatException(String.format(
            "%d parties x %d points need %d rows but %s has %d: use fewer parties (--parties) or points (--per-party)",
            parties, perParty, need, data.name(), data.size()));
      }
      if (perParty == 0 && parties > data.size()) {
        throw new DataFormatException(parties + " parties need at least one row each but " + data.name()
            + " has " + data.size() + ": use at most " + data.size() + " parties (--parties)");
      }
      List<int[]> out = new ArrayList<>(parties);
      int at = 0;
      for (int i = 0; i < parties; i++) {
        int n = perParty > 0 ? perParty : data.size() / parties + (i < data.size() % parties ? 1 : 0);
        out.add(Arrays.copyOfRange(order, at, at + n));
        at += n;
      }
      return perParty > 0
          ? new Partition(out, "iid, " + parties + " parties x " + perParty + " points")
          : new Partition(out, "iid, all " + data.size() + " points over " + parties + " parties",
              "iid over " + parties + " parties");
    }
  }

  /**
   * IID with replacement across parties: each party draws {@code perParty} distinct rows uniformly
   * from the whole data set, independently of the others, so parties may share rows. It simulates
   * more parties than the data set has rows for (the Spark scale run: 100,000 parties of 60 MNIST
   * images); the privacy analysis is per party's own data and unchanged, but a row held by several
   * parties is contributed several times.
   */
  record IidWithReplacement(int parties, int perParty) implements PartitionStrategy {
    public IidWithReplacement {
      Checks.positive("parties", parties);
      Checks.positive("per-party", perParty);
    }

    @Override
    public Partition split(Dataset data, SplittableRandom rng) {
      if (perParty > data.size()) {
        throw new DataFormatException(perParty + " distinct points per party need " + perParty + " rows but "
            + data.name() + " has " + data.size());
      }
      List<int[]> out = new ArrayList<>(parties);
      java.util.HashSet<Integer> seen = new java.util.HashSet<>();
      for (int i = 0; i < parties; i++) {
        int[] rows = new int[perParty];
        seen.clear();
        for (int k = 0; k < perParty; ) {
          int r = rng.nextInt(data.size());
          if (seen.add(r)) {
            rows[k++] = r;
          }
        }
        out.add(rows);
      }
      return new Partition(out, "iid with replacement, " + parties + " parties x " + perParty + " points");
    }
  }

  /**
   * Strongly non-IID, as in the Helmet paper's Table 2: party {@code i} holds only class
   * {@code i mod K}. With {@code perParty == 0} each class's rows are dealt out evenly over the
   * parties holding that class.
   */
  record OneClassPerParty(int parties, int perParty) implements PartitionStrategy {
    public OneClassPerParty {
      Checks.positive("parties", parties);
      Checks.nonNegative("per-party", perParty);
    }

    @Override
    public Partition split(Dataset data, SplittableRandom rng) {
      int k = data.numClasses();
      List<int[]> pools = classPools(data, rng);
      int[] partiesOfClass = new int[k];
      for (int i = 0; i < parties; i++) {
        partiesOfClass[i % k]++;
      }
      for (int c = 0; c < k; c++) {
        int need = perParty > 0 ? partiesOfClass[c] * perParty : partiesOfClass[c];
        if (need > pools.get(c).length) {
          throw new DataFormatException(String.format(
              "one-class-per-party: %d parties x %d points of class '%s' need %d rows but %s has %d; "
                  + "use fewer parties or points",
              partiesOfClass[c], Math.max(perParty, 1), data.labelSet().name(c), need, data.name(),
              pools.get(c).length));
        }
      }
      int[] used = new int[k];
      int[] seen = new int[k];
      List<int[]> out = new ArrayList<>(parties);
      for (int i = 0; i < parties; i++) {
        int c = i % k;
        int[] pool = pools.get(c);
        int n = perParty > 0
            ? perParty
            : pool.length / partiesOfClass[c] + (seen[c] < pool.length % partiesOfClass[c] ? 1 : 0);
        out.add(Arrays.copyOfRange(pool, used[c], used[c] + n));
        used[c] += n;
        seen[c]++;
      }
      return new Partition(out, "one class per party, " + parties + " parties"
          + (perParty > 0 ? " x " + perParty + " points" : ""));
    }
  }

  /**
   * Dirichlet label skew (Hsu et al. 2019): party {@code i} draws class proportions
   * {@code q_i ~ Dir(alpha)} and then its {@code perParty} labels from {@code q_i}, taking rows
   * without replacement (a class that runs out is dropped from {@code q_i}). Small alpha: each
   * party sees few classes; large alpha: close to IID.
   */
  record Dirichlet(int parties, int perParty, double alpha) implements PartitionStrategy {
    public Dirichlet {
      Checks.positive("parties", parties);
      Checks.nonNegative("per-party", perParty);
      Checks.positive("dirichlet-alpha", alpha);
    }

    @Override
    public Partition split(Dataset data, SplittableRandom rng) {
      int k = data.numClasses();
      int n = perParty > 0 ? perParty : data.size() / parties;
      if ((long) n * parties > data.size() || n == 0) {
        throw new DataFormatException(String.format("dirichlet: %d parties x %d points need %d rows but %s has %d",
            parties, Math.max(n, 1), (long) Math.max(n, 1) * parties, data.name(), data.size()));
      }
      List<int[]> pools = classPools(data, rng);
      int[] used = new int[k];
      UniformRandomProvider urp = rng::nextLong;
      DirichletSampler dir = DirichletSampler.symmetric(urp, k, alpha);
      List<int[]> out = new ArrayList<>(parties);
      for (int i = 0; i < parties; i++) {
        double[] q = dir.sample();
        int[] rows = new int[n];
        for (int j = 0; j < n; j++) {
          double total = 0;
          for (int c = 0; c < k; c++) {
            if (used[c] < pools.get(c).length) {
              total += q[c];
            }
          }
          int c = -1;
          if (total > 0) {
            double u = rng.nextDouble() * total;
            for (int cc = 0; cc < k; cc++) {
              if (used[cc] < pools.get(cc).length) {
                c = cc;
                u -= q[cc];
                if (u < 0) {
                  break;
                }
              }
            }
          } else { // every class this party favours is exhausted: take any class with rows left
            for (int cc = 0; cc < k && c < 0; cc++) {
              if (used[cc] < pools.get(cc).length) {
                c = cc;
              }
            }
          }
          rows[j] = pools.get(c)[used[c]++];
        }
        out.add(rows);
      }
      String what = "dirichlet(alpha=" + alpha + "), " + parties + " parties";
      // n is configuration when per-party points were given, and a count of the data otherwise
      return new Partition(out, what + " x " + n + " points", perParty > 0 ? what + " x " + n + " points" : what);
    }
  }

  /**
   * Uneven sizes (the WD-DP experiments): a fraction {@code largeFraction} of the parties holds
   * {@code ratio} times as many points as the others, who hold {@code perParty} each.
   */
  record Uneven(int parties, int perParty, double ratio, double largeFraction) implements PartitionStrategy {
    public Uneven {
      Checks.positive("parties", parties);
      Checks.positive("per-party", perParty);
      Checks.require(ratio >= 1 && Double.isFinite(ratio),
          "uneven-ratio must be >= 1 and finite. Provided value: " + ratio);
      Checks.halfOpenUnit("large-fraction", largeFraction);
    }

    @Override
    public Partition split(Dataset data, SplittableRandom rng) {
      int large = (int) Math.round(parties * largeFraction);
      int big = (int) Math.round(perParty * ratio);
      long need = (long) large * big + (long) (parties - large) * perParty;
      if (need > data.size()) {
        throw new DataFormatException(String.format(
            "uneven: %d parties x %d points and %d parties x %d points need %d rows but %s has %d",
            large, big, parties - large, perParty, need, data.name(), data.size()));
      }
      int[] order = Shuffle.permutation(data.size(), rng);
      List<int[]> out = new ArrayList<>(parties);
      int at = 0;
      for (int i = 0; i < parties; i++) {
        int n = i < large ? big : perParty;
        out.add(Arrays.copyOfRange(order, at, at + n));
        at += n;
      }
      return new Partition(out, "uneven, " + large + " parties x " + big + " and " + (parties - large)
          + " parties x " + perParty + " points (ratio " + ratio + ")");
    }
  }

  /** The natural partition of the data's party-id column; parties ordered by id. */
  record Natural() implements PartitionStrategy {
    @Override
    public Partition split(Dataset data, SplittableRandom rng) {
      if (!data.hasParties()) {
        throw new DataFormatException(data.name() + " has no party column; name one with --party-column");
      }
      Map<String, List<Integer>> byParty = new TreeMap<>(PartitionStrategy::compareIds);
      for (int i = 0; i < data.size(); i++) {
        byParty.computeIfAbsent(data.party(i), p -> new ArrayList<>()).add(i);
      }
      List<int[]> out = new ArrayList<>();
      for (List<Integer> rows : byParty.values()) {
        out.add(rows.stream().mapToInt(Integer::intValue).toArray());
      }
      return new Partition(out, "natural, " + out.size() + " parties from the party column");
    }
  }

  private static int compareIds(String a, String b) {
    try {
      return Long.compare(Long.parseLong(a), Long.parseLong(b));
    } catch (NumberFormatException e) {
      return a.compareTo(b);
    }
  }

  /** Row indices of each class, each list shuffled. */
  static List<int[]> classPools(Dataset data, SplittableRandom rng) {
    int[] order = Shuffle.permutation(data.size(), rng);
    Map<Integer, List<Integer>> pools = new LinkedHashMap<>();
    for (int c = 0; c < data.numClasses(); c++) {
      pools.put(c, new ArrayList<>());
    }
    for (int i : order) {
      pools.get(data.label(i)).add(i);
    }
    List<int[]> out = new ArrayList<>();
    for (List<Integer> p : pools.values()) {
      out.add(p.stream().mapToInt(Integer::intValue).toArray());
    }
    return out;
  }
}
