package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.status.StatusServer;
import dev.helmet.transport.wire.SessionConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's status page as an operator uses it: a coordinator and three participants on
 * loopback, the JSON endpoint read through each stage (enrolment, a running round, the release),
 * the page itself, the Prometheus metrics, and the token off loopback.
 */
class StatusPageTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(java.time.Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode status(StatusServer s) throws Exception {
    HttpResponse<String> r = get("http://127.0.0.1:" + s.port() + "/api/status");
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }


  /**
   * Enrolment shows 0 of 3 with a countdown; while one participant holds its first round open the
   * page shows the running stage with its deadline; after the release it shows the contributors,
   * the guarantee, the spent budget and every stage; the page and the metrics are served.
   */
  @Test
  void theStatusEndpointFollowsASessionThroughEachStage(@TempDir Path dir) throws Exception {
    SessionConfig config = Loopback.config(DIGITS, 3, 3, 1).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, null, 10));
        StatusServer page = StatusServer.start(c, "127.0.0.1", 0, null)) {
      JsonNode before = status(page);
      assertEquals("ENROLLING", before.at("/session/phase").asText());
      assertEquals(0, before.at("/enrolment/joined").asInt());
      assertEquals(3, before.at("/enrolment/expected").asInt());
      assertTrue(before.at("/enrolment/seconds_left").asLong() > 0);
      assertTrue(before.at("/release").isNull());
      HeldSession held = HeldSession.start(c, 3);
      assertTrue(held.awaitRound(), "the first round opened");
      JsonNode running = status(page);
      held.release();
      assertEquals("RUNNING", running.at("/session/phase").asText());
      assertEquals(3, running.at("/enrolment/joined").asInt());
      assertEquals(0, running.at("/stage/round").asInt());
      assertEquals(1, running.at("/stage/rounds").asInt());
      assertFalse(running.at("/stage/name").asText().isEmpty());
      assertTrue(running.at("/stage/seconds_left").asLong() > 0, running.toString());
      assertEquals(3, running.at("/stage/expected").asInt(), running.toString());
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      Loopback.assertAllCompleted(r, held.outcomes(), 3);
      JsonNode done = status(page);
      assertEquals("DONE", done.at("/session/phase").asText());
      assertEquals("COMPLETED", done.at("/session/status").asText());
      assertEquals(3, done.at("/release/contributors").asInt());
      assertEquals(r.epsilon(), done.at("/release/epsilon").asDouble(), 1e-12);
      assertEquals(r.epsilon(), done.at("/ledger/spent_epsilon").asDouble(), 1e-9);
      assertEquals(10 - r.epsilon(), done.at("/ledger/left_epsilon").asDouble(), 1e-9);
      String guarantee = done.at("/release/guarantees/0").asText();
      assertTrue(guarantee.contains("against anyone holding the released model") && guarantee.contains("neighbours: "),
          guarantee);
      assertTrue(done.at("/ledger/relation").asText().contains("replace"), done.at("/ledger").toString());
      assertTrue(done.at("/stages").size() >= 4, done.at("/stages").toString());
      assertEquals("COMPLETED", done.at("/sessions/0/status").asText(), done.at("/sessions").toString());
      HttpResponse<String> html = get(page.url());
      assertEquals(200, html.statusCode());
      assertTrue(html.body().contains("Privacy ledger") && html.body().contains("api/status"));
      String metrics = get("http://127.0.0.1:" + page.port() + "/metrics").body();
      for (String name : new String[] {"helmet_stage_duration_seconds_count{stage=\"MASKED_INPUT\"}",
          "helmet_enrolled_parties 3.0", "helmet_sessions_finished_total{outcome=\"released\"} 1.0",
          "helmet_budget_epsilon{dataset=\"digits\"} 10.0", "helmet_stage_answered_total",
          "helmet_session_bytes_per_participant_bytes " + r.bytesPerParticipant() + ".0"}) {
        assertTrue(metrics.contains(name), name + " missing from:\n" + metrics);
      }
    }
  }

  /** With a token every request needs it (query or bearer header); a wrong one is refused. */
  @Test
  void aTokenGuardsEveryEndpoint(@TempDir Path dir) throws Exception {
    SessionConfig config = Loopback.config(DIGITS, 3, 3, 1).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, null, 10));
        StatusServer page = StatusServer.start(c, "127.0.0.1", 0, "s3cret-token")) {
      String base = "http://127.0.0.1:" + page.port();
      assertEquals(401, get(base + "/api/status").statusCode());
      assertEquals(401, get(base + "/metrics?token=wrong").statusCode());
      assertEquals(401, get(base + "/").statusCode());
      assertEquals(200, get(base + "/api/status?token=s3cret-token").statusCode());
      assertTrue(page.url().endsWith("?token=s3cret-token"), page.url());
      HttpResponse<String> bearer = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
          .header("Authorization", "Bearer s3cret-token").build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, bearer.statusCode());
      c.close();
    }
  }
}
