package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code experiment run --cells-at-once}: a quick preset two cells at a time, and the refusals (also of --reuse). */
@org.junit.jupiter.api.Tag("integration")
class CellsAtOnceCliTest {
  private static void assertInvalid(Cli c, String expected) {
    assertEquals(Main.INVALID_INPUT, c.exit, c.toString());
    assertTrue(c.err.contains(expected), "expected '" + expected + "' in: " + c.err);
  }

  @Test
  void aQuickPresetRunsTwoCellsAtATime(@TempDir Path dir) throws Exception {
    Cli run = Cli.run("experiment", "run", "--preset", "smm-fl", "--quick", "--cells-at-once", "2", "--out",
        dir.toString(), "--quiet");
    assertEquals(0, run.exit, run.toString());
    assertEquals(5, Files.readAllLines(dir.resolve("cells.jsonl")).size(), "the quick preset's five cells");
    String report = Files.readString(dir.resolve("report.md"));
    assertTrue(report.contains("Made by `helmet experiment run --preset smm-fl --dataset mnist --quick "
        + "--cells-at-once 2 --out " + dir + "`"), "the report names the flags that shaped the run: " + report);
  }

  @Test
  void theReportNamesTheFoldersItReused(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("sweep");
    Path grid = dir.resolve("grid");
    // A finished quick smm-fl folder to reuse: a copy of the JVM's one run of it (QuickRuns).
    QuickRuns.copy("smm-fl", grid);
    Cli run = Cli.run("experiment", "run", "--preset", "smm-fl-batch", "--quick", "--threads", "1", "--reuse",
        grid.toString(), "--out", out.toString(), "--quiet");
    assertEquals(0, run.exit, run.toString());
    String report = Files.readString(out.resolve("report.md"));
    assertTrue(report.contains("Made by `helmet experiment run --preset smm-fl-batch --dataset mnist --quick "
        + "--threads 1 --reuse " + grid + " --out " + out + "`"), "the report names --reuse: " + report);
  }

  @Test
  void cellsAtOnceIsRefusedWhereItDoesNotApply(@TempDir Path dir) {
    String out = dir.toString();
    assertInvalid(Cli.run("experiment", "run", "--preset", "smm-fl", "--quick", "--cells-at-once", "0", "--out", out),
        "--cells-at-once must be in [1, 256]. Provided value: 0");
    assertInvalid(Cli.run("experiment", "run", "--preset", "smm-fl", "--quick", "--cells-at-once", "2", "--engine",
        "spark", "--out", out), "--cells-at-once goes with --engine local");
    assertInvalid(Cli.run("experiment", "run", "--preset", "smm-sum", "--quick", "--cells-at-once", "2", "--out", out),
        "--cells-at-once applies to experiments made of cells; --preset smm-sum is not one");
  }

  @Test
  void reuseIsRefusedWhereNoCellRuns(@TempDir Path dir) {
    String out = dir.toString();
    assertInvalid(Cli.run("experiment", "run", "--preset", "smm-sum", "--quick", "--reuse", out, "--out", out),
        "--reuse applies to experiments made of cells; --preset smm-sum is not one");
    assertInvalid(Cli.run("experiment", "run", "--preset", "smm-fl-batch", "--quick", "--reuse",
        dir.resolve("nothing").toString(), "--out", dir.resolve("run").toString()), "holds no experiment");
  }
}
