package dev.helmet.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The preset registry: the providers on the class path, as help, errors and the CLI see them. */
class PresetsTest {
  /** The grids that {@code helmet experiment run --preset} accepted before the registry, in their order. */
  private static final List<String> GRIDS = List.of("fig5", "fig6", "table2", "wd-dp-eps", "wd-dp-imbalance",
      "wd-dp-pl", "smm-fl", "smm-fl-batch", "smm-fl-gamma", "crosssilo-eps", "crosssilo-projection");
  /** The computed presets it accepted, each wired into the CLI by hand. */
  private static final List<String> COMPUTED = List.of("smm-sum", "crosssilo-sampling", "crosssilo-nodes",
      "crosssilo-groups");

  @Test
  void theRegistryListsEveryPresetTheCommandAcceptedInTheSameOrder() {
    assertEquals(GRIDS, Presets.NAMES);
    assertEquals(COMPUTED, Presets.COMPUTED);
    assertEquals(java.util.stream.Stream.concat(GRIDS.stream(), COMPUTED.stream()).toList(), Presets.ALL);
    assertEquals(Presets.ALL, Presets.all().stream().map(Preset::id).toList());
    for (String id : GRIDS) {
      assertTrue(Presets.named(id) instanceof GridPreset, id);
    }
    for (String id : COMPUTED) {
      assertTrue(Presets.named(id) instanceof ComputedPreset, id);
    }
    assertEquals(List.of("crosssilo-nodes", "crosssilo-projection"), Presets.networked(),
        "--network applies to these two only");
    assertEquals("crosssilo-nodes", Presets.named(" CrossSilo-Nodes ").id(), "case and blanks are ignored");
  }

  @Test
  void anUnknownPresetIsRefusedWithTheListOfRegisteredOnes() {
    var e = assertThrows(IllegalArgumentException.class, () -> Presets.named("fig9"));
    assertEquals("unknown preset fig9; presets: fig5, fig6, table2, wd-dp-eps, wd-dp-imbalance, wd-dp-pl, smm-fl, "
        + "smm-fl-batch, smm-fl-gamma, crosssilo-eps, crosssilo-projection, smm-sum, crosssilo-sampling, "
        + "crosssilo-nodes, crosssilo-groups", e.getMessage());
    var grid = assertThrows(IllegalArgumentException.class, () -> Presets.get("fig9", "mnist", true));
    assertEquals(e.getMessage(), grid.getMessage());
    var computed = assertThrows(IllegalArgumentException.class, () -> Presets.get("smm-sum", "mnist", true));
    assertEquals("smm-sum is not an experiment grid (run it with helmet experiment run --preset smm-sum)",
        computed.getMessage());
  }

  @Test
  void everyPresetSaysWhereItComesFromWhatItRunsOnAndWhatItWrites() {
    for (Preset p : Presets.all()) {
      assertTrue(!p.source().paper().isEmpty() && !p.source().figure().isEmpty(), p.id());
      assertEquals("results.csv", p.outputs().csv().get(0), p.id());
      assertEquals("report.md", p.outputs().report(), p.id());
      if (p instanceof GridPreset g) {
        assertEquals(Preset.Outputs.GRID, g.outputs(), p.id());
        assertNotNull(g.defaultDataset(), p.id());
      } else {
        assertNull(p.defaultDataset(), p.id() + " makes its own data");
        assertNull(p.claims(), p.id());
      }
    }
    assertEquals("breast-cancer", Presets.defaultDataset("wd-dp-eps"));
    assertEquals("boston-housing", Presets.defaultDataset("wd-dp-pl"));
    assertEquals("mnist", Presets.defaultDataset("smm-fl"));
    assertEquals(List.of("results.csv", "nodes.csv"), Presets.named("crosssilo-nodes").outputs().csv());
    assertEquals(List.of("results.csv", "nodes.csv"), Presets.named("crosssilo-nodes").network().outputs().csv());
  }

  /** The Skellam mixture paper's claims are the smm-fl presets' report section, and only theirs. */
  @Test
  void theClaimsSectionComesFromThePreset() {
    Claims smm = Presets.named("smm-fl").claims();
    assertNotNull(smm);
    for (String id : List.of("smm-fl-batch", "smm-fl-gamma")) {
      assertEquals(List.of(smm), Presets.claims(Presets.named(id)), id);
    }
    for (String id : List.of("fig5", "wd-dp-eps", "crosssilo-eps")) {
      assertEquals(List.of(), Presets.claims(Presets.named(id)), id);
    }
    assertEquals(List.of(smm), Presets.claims(null), "an experiment file is checked against every registered section");
  }
}
