package dev.helmet.experiments.crosssilo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.util.Progress;
import dev.helmet.experiments.Presets;
import dev.helmet.experiments.crosssilo.GroupMaskTiming.Setting;
import dev.helmet.experiments.crosssilo.SummationTiming.Run;
import dev.helmet.experiments.crosssilo.SummationTiming.Spread;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The timing presets of Heikkila et al.'s Figs. 3 and 5 ({@link ComputeNodesTiming}, {@link
 * GroupMaskTiming}): their grids, the honest noise factor, and small runs that must release exact
 * sums with the bytes the protocols promise.
 */
class TimingPresetsTest {
  @Test
  void theMlpOfFigures3And5Has1001794ParametersWithBiases() {
    assertEquals(1_001_794, ComputeNodesTiming.MLP_PARAMETERS);
    ComputeNodesTiming.Grid full = ComputeNodesTiming.grid(false);
    assertEquals(List.of(100, 1_001_794, 32, 5), List.of(full.parties(), full.length(), full.ringBits(),
        full.repeats()));
    assertEquals(List.of(2, 4, 8), full.nodes());
    assertEquals(List.of(2, 3), ComputeNodesTiming.grid(true).nodes());
  }

  @Test
  void inputsAreReproducibleOnePartyAtATimeAndTheReferenceIsTheirRingSum() {
    SummationTiming.Inputs in = new SummationTiming.Inputs(3, 50, 8, 7);
    assertArrayEquals(in.party(1), in.party(1));
    assertFalse(java.util.Arrays.equals(in.party(0), in.party(1)));
    long[] expected = new long[50];
    for (int i = 0; i < 3; i++) {
      long[] x = in.party(i);
      for (int j = 0; j < 50; j++) {
        assertTrue(x[j] >= 0 && x[j] < 256);
        expected[j] = (expected[j] + x[j]) % 256;
      }
    }
    assertArrayEquals(expected, in.reference().sum());
  }

  @Test
  void spreadIsTheMedianAndTheRange() {
    assertEquals(new Spread(2, 1, 9), Spread.of(new double[] {9, 1, 2}));
    assertEquals(new Spread(2.5, 1, 9), Spread.of(new double[] {9, 1, 2, 3}));
  }

  /**
   * DCA sends M - 1 shares as seed messages of 13 + 32 bytes and the last share packed: bytes per
   * party grow by 45 per node, flat next to the 4 * d bytes of the vector.
   */
  @Test
  void quickNodesRunIsExactAndBytesPerPartyStayFlatInM() {
    ComputeNodesTiming.Result r = ComputeNodesTiming.run(ComputeNodesTiming.grid(true), 1, Progress.NONE);
    assertEquals(3, r.configs().size());
    long packed = 4L * 10_000;
    assertEquals(packed, r.plain().runs().get(0).bytesPerParty());
    for (ComputeNodesTiming.Config c : r.dca()) {
      Run run = c.runs().get(0);
      assertTrue(run.exact());
      assertEquals(packed + 13 + (c.nodes() - 1) * 45L, run.bytesPerParty(), c.label());
      assertEquals(c.nodes(), run.nodes().size());
      assertTrue(run.wallSeconds() > 0 && run.partySeconds() > 0 && run.seedNodeSeconds() > 0
          && run.lastNodeSeconds() > 0, run.toString());
      assertEquals(10 * (packed + 13), run.nodes().get(c.nodes() - 1).bytesIn(), "node M receives every last share");
    }
    assertTrue(r.fold(r.plain()) == 1.0);
  }

  @Test
  void theLinearFitRecoversALine() {
    ComputeNodesTiming.Grid g = new ComputeNodesTiming.Grid(2, 1, 32, List.of(2, 4, 8), 1, 1);
    java.util.function.IntFunction<ComputeNodesTiming.Config> at = m -> new ComputeNodesTiming.Config("dca", m,
        List.of(new Run(0, 1 + 0.5 * m, 0, 0, 0, List.of(), 0, 0, true, java.util.Map.of())));
    ComputeNodesTiming.Result r = new ComputeNodesTiming.Result(g, 1, 0, List.of(at.apply(2), at.apply(4),
        at.apply(8)), 0, 0);
    double[] fit = ComputeNodesTiming.linearFit(r);
    assertEquals(0.5, fit[0], 1e-12);
    assertEquals(1, fit[1], 1e-12);
    assertEquals(1, fit[2], 1e-12);
  }

  /** Fig. 5's grid: g in {2, 16, N}, g <= N, g | N, Harary only where it exists (g odd or g = N). */
  @Test
  void theGroupsGridHasEveryValidNAndG() {
    List<String> s = GroupMaskTiming.settings(GroupMaskTiming.grid(false)).stream()
        .map(x -> x.summation() + "/" + x.parties() + "/" + x.groupSize()).toList();
    assertEquals(List.of("plain/2/2", "groups/2/2", "harary/2/2", "plain/16/16", "groups/16/2", "groups/16/16",
        "harary/16/16", "plain/32/32", "groups/32/2", "groups/32/16", "groups/32/32", "harary/32/32"), s);
    List<String> odd = GroupMaskTiming.settings(new GroupMaskTiming.Grid(List.of(9), List.of(3, 2), 10, 32, 0, 1, 1))
        .stream().map(x -> x.summation() + "/" + x.groupSize()).toList();
    assertEquals(List.of("plain/9", "groups/3", "harary/3"), odd, "2 does not divide 9; 3 is odd");
  }

  /** Design note doubt 8: N/(g - T - 1) for disjoint groups against N/(N - T - 1) for the total only. */
  @Test
  void theHonestNoiseFactorIsNOverGMinusTMinusOne() {
    assertEquals(32, GroupMaskTiming.noiseFactor(new Setting("groups", 32, 2), 0), 1e-12);
    assertEquals(32.0 / 15, GroupMaskTiming.noiseFactor(new Setting("groups", 32, 16), 0), 1e-12);
    assertEquals(32.0 / 31, GroupMaskTiming.noiseFactor(new Setting("groups", 32, 32), 0), 1e-12);
    assertEquals(32.0 / 31, GroupMaskTiming.noiseFactor(new Setting("harary", 32, 32), 0), 1e-12);
    assertEquals(32.0 / 13, GroupMaskTiming.noiseFactor(new Setting("groups", 32, 16), 2), 1e-12);
    assertEquals(32.0 / 31, GroupMaskTiming.totalOnlyFactor(32, 0), 1e-12);
    assertTrue(Double.isNaN(GroupMaskTiming.noiseFactor(new Setting("groups", 32, 2), 1)), "a colluder fills g = 2");
    assertEquals(10.0 / 7, GroupMaskTiming.noiseFactor(new Setting("harary", 10, 5), 2), 1e-12);
    assertTrue(Double.isNaN(GroupMaskTiming.noiseFactor(new Setting("harary", 10, 5), 3)), "T + 1 = 4 can "
        + "disconnect a 4-connected graph");
    assertTrue(Double.isNaN(GroupMaskTiming.noiseFactor(new Setting("plain", 4, 4), 0)));
  }

  @Test
  void quickGroupsRunIsExactWithOneVectorPerPartyPerRound() {
    GroupMaskTiming.Result r = GroupMaskTiming.run(GroupMaskTiming.grid(true), 1, Progress.NONE);
    assertEquals(7, r.configs().size());
    for (GroupMaskTiming.Config c : r.configs()) {
      Run run = c.runs().get(0);
      assertTrue(run.exact() && run.wallSeconds() > 0, c.toString());
      assertEquals(c.setting().plain() ? 40_000 : 40_013, run.bytesPerParty(), c.setting().toString());
      assertEquals(c.setting().plain() ? 0 : 45L * c.setting().groupSize(), c.setupBytesPerParty());
    }
  }

  @Test
  void theTimingPresetsAreComputationsNotGrids() {
    assertTrue(Presets.ALL.containsAll(List.of("crosssilo-nodes", "crosssilo-groups")));
    var e = assertThrows(IllegalArgumentException.class, () -> Presets.get("crosssilo-nodes", "mnist", true));
    assertTrue(e.getMessage().contains("is not an experiment grid"), e.getMessage());
  }
}
