package dev.helmet.secagg.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SecAggSizingTest {

  /** With the server as the only adversary the threshold is a strict majority. */
  @Test
  void withoutColludersTheThresholdIsAMajority() {
    SecAggSizing.Choice c = SecAggSizing.choose(true, 1000, 0, 0.1);
    assertFalse(c.complete());
    assertEquals(24, c.neighbours());
    assertEquals(13, c.threshold());
    assertEquals(134, SecAggSizing.choose(true, 1000, 0, 0.3).neighbours());
    SecAggSizing.Choice all = SecAggSizing.choose(false, 100, 0, 0.3);
    assertTrue(all.complete());
    assertEquals(50, all.threshold()); // floor(99 / 2) + 1
  }

  /**
   * Recomputed independently in Python (binomial tails with math.comb, any k): 1000 parties, half
   * of whom may collude, 5 % dropouts: k = 253, t = 221. The Harary graph needs an even k: 254,
   * with t = 222.
   */
  @Test
  void halfThePartiesColludingNeedsLargerNeighbourhoodsAndThresholds() {
    SecAggSizing.Choice c = SecAggSizing.choose(true, 1000, 0.5, 0.05);
    assertEquals(254, c.neighbours());
    assertEquals(222, c.threshold());
    assertTrue(c.threshold() > 0.75 * c.neighbours(), "t above (1 + gamma) k / 2");
    // the bounds the choice promises
    double unsafe = 0;
    double[] pmf = SecAggSizing.binomialPmf(c.neighbours(), 0.5);
    for (int m = 2 * c.threshold() - c.neighbours(); m <= c.neighbours(); m++) {
      unsafe += pmf[m];
    }
    assertTrue(1000 * unsafe <= SecAggSizing.SECURITY, String.valueOf(unsafe));
  }

  @Test
  void theCompleteGraphCountsColludersDeterministically() {
    SecAggSizing.Choice c = SecAggSizing.choose(false, 21, 0.5, 0.1);
    // k = 20, at most 10 colluders: t = (20 + 10) / 2 + 1 = 16; 2 dropouts leave 18 >= 16
    assertEquals(20, c.neighbours());
    assertEquals(16, c.threshold());
  }

  @Test
  void impossibleCombinationsAreRefusedWithAClearMessage() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SecAggSizing.choose(true, 1000, 0.5, 0.3));
    assertTrue(e.getMessage().contains("cannot tolerate 30 % dropouts when 50 % of the parties may collude"),
        e.getMessage());
  }

  @Test
  void binomialProbabilitiesSumToOne() {
    for (double p : new double[] {0, 0.3, 0.5, 0.95, 1}) {
      double s = 0;
      for (double v : SecAggSizing.binomialPmf(300, p)) {
        s += v;
      }
      assertEquals(1, s, 1e-9);
    }
  }
}
