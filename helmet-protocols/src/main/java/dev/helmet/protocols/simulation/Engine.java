package dev.helmet.protocols.simulation;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.partition.Partition;
import dev.helmet.core.util.Progress;
import dev.helmet.protocols.algorithm.AlgorithmSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Where a simulation's parties run when they outgrow one process: an engine prepares every party
 * on its own rows and runs every round, summing the parties' ring vectors in the clear (the plain
 * summation: the server sees the sum, and the engine's workers see partial sums of the parties
 * they hold). Engines other than this process's threads ({@link Simulation}) live in their own
 * modules and are found by {@link ServiceLoader} ({@link Provider}); the runners name none.
 */
public interface Engine {
  /** What a run needs: all public but the data. */
  record Job(AlgorithmSpec spec, Dataset data, Partition partition, long partySeed, int minContributors,
      Long testNoiseSeed) {}

  /** Why this engine cannot run {@code spec} (null when it can). */
  default String problem(AlgorithmSpec spec) {
    return spec.notDistributed();
  }

  /**
   * Prepares every party and runs every round. Party i is seeded with the i-th value of {@code
   * partySeed}'s stream, as in {@link Simulation#prepare}, and draws its noise from {@code
   * NoiseFactory.secure()} unless the job carries a test noise seed; so a seeded run releases the
   * model {@link Simulation#run} releases with the plain summation and the same seeds.
   *
   * @throws IllegalArgumentException if the engine cannot run the job's algorithm, saying why
   */
  Simulation.Result run(Job job, Progress progress);

  /** Makes an engine from its options (e.g. {@code master=local[*]}). */
  interface Provider {
    String id();

    /** One line for people: what it is and its options. */
    String describe();

    Engine create(Map<String, String> options);
  }

  /** The ids of the engines on the class path besides {@code local}. */
  static List<String> available() {
    List<String> out = new ArrayList<>();
    for (Provider p : ServiceLoader.load(Provider.class)) {
      out.add(p.id());
    }
    return out;
  }

  /**
   * The engine {@code id} with {@code options}.
   *
   * @throws IllegalArgumentException if no engine of that id is on the class path, saying which are
   */
  static Engine named(String id, Map<String, String> options) {
    for (Provider p : ServiceLoader.load(Provider.class)) {
      if (p.id().equals(id)) {
        return p.create(options);
      }
    }
    throw new IllegalArgumentException("no engine '" + id + "' on the class path (available: local"
        + (available().isEmpty() ? "" : ", " + String.join(", ", available())) + "); the Spark engine is in module "
        + "helmet-spark, which the launcher adds with --engine spark");
  }
}
