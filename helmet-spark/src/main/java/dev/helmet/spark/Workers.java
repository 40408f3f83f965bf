package dev.helmet.spark;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.DatasetImage;
import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.privacy.noise.NoiseFactory;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import dev.helmet.protocols.algorithm.Contributor;
import dev.helmet.protocols.algorithm.Local;
import dev.helmet.protocols.algorithm.PublicPlan;
import dev.helmet.secagg.ring.FixedPointEncoding;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.broadcast.Broadcast;

/**
 * What runs inside Spark's executors: each party's preparation on its own rows, and each round's
 * inputs of the parties a task holds, summed in the ring there so that only one partial sum per
 * task leaves it. An executor rebuilds the run's spec, data set and public plan once per run (from
 * the broadcast recipe, data image and roster sizes) and keeps them for the run's later rounds.
 */
final class Workers {
  private Workers() {}

  /** One party inside an executor: its private state, and its contributor once the plan is known. */
  static final class Party {
    final int index;
    final Local local;
    /** Made at its first round and kept (its randomness streams on from round to round). */
    Contributor contributor;

    Party(int index, Local local) {
      this.index = index;
      this.local = local;
    }
  }

  /** Per executor JVM: the last few runs' rebuilt objects (a run's are small but for its data). */
  private static final Map<String, Object> CACHE = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Object> eldest) {
      return size() > 12;
    }
  };

  @SuppressWarnings("unchecked")
  static <T> T cached(String key, Function<String, T> make) {
    synchronized (CACHE) {
      Object v = CACHE.get(key);
      if (v == null) {
        v = make.apply(key);
        CACHE.put(key, v);
      }
      return (T) v;
    }
  }

  /** Forgets a run's objects in this JVM (the driver's, and in local mode the executors'). */
  static void forget(String job) {
    synchronized (CACHE) {
      CACHE.keySet().removeIf(k -> k.startsWith(job + "/"));
    }
  }

  static AlgorithmSpec spec(Recipe r) {
    return cached(r.job() + "/spec", k -> r.spec());
  }

  static PublicPlan plan(Recipe r, int[] sizes) {
    return cached(r.job() + "/plan", k -> spec(r).plan(sizes, r.minContributors(), r.testNoiseSeed() == null));
  }

  /** Prepares the parties of one task on their rows (a party's seed as in the local engine). */
  static Iterator<Party> prepare(Iterator<Integer> ids, Broadcast<Recipe> recipe, Broadcast<DatasetImage> image,
      Broadcast<int[][]> rows, Broadcast<long[]> seeds) {
    Recipe r = recipe.value();
    AlgorithmSpec spec = spec(r);
    Dataset data = cached(r.job() + "/data", k -> image.value().toDataset());
    List<Party> out = new ArrayList<>();
    while (ids.hasNext()) {
      int i = ids.next();
      DesignMatrix design = spec.preprocessing().design(data, rows.value()[i]);
      out.add(new Party(i, spec.prepare(design, seeds.value()[i])));
    }
    return out.iterator();
  }

  /**
   * Round {@code round}'s inputs of one task's parties, each with its own noise, summed in the ring:
   * one vector per task.
   */
  static Iterator<long[]> contribute(Iterator<Party> parties, Broadcast<Recipe> recipe, Broadcast<int[]> sizes,
      Broadcast<long[]> seeds, int round, Broadcast<byte[]> state) {
    Recipe r = recipe.value();
    PublicPlan plan = plan(r, sizes.value());
    NoiseFactory noise = r.testNoiseSeed() == null ? NoiseFactory.secure()
        : NoiseFactory.seededForTesting(r.testNoiseSeed());
    FixedPointEncoding encoding = plan.encoding();
    long[] sum = new long[plan.length()];
    while (parties.hasNext()) {
      Party p = parties.next();
      if (p.contributor == null) {
        p.contributor = plan.contributor(p.index, p.local, noise, seeds.value()[p.index]);
      }
      add(sum, p.contributor.open(round, state.value()).get(), encoding, p.index);
    }
    return List.of(sum).iterator();
  }

  /**
   * A one-round run in one pass: each party of the task prepares on its rows, contributes its
   * noised input and is let go, so a task holds one party at a time and nothing is cached. The
   * plan was made from the roster's sizes before anyone prepared; a party whose preparation holds
   * another number of records stops the run.
   */
  static Iterator<long[]> prepareAndContribute(Iterator<Integer> ids, Broadcast<Recipe> recipe,
      Broadcast<DatasetImage> image, Broadcast<int[][]> rows, Broadcast<long[]> seeds, Broadcast<int[]> sizes,
      Broadcast<byte[]> state) {
    Recipe r = recipe.value();
    AlgorithmSpec spec = spec(r);
    Dataset data = cached(r.job() + "/data", k -> image.value().toDataset());
    PublicPlan plan = plan(r, sizes.value());
    NoiseFactory noise = r.testNoiseSeed() == null ? NoiseFactory.secure()
        : NoiseFactory.seededForTesting(r.testNoiseSeed());
    long[] sum = new long[plan.length()];
    while (ids.hasNext()) {
      int i = ids.next();
      Local local = spec.prepare(spec.preprocessing().design(data, rows.value()[i]), seeds.value()[i]);
      if (local.size() != sizes.value()[i]) {
        throw new IllegalStateException("party " + i + " prepared " + local.size() + " records; the plan was made for "
            + sizes.value()[i]);
      }
      add(sum, plan.contributor(i, local, noise, seeds.value()[i]).open(0, state.value()).get(), plan.encoding(), i);
    }
    return List.of(sum).iterator();
  }

  /** {@code sum += in} in the plan's ring, after checking {@code in} (party {@code i}'s input). */
  static void add(long[] sum, long[] in, FixedPointEncoding encoding, int i) {
    if (in.length != sum.length) {
      throw new IllegalStateException("party " + i + " gave a vector of " + in.length + " values, the plan has "
          + sum.length);
    }
    for (long v : in) {
      if (!encoding.inRing(v)) {
        throw new IllegalStateException("party " + i + " gave a value outside the " + encoding.ringBits() + "-bit ring");
      }
    }
    encoding.addInto(sum, in);
  }

  /** {@code a += b} in the ring of {@code mask}; returns {@code a}. */
  static long[] add(long[] a, long[] b, long mask) {
    for (int j = 0; j < a.length; j++) {
      a[j] = (a[j] + b[j]) & mask;
    }
    return a;
  }
}
