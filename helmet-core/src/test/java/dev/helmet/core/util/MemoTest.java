package dev.helmet.core.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MemoTest {
  /**
   * Sixteen callers asking for the same key while it is being computed get its value from one
   * computation (the function is held until all of them have asked).
   */
  @Test
  void concurrentCallersOfOneKeyShareOneComputation() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch asked = new CountDownLatch(16);
    Memo<Integer, Integer> memo = new Memo<>(4, k -> {
      calls.incrementAndGet();
      try {
        asked.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return k * k;
    });
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<Integer>> fs = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        fs.add(pool.submit(() -> {
          asked.countDown();
          return memo.get(7);
        }));
      }
      for (Future<Integer> f : fs) {
        assertEquals(49, f.get(20, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(1, calls.get());
    assertEquals(49, memo.get(7));
    assertEquals(1, calls.get());
  }

  /** A computation that throws is not remembered: the next call computes again. */
  @Test
  void aFailureIsForgotten() {
    AtomicInteger calls = new AtomicInteger();
    Memo<String, Integer> memo = new Memo<>(4, k -> {
      if (calls.incrementAndGet() == 1) {
        throw new IllegalArgumentException("first call fails");
      }
      return k.length();
    });
    var e = assertThrows(IllegalArgumentException.class, () -> memo.get("abc"));
    assertEquals("first call fails", e.getMessage());
    assertEquals(3, memo.get("abc"));
    assertEquals(2, calls.get());
  }

  /** The least recently used key is evicted beyond the capacity and computed again when asked. */
  @Test
  void evictsTheLeastRecentlyUsed() {
    AtomicInteger calls = new AtomicInteger();
    Memo<Integer, Integer> memo = new Memo<>(2, k -> {
      calls.incrementAndGet();
      return -k;
    });
    memo.get(1);
    memo.get(2);
    memo.get(1);
    memo.get(3); // evicts 2
    assertEquals(3, calls.get());
    memo.get(1);
    assertEquals(3, calls.get());
    assertEquals(-2, memo.get(2));
    assertEquals(4, calls.get());
  }
}
