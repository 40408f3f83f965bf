package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ledger show} prints eps and delta by the one rule (Guarantee.format: spent rounded up, left
 * rounded down; issue 47, row 20, where it printed {@code used eps = 1.4999999983250563}, {@code
 * left eps = 0.5000000016749437} and {@code delta = 1.0E-4}); {@code --json} keeps the full double.
 */
class EpsFormatCliTest {
  private static final double SPENT = 1.4999999983250563;

  @Test
  void aParticipantsLedgerPrintsShortConservativeNumbersAndJsonKeepsThemWhole(@TempDir Path dir) throws Exception {
    Path ledger = dir.resolve("ledger.json");
    Files.writeString(ledger, "[{\"session\": \"aa\", \"epsilon\": " + SPENT + ", \"delta\": 1e-5, \"status\": "
        + "\"spent\", \"rounds\": 3, \"updated\": \"2026-11-26T00:00:00Z\"}]");
    Cli show = Cli.run("ledger", "show", "--ledger", ledger.toString(), "--budget-epsilon", "2");
    assertEquals(0, show.exit, show.toString());
    assertTrue(show.out.contains("budget eps = 2, delta = 1.00e-04; used eps = 1.5, delta = 1.00e-05; left eps = 0.5"),
        show.out);
    assertTrue(show.out.contains("eps = 1.5, delta = 1.00e-05, 3 round(s) sent"), show.out);
    assertFalse(show.out.contains("1.4999") || show.out.contains("E-"), show.out);

    Cli json = Cli.run("ledger", "show", "--ledger", ledger.toString(), "--budget-epsilon", "2", "--json");
    JsonNode j = new ObjectMapper().readTree(json.out);
    assertEquals(SPENT, j.path("used").path("epsilon").asDouble());
    assertEquals(2 - SPENT, j.path("left_epsilon").asDouble(), 1e-15);
  }

  @Test
  void aCoordinatorsLedgerPrintsTheSameWay() {
    ObjectNode j = Json.object();
    j.put("dataset", "mnist-demo");
    j.put("source", "the database");
    j.putObject("budget").put("epsilon", 2.0).put("delta", 1.0e-4);
    j.putObject("used").put("epsilon", SPENT).put("delta", 1.0e-5);
    j.put("left_epsilon", 2 - SPENT);
    j.putNull("neighbours");
    j.putArray("entries").addObject().put("session", "s1").put("status", "spent").put("epsilon", SPENT)
        .put("delta", 1.0e-5).put("released_rounds", 1).put("session_status", "completed")
        .put("updated", "2026-11-26T00:00:00Z");
    StringWriter text = new StringWriter();
    CoordinatorLedger.print(j, new PrintWriter(text, true));
    String out = text.toString();
    assertTrue(out.contains("budget eps = 2, delta = 1.00e-04; spent or reserved eps = 1.5, delta = 1.00e-05; left "
        + "eps = 0.5"), out);
    assertTrue(out.contains("spent     eps = 1.5, delta = 1.00e-05, 1 round(s) released"), out);
    assertFalse(out.contains("1.4999") || out.contains("E-") || out.contains("2.0,"), out);
  }
}
