package dev.helmet.core.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.DataFormatException;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.testdata.TestData;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PartitionStrategyTest {
  private static final Dataset DIGITS = TestData.digits();

  private static void assertDisjoint(Partition p, int n) {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < p.count(); i++) {
      for (int r : p.indices(i)) {
        assertTrue(r >= 0 && r < n);
        assertTrue(seen.add(r), "row " + r + " held by two parties");
      }
    }
  }

  @Test
  void iidGivesEachPartyTheRequestedNumberOfDistinctRows() {
    Partition p = new PartitionStrategy.Iid(30, 50).split(DIGITS, new SplittableRandom(1));
    assertEquals(30, p.count());
    for (int i = 0; i < 30; i++) {
      assertEquals(50, p.size(i));
    }
    assertDisjoint(p, DIGITS.size());
  }

  /**
   * With replacement: more parties than the data has rows for, each with distinct rows of its own,
   * every row drawn about equally often, and the same partition for the same seed.
   */
  @Test
  void iidWithReplacementDrawsDistinctRowsPerPartyAndMayOutnumberTheData() {
    int parties = 2 * DIGITS.size();
    Partition p = new PartitionStrategy.IidWithReplacement(parties, 20).split(DIGITS, new SplittableRandom(1));
    assertEquals(parties, p.count());
    int[] held = new int[DIGITS.size()];
    for (int i = 0; i < parties; i++) {
      assertEquals(20, new HashSet<>(java.util.Arrays.stream(p.indices(i)).boxed().toList()).size());
      for (int r : p.indices(i)) {
        held[r]++;
      }
    }
    // Each row is held Binomial(parties, 20 / n) times: mean 40, sd about 6.3.
    int min = java.util.Arrays.stream(held).min().getAsInt();
    int max = java.util.Arrays.stream(held).max().getAsInt();
    assertTrue(min > 10 && max < 80, min + " .. " + max);
    Partition again = new PartitionStrategy.IidWithReplacement(parties, 20).split(DIGITS, new SplittableRandom(1));
    for (int i = 0; i < parties; i++) {
      org.junit.jupiter.api.Assertions.assertArrayEquals(p.indices(i), again.indices(i));
    }
    assertThrows(DataFormatException.class, () -> new PartitionStrategy.IidWithReplacement(2, DIGITS.size() + 1)
        .split(DIGITS, new SplittableRandom(1)));
  }

  @Test
  void iidWithoutPerPartyDealsOutAllRowsEvenly() {
    Partition p = new PartitionStrategy.Iid(100, 0).split(DIGITS, new SplittableRandom(1));
    assertEquals(DIGITS.size(), p.totalSize());
    assertTrue(p.maxSize() - p.minSize() <= 1);
    assertDisjoint(p, DIGITS.size());
  }

  @Test
  void iidIsReproducibleFromTheSeed() {
    Partition a = new PartitionStrategy.Iid(10, 5).split(DIGITS, new SplittableRandom(7));
    Partition b = new PartitionStrategy.Iid(10, 5).split(DIGITS, new SplittableRandom(7));
    for (int i = 0; i < 10; i++) {
      assertEquals(java.util.Arrays.toString(a.indices(i)), java.util.Arrays.toString(b.indices(i)));
    }
  }

  @Test
  void tooFewRowsIsAClearError() {
    DataFormatException e = assertThrows(DataFormatException.class,
        () -> new PartitionStrategy.Iid(100, 60).split(DIGITS, new SplittableRandom(1)));
    assertTrue(e.getMessage().contains("100 parties x 60 points need 6000 rows"), e.getMessage());
  }

  @Test
  void oneClassPerPartyGivesEachPartyASingleClassRoundRobin() {
    Partition p = new PartitionStrategy.OneClassPerParty(40, 20).split(DIGITS, new SplittableRandom(1));
    for (int i = 0; i < p.count(); i++) {
      for (int r : p.indices(i)) {
        assertEquals(i % 10, DIGITS.label(r));
      }
      assertEquals(20, p.size(i));
    }
    assertDisjoint(p, DIGITS.size());
    assertThrows(DataFormatException.class,
        () -> new PartitionStrategy.OneClassPerParty(20, 100).split(DIGITS, new SplittableRandom(1)));
  }

  @Test
  void dirichletWithSmallAlphaConcentratesLabelsAndKeepsSizes() {
    Partition p = new PartitionStrategy.Dirichlet(50, 30, 0.05).split(DIGITS, new SplittableRandom(3));
    assertDisjoint(p, DIGITS.size());
    double dominant = 0;
    for (int i = 0; i < p.count(); i++) {
      assertEquals(30, p.size(i));
      int[] c = new int[10];
      for (int r : p.indices(i)) {
        c[DIGITS.label(r)]++;
      }
      dominant += java.util.Arrays.stream(c).max().getAsInt() / 30.0;
    }
    // IID parties would have a largest class share near 0.2; alpha = 0.05 gives mostly one class.
    assertTrue(dominant / p.count() > 0.6, "mean largest class share " + dominant / p.count());
  }

  @Test
  void unevenMakesTwoGroupsWithTheRatio() {
    Partition p = new PartitionStrategy.Uneven(10, 20, 4, 0.5).split(DIGITS, new SplittableRandom(1));
    assertEquals(80, p.maxSize());
    assertEquals(20, p.minSize());
    assertEquals(5 * 80 + 5 * 20, p.totalSize());
    assertDisjoint(p, DIGITS.size());
  }

  @Test
  void naturalPartitionFollowsThePartyColumn() {
    float[] f = new float[5];
    Dataset d = new Dataset("n", f, new int[] {0, 1, 0, 1, 0}, 1, LabelSet.ofIntegers(2),
        new String[] {"10", "2", "10", "2", "3"});
    Partition p = new PartitionStrategy.Natural().split(d, new SplittableRandom(1));
    assertEquals(3, p.count());
    assertEquals("[1, 3]", java.util.Arrays.toString(p.indices(0))); // party "2" sorts first numerically
    assertEquals("[0, 2]", java.util.Arrays.toString(p.indices(2)));
    assertThrows(DataFormatException.class, () -> new PartitionStrategy.Natural().split(DIGITS, new SplittableRandom(1)));
  }
}
