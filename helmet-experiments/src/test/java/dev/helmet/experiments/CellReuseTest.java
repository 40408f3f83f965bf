package dev.helmet.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.helmet.core.util.Progress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --reuse: a sweep takes the cells another experiment already ran as the same runs, and only those. */
class CellReuseTest {
  private static final String DPFL = "{dpfl: {learning_rate: 2, grad_clip: 1, epochs: 1, sampling_rate: 0.2}}";

  /** A grid at eps 1 and 5: helmet at two lambdas and dp-fl. */
  private static final String GRID = GridFixtures.smallGrid("grid", "[5]", DPFL);

  /** A sweep at eps 5: the grid's dp-fl point under another name, and a learning rate the grid lacks. */
  private static String sweep(String epsilons, int perParty) {
    return String.join("\n",
        "name: sweep",
        "dataset: mnist",
        "parties: [5]",
        "per_party: " + perParty,
        "epsilons: " + epsilons,
        "repeats: 2",
        "variants:",
        "  - name: dp-fl@2",
        "    algorithm: dp-fl",
        "    summation: simulated",
        "    settings: " + DPFL,
        "  - name: dp-fl@1",
        "    algorithm: dp-fl",
        "    summation: simulated",
        "    settings: {dpfl: {learning_rate: 1, grad_clip: 1, epochs: 1, sampling_rate: 0.2}}",
        "  - name: helmet@2",
        "    algorithm: helmet",
        "    settings: " + DPFL.replace("dpfl", "learner").replace("learning_rate: 2, grad_clip: 1, epochs: 1, "
            + "sampling_rate: 0.2", "kind: softmax, lambda: 1, epochs: 3"),
        "");
  }

  private static ExperimentConfig parse(String yaml) throws Exception {
    return ExperimentConfig.parse(new ObjectMapper(new YAMLFactory()).readTree(yaml), "test.yaml");
  }

  private static ExperimentRunner.Settings settings(Path out) {
    return new ExperimentRunner.Settings(out, out, 1, Progress.NONE, id -> GridFixtures.DIGITS).withTestNoiseSeed(5);
  }

  @Test
  void theSameRunsAreTakenRenamedAndMarkedAndTheOthersRun(@TempDir Path dir) throws Exception {
    ExperimentRunner.Summary grid = ExperimentRunner.run(parse(GRID), settings(dir.resolve("grid")));
    ExperimentConfig c = parse(sweep("[5]", 30));
    ExperimentRunner.Summary s = ExperimentRunner.run(c, settings(dir.resolve("sweep")).reusing(
        List.of(dir.resolve("grid"))));
    // dp-fl@2 is the grid's dp-fl (2 repeats); helmet at lambda 1 is the grid's helmet-softmax point
    // lambda 1 (2 repeats); dp-fl@1 is new (2 repeats).
    assertEquals(6, s.cells());
    assertEquals(4, s.reused());
    assertEquals(2, s.ran());
    assertEquals(4, s.times().reused());
    TreeSet<String> taken = s.rows().stream().filter(r -> !r.variant().equals("dp-fl@1"))
        .map(r -> GridFixtures.allColumns(r).replaceFirst("^[^/]+/", ""))
        .collect(Collectors.toCollection(TreeSet::new));
    TreeSet<String> there = grid.rows().stream().filter(r -> r.targetEps() == 5 && (r.variant().equals("dp-fl")
            || r.lambda() == 1))
        .map(r -> GridFixtures.allColumns(r).replaceFirst("^[^/]+/", ""))
        .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(there, taken, "the grid's eps 5 rows of those points, bit for bit");
    assertEquals(4, there.size());
    assertTrue(s.rows().stream().allMatch(r -> r.targetEps() == 5), "only this experiment's eps");
    assertTrue(s.rows().stream().map(Row::variant).collect(Collectors.toSet()).containsAll(
        List.of("dp-fl@2", "helmet@2", "dp-fl@1")), "renamed to this experiment's variants");
    List<String> lines = Files.readAllLines(dir.resolve("sweep/cells.jsonl"));
    assertEquals(4, lines.stream().filter(l -> l.contains("\"reused_from\":\"grid iid/5/")).count(), lines.toString());
    assertEquals(2, lines.stream().filter(l -> l.contains("\"seconds\":")).count());
    // Resumed: every cell is kept; the report says what was taken.
    ExperimentRunner.Summary again = ExperimentRunner.run(c, settings(dir.resolve("sweep")));
    assertEquals(0, again.ran());
    assertEquals(6, again.skipped());
    assertEquals(4, again.times().reused());
    Report.write(c, again.rows(), dir.resolve("sweep"), "test", again.seconds(), again.times());
    String md = Files.readString(dir.resolve("sweep/report.md"));
    assertTrue(md.contains("4 cells were taken from another experiment's folder"), md);
    // The donor folder gone: a finished run still resumes (nothing is left to take).
    ExperimentRunner.Summary moved = ExperimentRunner.run(c, settings(dir.resolve("sweep")).reusing(
        List.of(dir.resolve("gone"))));
    assertEquals(6, moved.skipped());
  }

  @Test
  void aDonorCellIsTakenOnceAndTheOutputFolderIsNoDonor(@TempDir Path dir) throws Exception {
    ExperimentRunner.run(parse(GRID), settings(dir.resolve("grid")));
    // Two variants that are the same run of the grid's dp-fl: one takes it, the other runs.
    String twice = sweep("[5]", 30).replace("  - name: dp-fl@1", "  - name: dp-fl-again\n"
        + "    algorithm: dp-fl\n    summation: simulated\n    settings: " + DPFL + "\n  - name: dp-fl@1");
    ExperimentRunner.Summary s = ExperimentRunner.run(parse(twice), settings(dir.resolve("twice")).reusing(
        List.of(dir.resolve("grid"))));
    assertEquals(8, s.cells());
    assertEquals(4, s.reused(), "dp-fl (2 repeats) once, helmet lambda 1 (2 repeats)");
    assertEquals(4, s.ran());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExperimentRunner.run(
        parse(GRID.replace("repeats: 2", "repeats: 3")), settings(dir.resolve("grid")).reusing(
            List.of(dir.resolve("grid")))));
    assertTrue(e.getMessage().contains("is the output folder itself"), e.getMessage());
  }

  @Test
  void nothingIsTakenWithoutARowAtEachEpsOrFromOtherData(@TempDir Path dir) throws Exception {
    ExperimentRunner.run(parse(GRID), settings(dir.resolve("grid")));
    ExperimentRunner.Summary s = ExperimentRunner.run(parse(sweep("[2, 5]", 30)), settings(dir.resolve("a"))
        .reusing(List.of(dir.resolve("grid"))));
    assertEquals(0, s.reused(), "the grid has no eps 2 rows");
    assertEquals(6, s.ran());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExperimentRunner.run(
        parse(sweep("[5]", 20)), settings(dir.resolve("b")).reusing(List.of(dir.resolve("grid")))));
    assertTrue(e.getMessage().contains("differs in per_party"), e.getMessage());
    assertTrue(!Files.exists(dir.resolve("b/cells.jsonl")) || Files.readAllLines(dir.resolve("b/cells.jsonl"))
        .isEmpty(), "nothing recorded");
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> ExperimentRunner.run(
        parse(sweep("[5]", 30)), settings(dir.resolve("c")).reusing(List.of(dir.resolve("nothing")))));
    assertTrue(none.getMessage().contains("holds no experiment"), none.getMessage());
  }
}
