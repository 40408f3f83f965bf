package dev.helmet.core.util;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.function.IntConsumer;
import java.util.function.ObjIntConsumer;
import java.util.stream.IntStream;

/**
 * Runs index-parallel work on a private pool of a given size, so a caller's thread budget is
 * honoured (the common pool would use every core) and failures surface as the original exception.
 */
public final class Parallel {
  private Parallel() {}

  /** Calls {@code body} for every index in [0, n), on {@code threads} threads. */
  public static void forEach(int threads, int n, IntConsumer body) {
    if (threads == 1) {
      // In the caller's thread: a pool of one would cost its start-up (about 0.2 ms) for nothing,
      // which an audit's hundred thousand single-threaded releases pay once per round.
      for (int i = 0; i < n; i++) {
        body.accept(i);
      }
      return;
    }
    call(threads, () -> {
      IntStream.range(0, n).parallel().forEach(body);
      return null;
    });
  }

  /**
   * Sums per-index contributions into a vector of length {@code d}: each worker accumulates into
   * its own vector (with wrap-around {@code long} addition) and the vectors are added at the end.
   */
  public static long[] sumInto(int threads, int n, int d, ObjIntConsumer<long[]> body) {
    if (threads == 1) {
      // As forEach: in the caller's thread (wrap-around addition gives the same sum in any order).
      long[] sum = new long[d];
      for (int i = 0; i < n; i++) {
        body.accept(sum, i);
      }
      return sum;
    }
    return call(threads, () -> IntStream.range(0, n).parallel().collect(() -> new long[d], body::accept,
        (a, b) -> {
          for (int i = 0; i < d; i++) {
            a[i] += b[i];
          }
        }));
  }

  /** Runs {@code work} inside a pool of {@code threads} threads, so its parallel streams use them. */
  public static <T> T call(int threads, Callable<T> work) {
    Checks.positive("threads", threads);
    ForkJoinPool pool = new ForkJoinPool(threads);
    try {
      return pool.submit(work).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException r) {
        throw r;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(c);
    } finally {
      pool.shutdown();
    }
  }
}
