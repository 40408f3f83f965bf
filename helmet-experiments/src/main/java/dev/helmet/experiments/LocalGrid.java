package dev.helmet.experiments;

import dev.helmet.core.data.BuiltinDataset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The built-in grid: the cells in this process, one after another or {@code cellsAtOnce} at a
 * time, each on {@code threads} threads. One cell at a time suits short cells, whose parties share
 * the cores. A simulated round of a long cell (hundreds of rounds of an MLP) waits for its slowest
 * party and then runs the server's step alone, which leaves cores idle. Several cells at once, one
 * thread each, keep them busy. Each worker keeps the data and partition of its last cell, as the
 * sequential loop does; finished cells are handed to {@code done} from the calling thread only.
 */
public final class LocalGrid implements Grid {
  /** Largest number of cells at once. */
  public static final int MAX_CELLS_AT_ONCE = 256;

  private final int cellsAtOnce;

  /** A grid running {@code cellsAtOnce} cells at a time (1: one after another). */
  public LocalGrid(int cellsAtOnce) {
    if (cellsAtOnce < 1 || cellsAtOnce > MAX_CELLS_AT_ONCE) {
      throw new IllegalArgumentException("cells at once must be in [1, " + MAX_CELLS_AT_ONCE + "]. Provided value: "
          + cellsAtOnce);
    }
    this.cellsAtOnce = cellsAtOnce;
  }

  @Override
  public void run(ExperimentConfig c, BuiltinDataset.TrainTest data, List<String> keys, int threads,
      Long testNoiseSeed, Grid.Finished done) {
    Map<String, ExperimentRunner.Cell> byKey = new java.util.HashMap<>();
    for (ExperimentRunner.Cell cell : ExperimentRunner.cells(c)) {
      byKey.put(cell.key(), cell);
    }
    for (String key : keys) {
      if (!byKey.containsKey(key)) {
        throw new IllegalArgumentException("the experiment has no cell " + key);
      }
    }
    if (cellsAtOnce == 1 || keys.size() < 2) {
      ExperimentRunner.Group group = null;
      for (String key : keys) {
        ExperimentRunner.Cell cell = byKey.get(key);
        long start = System.nanoTime(); // from the cell's data and partition on, as a Spark task counts it
        if (group == null || !group.matches(cell)) {
          group = ExperimentRunner.Group.of(c, data, cell);
        }
        List<Row> rows = ExperimentRunner.runCell(c, group, cell, threads, testNoiseSeed);
        done.accept(key, rows, (System.nanoTime() - start) / 1e9, threads);
      }
      return;
    }
    int workers = Math.min(cellsAtOnce, keys.size());
    ConcurrentLinkedQueue<String> todo = new ConcurrentLinkedQueue<>(keys); // in the grid's order
    // [key, rows, seconds] or [key, failure]: the waiting thread records them.
    BlockingQueue<Object[]> finished = new LinkedBlockingQueue<>();
    ExecutorService pool = Executors.newFixedThreadPool(workers, r -> {
      Thread t = new Thread(r, "helmet-grid-cell");
      t.setDaemon(true);
      return t;
    });
    try {
      for (int i = 0; i < workers; i++) {
        pool.execute(() -> {
          ExperimentRunner.Group group = null;
          for (String key = todo.poll(); key != null && !Thread.currentThread().isInterrupted(); key = todo.poll()) {
            try {
              ExperimentRunner.Cell cell = byKey.get(key);
              long start = System.nanoTime();
              if (group == null || !group.matches(cell)) {
                group = ExperimentRunner.Group.of(c, data, cell);
              }
              List<Row> rows = ExperimentRunner.runCell(c, group, cell, threads, testNoiseSeed);
              finished.add(new Object[] {key, rows, (System.nanoTime() - start) / 1e9});
            } catch (Throwable e) { // every failure reaches the waiting thread
              finished.add(new Object[] {key, e});
              return;
            }
          }
        });
      }
      for (int n = 0; n < keys.size(); n++) {
        Object[] f = finished.take();
        if (f[1] instanceof RuntimeException e) {
          throw e; // the cells recorded so far stay; the same command resumes the run
        }
        if (f[1] instanceof Error e) {
          throw e;
        }
        if (f[1] instanceof Throwable t) {
          throw new IllegalStateException("cell " + f[0] + " failed: " + t.getMessage(), t);
        }
        @SuppressWarnings("unchecked")
        List<Row> rows = (List<Row>) f[1];
        done.accept((String) f[0], rows, (Double) f[2], threads);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted; the cells finished so far are recorded", e);
    } finally {
      todo.clear(); // after a failure no worker starts another cell
      pool.shutdownNow();
    }
  }
}
