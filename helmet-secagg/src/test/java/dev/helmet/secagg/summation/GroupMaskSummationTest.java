package dev.helmet.secagg.summation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.secagg.ring.BitPacking;
import dev.helmet.secagg.summation.GroupMaskSummation.Graph;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.commons.statistics.distribution.ChiSquaredDistribution;
import org.junit.jupiter.api.Test;

class GroupMaskSummationTest {

  private static long[][] inputs(int n, int d, int bits, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    long[][] x = new long[n][d];
    for (long[] v : x) {
      for (int i = 0; i < d; i++) {
        v[i] = r.nextLong() & mask;
      }
    }
    return x;
  }

  private static long[] plainSum(long[][] x, List<Integer> who, int bits) {
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    long[] s = new long[x[0].length];
    for (int u : who) {
      for (int i = 0; i < s.length; i++) {
        s[i] = (s[i] + x[u][i]) & mask;
      }
    }
    return s;
  }

  private static List<Integer> all(int n) {
    return java.util.stream.IntStream.range(0, n).boxed().toList();
  }

  @Test
  void disjointGroupsSumExactlyForSeveralPartyCountsGroupSizesAndRings() {
    int[][] cases = {{2, 2}, {6, 2}, {6, 3}, {6, 6}, {8, 4}, {12, 2}, {12, 12}};
    for (int[] c : cases) {
      for (int bits : new int[] {2, 6, 32, 64}) {
        int n = c[0];
        int d = 29;
        long[][] x = inputs(n, d, bits, 31L * n + bits);
        SummationOutcome o = new GroupMaskSummation(c[1], Graph.DISJOINT, DropoutPlan.NONE, 2)
            .run(SummationSpec.ofRingElements(n, d, bits, n), u -> x[u]);
        assertEquals(SummationOutcome.Status.COMPLETED, o.status(), o.abortReason());
        assertArrayEquals(plainSum(x, all(n), bits), o.sum(), "N " + n + ", g " + c[1] + ", b " + bits);
        assertEquals(all(n), o.contributors());
      }
    }
  }

  @Test
  void hararyMaskGraphsSumExactlyIncludingTheCompleteGraph() {
    int[][] cases = {{5, 3}, {7, 3}, {9, 5}, {10, 3}, {4, 4}, {6, 6}, {3, 3}};
    for (int[] c : cases) {
      for (int bits : new int[] {3, 8, 32}) {
        int n = c[0];
        long[][] x = inputs(n, 17, bits, 7L * n + bits);
        SummationOutcome o = new GroupMaskSummation(c[1], Graph.HARARY, DropoutPlan.NONE, 2)
            .run(SummationSpec.ofRingElements(n, 17, bits, n), u -> x[u]);
        assertEquals(SummationOutcome.Status.COMPLETED, o.status(), o.abortReason());
        assertArrayEquals(plainSum(x, all(n), bits), o.sum(), "N " + n + ", g " + c[1] + ", b " + bits);
      }
    }
  }

  @Test
  void laterRoundsUseFreshMasksAndStillSumExactly() {
    GroupMaskSummation s = new GroupMaskSummation(3, Graph.DISJOINT);
    SummationSpec spec = SummationSpec.ofRingElements(6, 40, 32, 6);
    long[][] x = inputs(6, 40, 32, 5);
    GroupMaskSummation.Round first = s.maskRound(spec, u -> x[u], dev.helmet.core.util.Progress.NONE);
    GroupMaskSummation.Round second = s.maskRound(spec, u -> x[u], dev.helmet.core.util.Progress.NONE);
    assertEquals(0, first.number());
    assertEquals(1, second.number());
    assertTrue(first.setup());
    assertFalse(second.setup());
    for (int u = 0; u < 6; u++) {
      // the same input in two rounds: masks that were reused would give identical messages
      assertFalse(Arrays.equals(first.packed()[u], second.packed()[u]), "party " + u);
    }
    SummationOutcome third = s.run(spec, u -> x[u]);
    assertEquals(2L, third.parameters().get("round"));
    assertArrayEquals(plainSum(x, all(6), 32), third.sum());
  }

  @Test
  void aGroupSizeThatDoesNotDivideThePartiesIsRefusedWithBothNumbers() {
    GroupMaskSummation s = new GroupMaskSummation(4, Graph.DISJOINT);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> s.run(SummationSpec.ofRingElements(10, 3, 16, 10), u -> new long[3]));
    assertEquals("group size g must divide the number of parties N for disjoint groups. Provided values: g = 4, "
        + "N = 10 (N mod g = 2)", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> s.revealedGroups(10));
    assertThrows(IllegalArgumentException.class, () -> new GroupMaskSummation(1, Graph.DISJOINT));
    IllegalArgumentException big = assertThrows(IllegalArgumentException.class, () -> s.checkParties(3));
    assertTrue(big.getMessage().contains("g = 4, N = 3"), big.getMessage());
  }

  @Test
  void aHararyGraphWithAnOddDegreeIsRefused() {
    // the existing Harary construction joins k/2 ring neighbours on each side: k = g - 1 even
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new GroupMaskSummation(4, Graph.HARARY).checkParties(10));
    assertTrue(e.getMessage().contains("odd group size g >= 3"), e.getMessage());
    new GroupMaskSummation(4, Graph.HARARY).checkParties(4); // g = N: the complete graph
  }

  /**
   * Documents the leak of the paper's groups (design note, doubt 8): with disjoint groups the masks
   * cancel inside each group, so the aggregator recovers every group's plain sum from the messages
   * it receives, and {@code revealedGroups} says exactly which sets these are.
   */
  @Test
  void disjointGroupsLetTheAggregatorRecoverEveryGroupSum() {
    int n = 12;
    int g = 4;
    int bits = 32;
    GroupMaskSummation s = new GroupMaskSummation(g, Graph.DISJOINT);
    SummationSpec spec = SummationSpec.ofRingElements(n, 25, bits, n);
    long[][] x = inputs(n, 25, bits, 12);
    GroupMaskSummation.Round round = s.maskRound(spec, u -> x[u], dev.helmet.core.util.Progress.NONE);
    List<List<Integer>> groups = s.revealedGroups(n);
    assertEquals(List.of(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7), List.of(8, 9, 10, 11)), groups);
    assertEquals(g, s.smallestRevealedGroup(n));
    for (List<Integer> group : groups) {
      long[] seen = new long[25];
      for (int u : group) {
        BitPacking.addInto(seen, round.packed()[u], bits);
      }
      assertArrayEquals(plainSum(x, group, bits), seen, "group " + group);
    }
    // a single message is masked (not the input)
    assertFalse(Arrays.equals(x[0], BitPacking.unpack(round.packed()[0], 25, bits)));
  }

  /**
   * The Harary graph is connected, so no proper subset of honest parties has masks that cancel: for
   * every party u, the messages of u and its mask neighbours (u's "group") do not sum to their plain
   * sum. With b = 32 and 25 elements a chance match has probability 2^-800 per set.
   */
  @Test
  void hararyNeighbourhoodsDoNotRevealTheirSums() {
    int n = 15;
    int g = 5;
    GroupMaskSummation s = new GroupMaskSummation(g, Graph.HARARY);
    SummationSpec spec = SummationSpec.ofRingElements(n, 25, 32, n);
    long[][] x = inputs(n, 25, 32, 15);
    GroupMaskSummation.Round round = s.maskRound(spec, u -> x[u], dev.helmet.core.util.Progress.NONE);
    assertEquals(List.of(all(n)), s.revealedGroups(n));
    assertEquals(n, s.smallestRevealedGroup(n));
    List<List<Integer>> candidates = new java.util.ArrayList<>();
    candidates.add(List.of(0, 1, 2, 3, 4)); // the would-be disjoint group of consecutive ids
    candidates.add(all(n - 1)); // everyone but one party
    for (int u = 0; u < n; u++) {
      int[] nb = s.maskNeighbours(u);
      assertEquals(g - 1, nb.length);
      List<Integer> set = new java.util.ArrayList<>(List.of(u));
      for (int v : nb) {
        set.add(v);
      }
      candidates.add(set);
    }
    for (List<Integer> set : candidates) {
      long[] seen = new long[25];
      for (int u : set) {
        BitPacking.addInto(seen, round.packed()[u], 32);
      }
      assertFalse(Arrays.equals(plainSum(x, set, 32), seen), "set " + set);
    }
    long[] total = new long[25];
    for (byte[] m : round.packed()) {
      BitPacking.addInto(total, m, 32);
    }
    assertArrayEquals(plainSum(x, all(n), 32), total);
  }

  @Test
  void aMissingGroupMemberAbortsTheRoundNamingItsGroup() {
    SummationOutcome o = new GroupMaskSummation(4, Graph.DISJOINT, DropoutPlan.of(new int[] {5}, 0), 2)
        .run(SummationSpec.ofRingElements(8, 3, 16, 1), u -> new long[] {1, 2, 3});
    assertEquals(SummationOutcome.Status.ABORTED, o.status());
    assertNull(o.sum());
    assertTrue(o.abortReason().startsWith("MISSING_GROUP_MEMBER: party 5 (group 1: parties 4..7) sent no masked input"),
        o.abortReason());
    assertEquals(List.of(new SummationOutcome.Drop(5, "MASKED_INPUT", "MISSING_GROUP_MEMBER",
        "no message from party 5 (group 1: parties 4..7)")), o.dropped());

    SummationOutcome h = new GroupMaskSummation(3, Graph.HARARY, DropoutPlan.of(new int[] {2}, 0), 1)
        .run(SummationSpec.ofRingElements(7, 3, 16, 1), u -> new long[] {1, 2, 3});
    assertEquals(SummationOutcome.Status.ABORTED, h.status());
    assertTrue(h.abortReason().startsWith("MISSING_GROUP_MEMBER: party 2 (mask neighbours ["), h.abortReason());

    // a malformed input aborts too: the party's masks would not cancel
    long[][] x = {{1, 2, 3}, {1, 2}};
    SummationOutcome m = new GroupMaskSummation(2, Graph.DISJOINT).run(SummationSpec.ofRingElements(2, 3, 16, 1),
        u -> x[u]);
    assertEquals(SummationOutcome.Status.ABORTED, m.status());
    assertTrue(m.abortReason().contains("party 1 (group 0: parties 0..1) sent a malformed input (vector of length 2, "
        + "expected 3)"), m.abortReason());
  }

  /**
   * A masked input is uniform whatever the input: an all-zero input of 60,000 elements of Z_{2^8}
   * with one mask (g = 2) passes a chi-square test over the 256 values at the 1e-7 quantile
   * (false-failure rate 1e-7 per party; two parties).
   */
  @Test
  void maskedInputsAreUniformOnASmallRing() {
    int d = 60_000;
    GroupMaskSummation s = new GroupMaskSummation(2, Graph.DISJOINT);
    GroupMaskSummation.Round round = s.maskRound(SummationSpec.ofRingElements(2, d, 8, 2), u -> new long[d],
        dev.helmet.core.util.Progress.NONE);
    double crit = ChiSquaredDistribution.of(255).inverseSurvivalProbability(1e-7);
    for (int u = 0; u < 2; u++) {
      long[] c = new long[256];
      for (long v : BitPacking.unpack(round.packed()[u], d, 8)) {
        c[(int) v]++;
      }
      double e = d / 256.0;
      double chi2 = 0;
      for (long k : c) {
        chi2 += (k - e) * (k - e) / e;
      }
      assertTrue(chi2 < crit, "party " + u + ": chi2 " + chi2 + " >= " + crit);
    }
  }

  /**
   * Costs: one masked, bit-packed message per party per round (header 13 bytes + ceil(d b / 8)),
   * plus the key exchange in the setup round (one key sent, g - 1 received, 13 + 32 bytes each).
   */
  @Test
  void reportsBytesSecondsProfileAndParameters() {
    GroupMaskSummation s = new GroupMaskSummation(4, Graph.DISJOINT, DropoutPlan.NONE, 2);
    SummationSpec spec = SummationSpec.ofRingElements(8, 1000, 20, 8);
    SummationOutcome setup = s.run(spec, u -> new long[1000]);
    SummationOutcome next = s.run(spec, u -> new long[1000]);
    assertEquals(13 + 2500 + 4 * 45, setup.bytesPerParty());
    assertEquals(13 + 2500, next.bytesPerParty());
    assertEquals(8 * (13 + 2500) + 2500, next.serverBytes());
    assertEquals("disjoint", next.parameters().get("graph"));
    assertEquals(4, next.parameters().get("group_size"));
    assertEquals(2, next.parameters().get("groups"));
    assertEquals(4, next.parameters().get("revealed_group_size"));
    assertTrue(setup.profile().get("key_agreement") > 0);
    assertEquals(0.0, next.profile().get("key_agreement"));
    assertTrue(next.profile().get("prg") > 0);
    assertTrue(next.partySeconds() > 0 && next.serverSeconds() > 0);
    assertEquals("groups", s.name());
    assertEquals("harary", new GroupMaskSummation(3, Graph.HARARY).name());
  }
}
