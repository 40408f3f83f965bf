package dev.helmet.secagg.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SecAggSizingTest {

  /**
   * With the server as the only adversary and any number of declarable dropouts (m = 1), the
   * threshold must keep a gap of k/2 declared-dropped parties from being reconstructed: t >= k/2 +
   * 2. Values recomputed independently in Python (binomial tails with math.comb): 1000 parties,
   * 10 % dropouts: k = 28, t = 16; 30 %: k = 144, t = 74.
   */
  @Test
  void withoutColludersTheThresholdBlocksTheCut() {
    SecAggSizing.Choice c = SecAggSizing.choose(true, 1000, 0, 0.1, 1);
    assertFalse(c.complete());
    assertEquals(28, c.neighbours());
    assertEquals(16, c.threshold());
    assertEquals(c.neighbours() / 2 + 2, c.threshold());
    assertEquals(144, SecAggSizing.choose(true, 1000, 0, 0.3, 1).neighbours());
    // the complete graph cannot be cut: a strict majority suffices
    SecAggSizing.Choice all = SecAggSizing.choose(false, 100, 0, 0.3, 1);
    assertTrue(all.complete());
    assertEquals(50, all.threshold()); // floor(99 / 2) + 1
  }

  /**
   * With gamma = 0, a gap of k/2 parties the server declares dropped is reconstructible exactly
   * when t <= k/2 + 1 (every party in it has k/2 + 1 other neighbours): the next smaller threshold
   * is refused for that reason, and allowed once the contributor floor leaves no room for the gap.
   */
  @Test
  void theCutBoundIsWhatRaisesTheThreshold() {
    assertEquals(16, SecAggSizing.thresholdFor(28, 1000, 0, 0.1, 999));
    // with at most 13 declarable dropouts, fewer than a gap of 14, the strict majority is enough
    assertEquals(15, SecAggSizing.thresholdFor(28, 1000, 0, 0.1, 13));
    assertEquals(16, SecAggSizing.thresholdFor(28, 1000, 0, 0.1, 14));
  }

  /**
   * Recomputed independently in Python (binomial tails with math.comb, any k): 1000 parties, half
   * of whom may collude, 5 % dropouts, all parties required (m = n, nobody can be declared
   * dropped): k = 253, t = 221 for the unmasking bound alone; the Harary graph needs an even k: 254,
   * with t = 222. When the server may declare 50 parties dropped (m = 950), the cut bound needs
   * k = 396, t = 353.
   */
  @Test
  void halfThePartiesColludingNeedsLargerNeighbourhoodsAndThresholds() {
    SecAggSizing.Choice c = SecAggSizing.choose(true, 1000, 0.5, 0.05, 1000);
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

    SecAggSizing.Choice declarable = SecAggSizing.choose(true, 1000, 0.5, 0.05, 950);
    assertEquals(396, declarable.neighbours());
    assertEquals(353, declarable.threshold());
    double cut = 0;
    double[] gap = SecAggSizing.binomialPmf(declarable.neighbours() / 2, 0.5);
    for (int h = 0; h <= Math.min(declarable.neighbours() - declarable.threshold() + 1, 50); h++) {
      cut += gap[h];
    }
    assertTrue(1000 * cut <= SecAggSizing.SECURITY, String.valueOf(cut));
  }

  @Test
  void theCompleteGraphCountsColludersDeterministically() {
    SecAggSizing.Choice c = SecAggSizing.choose(false, 21, 0.5, 0.1, 1);
    // k = 20, at most 10 colluders: t = (20 + 10) / 2 + 1 = 16; 2 dropouts leave 18 >= 16
    assertEquals(20, c.neighbours());
    assertEquals(16, c.threshold());
  }

  @Test
  void impossibleCombinationsAreRefusedWithAClearMessage() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SecAggSizing.choose(true, 1000, 0.5, 0.3, 1));
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
