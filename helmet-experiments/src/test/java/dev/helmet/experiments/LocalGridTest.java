package dev.helmet.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.helmet.core.data.BuiltinDataset;
import dev.helmet.core.util.Progress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several cells at once on the local grid: the rows of one cell at a time, every cell recorded. */
class LocalGridTest {
  private static final BuiltinDataset.TrainTest DIGITS = GridFixtures.DIGITS;

  private static final String SMALL = GridFixtures.smallGrid("small", "[5, 10]",
      "{dpfl: {learning_rate: 2, grad_clip: 1, epochs: 1, sampling_rate: 'min(1, 30 / records)'}}");

  private static ExperimentRunner.Settings settings(Path out) {
    return new ExperimentRunner.Settings(out, out, 1, Progress.NONE, id -> DIGITS).withTestNoiseSeed(3);
  }

  @Test
  void cellsAtOnceGiveTheRowsOfOneAtATimeInEveryColumn(@TempDir Path dir) throws Exception {
    ExperimentConfig c = ExperimentConfig.parse(new ObjectMapper(new YAMLFactory()).readTree(SMALL), "small.yaml");
    ExperimentRunner.Summary one = ExperimentRunner.run(c, settings(dir.resolve("one")));
    ExperimentRunner.Summary three = ExperimentRunner.run(c, settings(dir.resolve("three")).on(new LocalGrid(3)));
    TreeSet<String> a = one.rows().stream().map(GridFixtures::allColumns).collect(Collectors.toCollection(TreeSet::new));
    TreeSet<String> b = three.rows().stream().map(GridFixtures::allColumns).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(one.rows().size(), a.size(), "every row differs from the others");
    assertEquals(a, b);
    // 2 party counts x 2 repeats x (2 lambdas + 1 dp-fl point) = 12 cells, each on its own line
    assertEquals(12, Files.readAllLines(dir.resolve("three/cells.jsonl")).size());
    assertEquals(12, three.ran());
    // a second run keeps them all
    ExperimentRunner.Summary again = ExperimentRunner.run(c, settings(dir.resolve("three")).on(new LocalGrid(3)));
    assertEquals(0, again.ran());
    assertEquals(12, again.skipped());
  }

  @Test
  void everyCellKeepsItsTimeAndTheReportAddsThemUp(@TempDir Path dir) throws Exception {
    ExperimentConfig c = ExperimentConfig.parse(new ObjectMapper(new YAMLFactory()).readTree(SMALL), "small.yaml");
    Path out = dir.resolve("run");
    ExperimentRunner.Summary s = ExperimentRunner.run(c, settings(out).on(new LocalGrid(2)));
    List<String> lines = Files.readAllLines(out.resolve("cells.jsonl"));
    ObjectMapper json = new ObjectMapper();
    double sum = 0;
    for (String l : lines) {
      var j = json.readTree(l);
      assertTrue(j.get("seconds").asDouble() >= 0 && j.get("seconds").asDouble() <= s.seconds(), l);
      assertEquals(1, j.get("threads").asInt(), "each cell ran on --threads 1");
      sum += j.get("seconds").asDouble();
    }
    assertEquals(12, s.times().timed());
    assertEquals(0, s.times().untimed());
    assertEquals(sum, s.times().seconds(), 0.05 * 12 + 1e-9, "the 0.1 s rounding of each line");
    // A line from before cells kept their time: counted apart, and the report says so.
    String first = lines.get(0);
    var old = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(first);
    old.remove("seconds");
    old.remove("threads");
    lines.set(0, json.writeValueAsString(old));
    Files.write(out.resolve("cells.jsonl"), lines);
    ExperimentRunner.Summary kept = ExperimentRunner.recorded(c, out);
    assertEquals(11, kept.times().timed());
    assertEquals(1, kept.times().untimed());
    Report.write(c, kept.rows(), dir, "test", kept.seconds(), kept.times());
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(md.contains("**Cell time.** 11 finished cells took"), md);
    assertTrue(md.contains("1 more cell was recorded before cells kept their time"), md);
  }

  @Test
  void outOfRangeAndUnknownCellsAreRefused() throws Exception {
    assertThrows(IllegalArgumentException.class, () -> new LocalGrid(0));
    assertThrows(IllegalArgumentException.class, () -> new LocalGrid(LocalGrid.MAX_CELLS_AT_ONCE + 1));
    ExperimentConfig c = ExperimentConfig.parse(new ObjectMapper(new YAMLFactory()).readTree(SMALL), "small.yaml");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new LocalGrid(2).run(c, DIGITS, List.of("no/such/cell"), 1, 1L, (k, rows, seconds, threads) -> { }));
    assertTrue(e.getMessage().contains("no cell no/such/cell"), e.getMessage());
  }
}
