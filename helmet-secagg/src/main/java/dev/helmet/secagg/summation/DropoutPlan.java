package dev.helmet.secagg.summation;

import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Shuffle;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Which simulated parties drop out, and before which protocol step (0 = before their first
 * message). Used by the in-process simulations to exercise dropout recovery; a real deployment's
 * dropouts come from the network.
 */
public interface DropoutPlan {
  /** No party drops. */
  DropoutPlan NONE = (party, parties, steps) -> -1;

  /**
   * The step before which {@code party} (of {@code parties}) drops, in 0 .. steps - 1, or -1 if
   * it never drops.
   */
  int dropsBefore(int party, int parties, int steps);

  /**
   * A random {@code floor(fraction * parties)} of the parties drop, chosen with {@code seed}, each
   * before a step drawn uniformly from the protocol's steps (or before {@code fixedStep} if it is
   * >= 0). The choice is made on first use, for the number of parties then given.
   */
  static DropoutPlan random(double fraction, int fixedStep, long seed) {
    Checks.require(fraction >= 0 && fraction < 1, "dropout fraction must be in [0, 1). Provided value: " + fraction);
    return new DropoutPlan() {
      private long[] draw;

      private synchronized long[] draws(int parties) {
        if (draw == null || draw.length != parties) {
          int count = (int) Math.floor(fraction * parties);
          SplittableRandom r = new SplittableRandom(seed);
          int[] order = Shuffle.permutation(parties, r);
          draw = new long[parties];
          Arrays.fill(draw, -1);
          for (int i = 0; i < count; i++) {
            draw[order[i]] = fixedStep >= 0 ? fixedStep : r.nextLong() >>> 1;
          }
        }
        return draw;
      }

      @Override
      public int dropsBefore(int party, int parties, int steps) {
        long d = draws(parties)[party];
        if (d < 0) {
          return -1;
        }
        return fixedStep >= 0 ? Math.min(fixedStep, steps - 1) : (int) (d % steps);
      }
    };
  }

  /** The given parties drop before the given step. */
  static DropoutPlan of(int[] parties, int step) {
    int[] sorted = parties.clone();
    Arrays.sort(sorted);
    return (party, n, steps) -> Arrays.binarySearch(sorted, party) >= 0 ? step : -1;
  }
}
