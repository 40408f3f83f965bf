package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Progress in a log file: a start line, throttled count lines with an ETA, an end line. */
class ConsoleProgressTest {
  private static List<String> run(long intervalNanos, boolean enabled) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ConsoleProgress p = new ConsoleProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8), enabled, false,
        intervalNanos);
    p.start("grid: 4 cells to run", 4);
    for (int i = 0; i < 4; i++) {
      p.advance(1);
    }
    p.finish();
    String text = bytes.toString(StandardCharsets.UTF_8);
    return text.isEmpty() ? List.of() : List.of(text.split("\n"));
  }

  @Test
  void aLogGetsACountLineForEachStepOnceTheIntervalHasPassed() {
    List<String> lines = run(0, true);
    assertEquals(5, lines.size(), lines.toString());
    assertEquals("grid: 4 cells to run ...", lines.get(0));
    assertTrue(lines.get(1).matches("grid: 4 cells to run: 1/4 \\(25%\\) after .+, ETA .+"), lines.get(1));
    assertTrue(lines.get(3).startsWith("grid: 4 cells to run: 3/4 (75%) after "), lines.get(3));
    assertTrue(lines.get(4).matches("grid: 4 cells to run: done in [0-9.]+ s"), lines.get(4));
  }

  @Test
  void withinTheIntervalOnlyTheStartAndTheEndAreLogged() {
    List<String> lines = run(ConsoleProgress.LOG_INTERVAL_NANOS, true);
    assertEquals(2, lines.size(), lines.toString());
    assertEquals(List.of(), run(0, false), "--quiet");
  }

  @Test
  void noEtaIsGuessedFromLessThanOnePercentOfTheWork() {
    // The network demo's first unit of 10,000 came after 1m48s of set-up; its ETA read 17997m46s.
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ConsoleProgress p = new ConsoleProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8), true, false, 0);
    p.start("network", 10_000);
    p.advance(1);
    p.advance(98);
    p.advance(1);
    p.finish();
    List<String> lines = List.of(bytes.toString(StandardCharsets.UTF_8).split("\n"));
    assertTrue(lines.get(1).matches("network: 1/10000 \\(0%\\) after .+, ETA unknown"), lines.get(1));
    assertTrue(lines.get(2).endsWith("ETA unknown"), lines.get(2));
    assertTrue(lines.get(3).matches("network: 100/10000 \\(1%\\) after .+, ETA [0-9hms.]+"), lines.get(3));
  }
}
