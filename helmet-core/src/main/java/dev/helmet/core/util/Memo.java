package dev.helmet.core.util;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.Function;

/**
 * A small thread-safe memo of a pure function (least recently used entries evicted): for
 * computations that many callers in one process repeat with the same public inputs, such as every
 * simulated party deriving the same noise calibration from the same plan.
 *
 * @param <K> the key (with value equality, e.g. a record)
 * @param <V> the value
 */
public final class Memo<K, V> {
  private final Map<K, FutureTask<V>> entries;
  private final Function<K, V> function;

  /**
   * @param capacity the most entries kept
   * @param function the pure function memoised (it must return the same value for equal keys)
   */
  public Memo(int capacity, Function<K, V> function) {
    Checks.positive("capacity", capacity);
    this.function = Checks.notNull("function", function);
    this.entries = new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<K, FutureTask<V>> eldest) {
        return size() > capacity;
      }
    };
  }

  /**
   * The function's value at {@code key}, computed once per key while it stays in the memo. Callers
   * that ask for a key while it is being computed wait for that computation instead of repeating it
   * (a hundred parties in one process deriving the same calibration at once compute it once); a
   * computation that throws is forgotten, and every caller waiting for it gets the exception.
   */
  public V get(K key) {
    FutureTask<V> task;
    boolean mine = false;
    synchronized (entries) {
      task = entries.get(key);
      if (task == null) {
        task = new FutureTask<>(() -> function.apply(key));
        entries.put(key, task);
        mine = true;
      }
    }
    if (mine) {
      task.run(); // outside the lock: other keys are computed meanwhile
    }
    try {
      return task.get();
    } catch (ExecutionException e) {
      synchronized (entries) {
        entries.remove(key, task);
      }
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a memoised computation", e);
    }
  }
}
