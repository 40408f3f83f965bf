package dev.helmet.secagg.crypto;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where secure aggregation spends its time: nanoseconds and operation counts per primitive,
 * accumulated across threads. Pass {@link #NONE} to measure nothing.
 */
public final class CryptoProfile {
  /** A profile that records nothing. */
  public static final CryptoProfile NONE = new CryptoProfile(false);

  /** The measured primitives. */
  public enum Op {
    KEY_AGREEMENT,
    PRG,
    SHAMIR,
    SIGNATURE,
    AEAD,
    KEY_DERIVATION
  }

  private final boolean enabled;
  private final Map<Op, LongAdder> nanos = new EnumMap<>(Op.class);
  private final Map<Op, LongAdder> counts = new EnumMap<>(Op.class);

  public CryptoProfile() {
    this(true);
  }

  private CryptoProfile(boolean enabled) {
    this.enabled = enabled;
    for (Op op : Op.values()) {
      nanos.put(op, new LongAdder());
      counts.put(op, new LongAdder());
    }
  }

  /** The current time, or 0 when disabled (so callers can skip {@link System#nanoTime}). */
  public long start() {
    return enabled ? System.nanoTime() : 0;
  }

  /** Records one operation that began at {@code start}. */
  public void stop(Op op, long start) {
    stop(op, start, 1);
  }

  /** Records {@code count} operations done together, beginning at {@code start}. */
  public void stop(Op op, long start, int count) {
    if (enabled) {
      nanos.get(op).add(System.nanoTime() - start);
      counts.get(op).add(count);
    }
  }

  /** Total seconds spent in {@code op}. */
  public double seconds(Op op) {
    return nanos.get(op).sum() / 1e9;
  }

  /** Number of {@code op} operations. */
  public long count(Op op) {
    return counts.get(op).sum();
  }
}
