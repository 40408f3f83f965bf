package dev.helmet.core.util;

import java.util.LinkedHashMap;
import java.util.Map;
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
  private final Map<K, V> entries;
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
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
      }
    };
  }

  /** The function's value at {@code key}, computed once per key while it stays in the memo. */
  public V get(K key) {
    synchronized (entries) {
      V v = entries.get(key);
      if (v != null) {
        return v;
      }
    }
    // Computed outside the lock: two callers may compute the same value, never a different one.
    V v = function.apply(key);
    synchronized (entries) {
      entries.put(key, v);
    }
    return v;
  }
}
