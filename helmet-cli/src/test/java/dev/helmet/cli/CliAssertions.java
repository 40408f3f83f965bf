package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the CLI tests check of every run: a successful run's JSON, a refused run's one error line, a
 * quick preset's results.csv.
 */
final class CliAssertions {
  private static final ObjectMapper JSON = new ObjectMapper();

  private CliAssertions() {}

  /** The JSON a successful run printed (exit code 0). */
  static JsonNode json(Cli c) throws IOException {
    assertEquals(0, c.exit, c.toString());
    return JSON.readTree(c.out);
  }

  /** A failing run: exit code 2, one "helmet: error:" line naming the problem, no stack trace. */
  static void assertInvalid(Cli c, String expected) {
    assertEquals(Main.INVALID_INPUT, c.exit, c.toString());
    assertTrue(c.errorLine().contains(expected), "expected '" + expected + "' in: " + c.err);
    assertFalse(c.err.contains("\tat "), "no stack trace for bad input: " + c.err);
    assertEquals(1, c.err.lines().filter(l -> l.startsWith("helmet: error:")).count());
  }

  /**
   * Runs {@code experiment run --preset PRESET --quick --out DIR --quiet}, asserts that it succeeded
   * and returns the rows of its results.csv, each keyed by the header's column names.
   */
  static List<Map<String, String>> quickPresetRows(Path dir, String preset) throws IOException {
    Cli run = Cli.run("experiment", "run", "--preset", preset, "--quick", "--out", dir.toString(), "--quiet");
    assertEquals(0, run.exit, run.toString());
    return rows(dir);
  }

  /** The rows of {@code dir}'s results.csv, each keyed by the header's column names. */
  static List<Map<String, String>> rows(Path dir) throws IOException {
    List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
    String[] header = lines.get(0).split(",", -1);
    List<Map<String, String>> rows = new ArrayList<>();
    for (String l : lines.subList(1, lines.size())) {
      String[] f = l.split(",", -1);
      assertEquals(header.length, f.length, l);
      Map<String, String> r = new LinkedHashMap<>();
      for (int i = 0; i < header.length; i++) {
        r.put(header[i], f[i]);
      }
      rows.add(r);
    }
    return rows;
  }
}
