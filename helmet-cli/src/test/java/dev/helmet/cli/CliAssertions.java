package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/** What the CLI tests check of every run: a successful run's JSON, a refused run's one error line. */
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
}
