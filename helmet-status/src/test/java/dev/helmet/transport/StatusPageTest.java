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
@org.junit.jupiter.api.Tag("integration")
class StatusPageTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(java.time.Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** GET with the page's token in the bearer header, as its own script sends it. */
  private static HttpResponse<String> get(StatusServer s, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
        .header("Authorization", "Bearer " + s.token()).timeout(java.time.Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode status(StatusServer s) throws Exception {
    HttpResponse<String> r = get(s, "/api/status");
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
      String metrics = get(page, "/metrics").body();
      for (String name : new String[] {"helmet_stage_duration_seconds_count{stage=\"MASKED_INPUT\"}",
          "helmet_enrolled_parties 3.0", "helmet_sessions_finished_total{outcome=\"released\"} 1.0",
          "helmet_budget_epsilon{dataset=\"digits\"} 10.0", "helmet_stage_answered_total",
          "helmet_session_bytes_per_participant_bytes " + r.bytesPerParticipant() + ".0"}) {
        assertTrue(metrics.contains(name), name + " missing from:\n" + metrics);
      }
    }
  }

  /**
   * Security review turn 3, T3-4: on loopback the page had no token and answered any Host, so any
   * local user, and a web page that rebinds its name to 127.0.0.1, read the ledger and events; the
   * token travelled in the URL. Now every data request needs the token, on loopback too and only in
   * the bearer header (a ?token= is not read); the page itself (static, no data) loads without it and
   * takes the token from the address's fragment; a foreign Host is refused.
   */
  @Test
  void aTokenGuardsEveryDataEndpointAndAForeignHostIsRefused(@TempDir Path dir) throws Exception {
    SessionConfig config = Loopback.config(DIGITS, 3, 3, 1).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, null, 10));
        StatusServer page = StatusServer.start(c, "127.0.0.1", 0, "s3cret-token");
        StatusServer fresh = StatusServer.start(c, "127.0.0.1", 0, null)) {
      String base = "http://127.0.0.1:" + page.port();
      assertEquals(401, get(base + "/api/status").statusCode());
      assertEquals(401, get(base + "/api/ledger").statusCode());
      assertEquals(401, get(base + "/metrics?token=wrong").statusCode());
      assertEquals(401, get(base + "/api/status?token=s3cret-token").statusCode(), "a token in the address is not read");
      assertEquals(200, get(base + "/").statusCode(), "the static page loads, and reads the token after '#'");
      assertTrue(page.url().endsWith("/#token=s3cret-token"), page.url());
      HttpResponse<String> bearer = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
          .header("Authorization", "Bearer s3cret-token").build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, bearer.statusCode());
      // on loopback without --status-token: a fresh random token all the same
      assertTrue(fresh.token() != null && fresh.token().matches("[0-9a-f]{32}"), fresh.token());
      assertEquals(401, get("http://127.0.0.1:" + fresh.port() + "/api/status").statusCode());
      assertEquals(200, get(fresh, "/api/status").statusCode());
      // DNS rebinding: the attacker's name in Host is refused even with the token
      assertEquals(403, rawStatus(page.port(), "attacker.example:" + page.port(), "s3cret-token"));
      assertEquals(200, rawStatus(page.port(), "localhost:" + page.port(), "s3cret-token"));
      c.close();
    }
  }

  /**
   * Security review turn 3, T3-4, off loopback: the page was plain HTTP, its token and data in clear.
   * Now it is served over HTTPS with the coordinator's own certificate (a client that trusts the
   * deployment's CA reads it; plain HTTP on its port gets no page), a coordinator without TLS files
   * refuses to serve it off loopback, and its events name no certificate subject.
   */
  @Test
  void offLoopbackThePageIsHttpsWithTheCoordinatorsCertificateAndShowsNoSubjects(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("127.0.0.1"), 1, java.time.Duration.ofDays(1));
    Tls.Files tls = Tls.Files.in(certs, "coordinator");
    SessionConfig config = Loopback.config(DIGITS, 3, 3, 1).build();
    try (Coordinator plain = Coordinator.start(Loopback.settings(config, dir.resolve("plain"), null, 10))) {
      // 192.0.2.1 (TEST-NET-1) is never bound: the refusal comes before any listener
      IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
          () -> StatusServer.start(plain, "192.0.2.1", 0, null));
      assertTrue(refused.getMessage().contains("HTTPS") && refused.getMessage().contains("ssh -L"),
          refused.getMessage());
    }
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir.resolve("tls"), tls, 10));
        StatusServer page = StatusServer.start(c, java.net.InetAddress.getLoopbackAddress(), 0, null, tls)) {
      assertTrue(page.url().startsWith("https://127.0.0.1:" + page.port() + "/#token="), page.url());
      c.store().event(c.sessionId(), "ENROLMENT", null, "LEFT", "DISCONNECTED",
          "CN=participant-2: the connection was cancelled");
      c.store().event(c.sessionId(), "ENROLMENT", null, "REJECT", "TLS_HANDSHAKE",
          "refused a TLS handshake: certificate OU=compute-node,CN=St Mary\\, London (issued by CN=Helmet demo CA)");
      javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
      java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      try (var in = java.nio.file.Files.newInputStream(certs.resolve("ca.pem"))) {
        trust.setCertificateEntry("ca", java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
      }
      tmf.init(trust);
      javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      HttpClient https = HttpClient.newBuilder().sslContext(ssl).build();
      HttpResponse<String> r = https.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + page.port()
          + "/api/status")).header("Authorization", "Bearer " + page.token()).timeout(java.time.Duration.ofSeconds(10))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
      JsonNode events = JSON.readTree(r.body()).get("events");
      assertEquals(2, events.size(), events.toString());
      assertEquals("(subject withheld): the connection was cancelled", events.get(0).get("detail").asText());
      assertEquals("refused a TLS handshake: certificate (subject withheld) (issued by (subject withheld))",
          events.get(1).get("detail").asText());
      assertFalse(r.body().contains("participant-2") || r.body().contains("St Mary"), r.body());
      // plain HTTP on the HTTPS port: no page
      boolean plainAnswered;
      try {
        plainAnswered = get("http://127.0.0.1:" + page.port() + "/api/status").statusCode() == 200;
      } catch (java.io.IOException e) {
        plainAnswered = false;
      }
      assertFalse(plainAnswered, "plain HTTP was answered on the HTTPS port");
    }
  }

  /** The status code of a GET of /api/status with a chosen Host header (java.net.http cannot set Host). */
  private static int rawStatus(int port, String host, String token) throws Exception {
    try (java.net.Socket socket = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(10_000);
      var out = socket.getOutputStream();
      out.write(("GET /api/status HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + token
          + "\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      out.flush();
      String response = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      return Integer.parseInt(response.substring(9, 12)); // "HTTP/1.1 NNN"
    }
  }
}
