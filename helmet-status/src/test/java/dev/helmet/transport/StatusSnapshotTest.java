package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.privacy.ledger.Guarantee;
import dev.helmet.status.StatusSnapshot;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page's final state written as files (issue 47, row 18): the page without a script and
 * its JSON, after a released session, holding what the page shows and, like the page, no
 * certificate subject (in event details and in why sessions ended), with eps printed by the one rule.
 */
@org.junit.jupiter.api.Tag("integration")
class StatusSnapshotTest {
  private static final Dataset DIGITS = TestData.digits();

  @Test
  void theSnapshotShowsTheReleaseAndLedgerWithoutScriptOrSubjects(@TempDir Path dir) throws Exception {
    SessionConfig config = Loopback.config(DIGITS, 3, 3, 1).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, null, 10))) {
      HeldSession held = HeldSession.start(c, 3);
      assertTrue(held.awaitRound());
      held.release();
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      Loopback.assertAllCompleted(r, held.outcomes(), 3);
      c.store().event(c.sessionId(), "ENROLMENT", null, "LEFT", "DISCONNECTED",
          "CN=participant-2: the connection was cancelled");
      c.store().event(c.sessionId(), "ENROLMENT", null, "REJECT", "TLS_HANDSHAKE",
          "refused a TLS handshake: certificate OU=compute-node,CN=St Mary\\, London (issued by CN=Helmet CA 1a2b3c4d "
              + "2026-12-03) <script>");
      List<Path> files = StatusSnapshot.write(c, dir.resolve("out/model-status"));
      assertEquals(List.of(dir.resolve("out/model-status.json"), dir.resolve("out/model-status.html")), files);
      String html = Files.readString(files.get(1));
      String json = Files.readString(files.get(0));
      for (String text : new String[] {html, json}) {
        assertFalse(text.contains("participant-2") || text.contains("St Mary") || text.contains("1a2b3c4d"), text);
        assertTrue(text.contains("(subject withheld): the connection was cancelled"), text);
      }
      assertFalse(html.contains("<script"), "no script, and event text is escaped: " + html);
      assertTrue(html.contains("(issued by (subject withheld)) &lt;script&gt;"), html);
      assertTrue(html.contains("released the model of 3 contributors") && html.contains("COMPLETED")
          && html.contains("against anyone holding the released model"), html);
      JsonNode j = new ObjectMapper().readTree(json);
      assertEquals(r.epsilon(), j.at("/release/epsilon").asDouble(), 1e-12);
      assertEquals(Guarantee.format(r.epsilon()), j.at("/release/text/epsilon").asText());
      String spent = Guarantee.format(j.at("/ledger/spent_epsilon").asDouble());
      String left = Guarantee.formatLeft(j.at("/ledger/left_epsilon").asDouble());
      assertTrue(html.contains("budget eps = 10, spent " + spent + ", reserved 0, left " + left + " ("), html);
      assertTrue(html.contains("target eps = " + Guarantee.format(config.getPrivacy().getEpsilon()) + ", delta = "
          + Guarantee.format(config.getPrivacy().getDelta())), html);
      assertTrue(html.contains("<svg") && html.contains(">eps spent</text>")
          && html.contains(">budget eps = 10</text>"), "the ledger chart with its axes and labels: " + html);
      assertTrue(j.get("events_total").asInt() >= 2, json);
    }
  }
}
