package dev.helmet.protocols.algorithm;

import dev.helmet.core.util.Parallel;
import java.util.function.ObjIntConsumer;

/**
 * For aggregate simulations: the sum over the parties of what each adds into a vector, computed on
 * {@code threads} threads. The parties are dealt to a fixed number of accumulators (party i to
 * accumulator i mod chunks), which are added in order, so the result depends on the thread count
 * only through that number.
 */
public final class PartySums {
  private PartySums() {}

  /**
   * @param parties W
   * @param length the vectors' length
   * @param addParty adds party i's contribution into the given accumulator
   */
  public static double[] sum(int threads, int parties, int length, ObjIntConsumer<double[]> addParty) {
    int chunks = Math.min(parties, Math.max(1, threads) * 4);
    double[][] partial = new double[chunks][length];
    Parallel.forEach(threads, chunks, k -> {
      for (int i = k; i < parties; i += chunks) {
        addParty.accept(partial[k], i);
      }
    });
    double[] sum = new double[length];
    for (double[] acc : partial) {
      for (int j = 0; j < length; j++) {
        sum[j] += acc[j];
      }
    }
    return sum;
  }
}
