package dev.helmet.spark;

import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.data.DatasetImage;
import dev.helmet.experiments.ExperimentConfig;
import dev.helmet.experiments.ExperimentRunner;
import dev.helmet.experiments.Grid;
import dev.helmet.experiments.Row;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

/**
 * An experiment's cells as Spark tasks: the configuration and the data (train and test) are
 * broadcast once; each cell is one task of its own job (its parties prepared and its releases run
 * inside one executor core), at most as many at once as the cluster has cores; each cell's rows
 * come back as soon as it finishes and are recorded by the harness, so an interrupted run resumes.
 */
final class SparkGrid implements Grid {
  private final SparkSettings settings;

  SparkGrid(SparkSettings settings) {
    this.settings = settings;
  }

  @Override
  public void run(ExperimentConfig c, BuiltinDataset.TrainTest data, List<String> keys, int threads,
      Long testNoiseSeed, Grid.Finished done) {
    JavaSparkContext sc = settings.context("helmet experiment " + c.name());
    String id = UUID.randomUUID().toString();
    Broadcast<ExperimentConfig.Portable> config = sc.broadcast(c.portable());
    Broadcast<DatasetImage> train = sc.broadcast(DatasetImage.of(data.train()));
    Broadcast<DatasetImage> test = sc.broadcast(DatasetImage.of(data.test()));
    int parallel = Math.max(1, Math.min(keys.size(), sc.defaultParallelism()));
    // Finished cells, handed to `done` on this thread only: [key, seconds and rows] or [key, failure].
    BlockingQueue<Object[]> finished = new ArrayBlockingQueue<>(keys.size());
    ExecutorService submitters = Executors.newFixedThreadPool(parallel, r -> {
      Thread t = new Thread(r, "helmet-grid-submit");
      t.setDaemon(true);
      return t;
    });
    int recorded = 0;
    try {
      for (String key : keys) {
        submitters.execute(() -> {
          try {
            sc.setJobGroup(id, "helmet experiment " + c.name(), true);
            List<String> rows = sc.parallelize(List.of(key), 1)
                .map(k -> run(id, config, train, test, k, testNoiseSeed)).collect();
            finished.add(new Object[] {key, rows.get(0)});
          } catch (Throwable e) {
            // Spark throws its own checked exceptions too; every failure reaches the waiting thread.
            finished.add(new Object[] {key, e});
          }
        });
      }
      for (int n = 0; n < keys.size(); n++) {
        Object[] f = finished.take();
        if (f[1] instanceof Throwable t) {
          if (sc.sc().isStopped()) {
            throw new IllegalStateException("Spark stopped (interrupted, or the cluster ended the application); the "
                + recorded + " cells finished so far are recorded, and the same command resumes the run", t);
          }
          throw new IllegalStateException("cell " + f[0] + " failed on Spark: " + t.getMessage(), t);
        }
        // the task's answer: its wall seconds, a newline, then its rows as JSON
        String answer = (String) f[1];
        int nl = answer.indexOf('\n');
        done.accept((String) f[0], ExperimentRunner.rowsFromJson(answer.substring(nl + 1)),
            Double.parseDouble(answer.substring(0, nl)), 1);
        recorded++;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted; the cells finished so far are recorded", e);
    } finally {
      // On a failure the cells still running are cancelled; those recorded stay (the run resumes).
      submitters.shutdownNow();
      Workers.forget(id);
      if (!sc.sc().isStopped()) {
        if (recorded < keys.size()) {
          sc.cancelJobGroup(id);
        }
        for (Broadcast<?> b : List.of(config, train, test)) {
          b.destroy();
        }
      }
    }
  }

  /** In an executor: one cell, on one core; its wall seconds, a newline, and its rows as JSON. */
  private static String run(String id, Broadcast<ExperimentConfig.Portable> config, Broadcast<DatasetImage> train,
      Broadcast<DatasetImage> test, String key, Long testNoiseSeed) {
    ExperimentConfig c = Workers.cached(id + "/config", k -> config.value().parse());
    BuiltinDataset.TrainTest data = Workers.cached(id + "/data",
        k -> new BuiltinDataset.TrainTest(train.value().toDataset(), test.value().toDataset()));
    long start = System.nanoTime();
    List<Row> rows = ExperimentRunner.runCell(c, data, key, 1, testNoiseSeed);
    return (System.nanoTime() - start) / 1e9 + "\n" + ExperimentRunner.rowsToJson(rows);
  }

  /** {@code experiment run --engine spark}: options {@code master} and {@code conf.spark.*}. */
  public static final class Provider implements Grid.Provider {
    @Override
    public String id() {
      return "spark";
    }

    @Override
    public Grid create(java.util.Map<String, String> options) {
      return new SparkGrid(SparkSettings.of(options, java.util.Set.of(), "the Spark experiment engine"));
    }
  }
}
