package dev.helmet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** {@code helmet bench secagg}: small runs, checked against the exact sum, round after round. */
class BenchCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void secAggBenchRepeatsRoundsAndReportsEachExactly() throws Exception {
    Cli run = Cli.run("bench", "secagg", "--parties", "12", "--params", "300", "--dropout", "0.1", "--rounds", "3",
        "--threads", "2", "--json");
    assertEquals(0, run.exit, run.toString());
    JsonNode j = JSON.readTree(run.out);
    assertEquals("secagg+", j.get("protocol").asText());
    assertTrue(j.get("exact_sum").asBoolean(), j.toString());
    assertEquals(3, j.get("rounds").asInt());
    assertEquals(3, j.get("party_seconds_by_round").size());
    assertEquals(3, j.get("server_seconds_by_round").size());
    for (int r = 0; r < 3; r++) {
      assertTrue(j.get("exact_by_round").get(r).asBoolean(), j.toString());
      assertEquals("COMPLETED", j.get("status_by_round").get(r).asText(), j.toString());
    }
    // the summary keys are the last round's
    assertEquals(j.get("party_seconds").asDouble(), j.get("party_seconds_by_round").get(2).asDouble());
    assertEquals(j.get("server_seconds").asDouble(), j.get("server_seconds_by_round").get(2).asDouble());
    assertEquals(11, j.get("contributors").asInt(), "one of 12 drops at 10 %");

    Cli text = Cli.run("bench", "secagg", "--parties", "6", "--params", "50", "--rounds", "2", "--threads", "1");
    assertEquals(0, text.exit, text.toString());
    assertTrue(text.out.contains("round 1") && text.out.contains("round 2"), text.out);
    assertTrue(text.out.contains("sum exact in every round"), text.out);

    Cli bad = Cli.run("bench", "secagg", "--parties", "6", "--rounds", "0");
    assertEquals(Main.INVALID_INPUT, bad.exit, bad.toString());
    assertTrue(bad.err.contains("--rounds must be in [1, 1000]"), bad.err);
  }
}
