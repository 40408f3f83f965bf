package dev.helmet.experiments.crosssilo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.util.Progress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The grid of Heikkila et al.'s Fig. 1 as {@link SamplingFraction} lays it out. */
class SamplingFractionTest {
  @Test
  void theRecordsSweepIsOneHundredDistinctIntegersFromOnePercentToHalfOfN() {
    SamplingFraction.Grid g = SamplingFraction.grid(false);
    int[] p = SamplingFraction.recordPoints(g);
    assertEquals(100, p.length);
    assertEquals(500, p[0]);
    assertEquals(25_000, p[99]);
    for (int i = 1; i < p.length; i++) {
      assertTrue(p[i] > p[i - 1], "increasing at " + i);
    }
    List<Integer> eq = SamplingFraction.equivalentIndices(g);
    assertEquals(10, eq.size());
    assertTrue(eq.contains(0) && eq.contains(99), eq.toString());
    assertEquals(List.of(0, 2, 4), SamplingFraction.equivalentIndices(SamplingFraction.grid(true)));
  }

  @Test
  void theCoalitionOfTColludersAndTheObserverHoldsTPlusOneShares() {
    assertEquals(1563, SamplingFraction.coalitionRecords(0, 32, 50_000), "1562.5 rounded up");
    assertEquals(6250, SamplingFraction.coalitionRecords(3, 32, 50_000));
    assertEquals(25_000, SamplingFraction.coalitionRecords(15, 32, 50_000));
  }

  /** The closed-form curves alone (no exact mixture): a grid with no equivalent points. */
  @Test
  void slackCurvesLieBetweenPoissonAndTheWorstCaseAndShrinkAsTheSlackGrows() {
    SamplingFraction.Grid g = new SamplingFraction.Grid(50_000, List.of(500), 500, 25_000, 7,
        List.of(1e-15, 1e-10, 1e-5), 0, List.of(), 32, List.of(0, 15), List.of(), 1.0, 1250, 1e-5);
    List<SamplingFraction.Row> rows = SamplingFraction.run(g, 1, Progress.NONE);
    assertEquals(9, rows.size());
    for (SamplingFraction.Row r : rows) {
      assertTrue(!r.hasEquivalent());
      assertTrue(r.poisson() <= r.slack()[2] && r.slack()[2] <= r.slack()[1] && r.slack()[1] <= r.slack()[0]
          && r.slack()[0] <= r.worst(), r.toString());
    }
    assertEquals("1e-5", SamplingFraction.slackLabel(1e-5));
    assertEquals("1e-15", SamplingFraction.slackLabel(1e-15));
  }
}
