package dev.helmet.experiments;

import dev.helmet.core.data.BuiltinDataset;
import java.util.List;
import java.util.Map;

/**
 * Where an experiment's cells run: by default one after another in this process (each cell's
 * parties on {@code threads} threads); an engine such as Spark (module helmet-spark, found by
 * {@link java.util.ServiceLoader}) runs cells as tasks of a cluster. Either way every finished
 * cell is handed back at once, recorded and resumable, and results.csv, plots and report follow
 * from the same rows.
 */
public interface Grid {
  /**
   * Runs the cells named by {@code keys}, in any order and as concurrently as it can, handing each
   * cell's rows to {@code done} (from one thread at a time) as it finishes; {@code testNoiseSeed}
   * is null outside tests (see {@link ExperimentRunner.Settings#testNoiseSeed()}).
   */
  void run(ExperimentConfig c, BuiltinDataset.TrainTest data, List<String> keys, int threads, Long testNoiseSeed,
      Finished done);

  /** Takes a finished cell. */
  @FunctionalInterface
  interface Finished {
    /**
     * The rows of cell {@code key}, the wall time it took where it ran, in seconds (from its start
     * to its rows, including any time the process was paused; NaN if not known), and the threads
     * it ran on.
     */
    void accept(String key, List<Row> rows, double seconds, int threads);
  }

  /** Makes a grid from its options (e.g. {@code master=local[*]}). */
  interface Provider {
    String id();

    Grid create(Map<String, String> options);
  }

  /**
   * The grid {@code id} with {@code options}.
   *
   * @throws IllegalArgumentException if none of that id is on the class path
   */
  static Grid named(String id, Map<String, String> options) {
    for (Provider p : java.util.ServiceLoader.load(Provider.class)) {
      if (p.id().equals(id)) {
        return p.create(options);
      }
    }
    throw new IllegalArgumentException("no experiment engine '" + id + "' on the class path (local is built in); "
        + "the Spark engine is in module helmet-spark, which the launcher adds with --engine spark");
  }
}
