package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security review turn 3, T3-8 (built on {@code BadWirePocTest.unauthenticatedHandshakesFillTheStoredRejectionBudget}):
 * refused TLS handshakes, which anyone can make with a self-made certificate and a subject of their
 * choosing, used to count against the session's {@link Coordinator#MAX_STORED_REJECTIONS} stored
 * rejections, so 2,000 of them left an enrolled party's later impersonation, replays or malformed
 * messages counted but not stored. They now have their own budget, per session and per source.
 */
@org.junit.jupiter.api.Tag("integration")
class HandshakeRefusalBudgetTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final String STRANGER = "certificate \"CN=participant-1\" (issued by \"CN=Helmet demo CA\"): it is not signed "
      + "by this deployment's CA (the participant uses another CA's files)";

  private static long count(List<Map<String, Object>> events, String reason) {
    return events.stream().filter(e -> reason.equals(e.get("REASON"))).count();
  }

  /**
   * More refused handshakes than the session's whole rejection budget (what the PoC made over the
   * network, from many sources here), then an enrolled party's impersonation and replay: both are
   * stored, and the handshakes stored stop at their own cap.
   */
  @Test
  void strangersHandshakesLeaveTheStoredRejectionsOfEnrolledPartiesAlone(@TempDir Path dir) throws Exception {
    SessionConfig config = Loopback.config(DIGITS, 2, 2, 1e6).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, null, 1e7))) {
      int strangers = Coordinator.MAX_STORED_REJECTIONS + 500;
      c.lock.lock();
      try {
        for (int i = 0; i < strangers; i++) {
          String source = "198.51." + (i / 250) + "." + (i % 250) + ":40000";
          c.events.handshakeRefused(source, "refused a TLS handshake from " + source + ": " + STRANGER);
        }
        c.events.reject("R1_SHARE_KEYS", 1, "IMPERSONATION", "a message of party 1 claims to be from party 0");
        c.events.reject("R2_MASKED_INPUT", 0, "REPLAYED", "party 0 sent its masked input twice");
      } finally {
        c.lock.unlock();
      }
      c.events.flushEvents();
      List<Map<String, Object>> events = c.store().events(c.sessionId());
      assertEquals(Coordinator.MAX_STORED_HANDSHAKE_REFUSALS, count(events, "TLS_HANDSHAKE"));
      assertEquals(1, count(events, "CAPPED"), "one marker, for the handshakes");
      assertEquals(1, count(events, "IMPERSONATION"), "an enrolled party's impersonation is stored");
      assertEquals(1, count(events, "REPLAYED"), "an enrolled party's replay is stored");
      assertEquals(strangers, c.handshakeRefusals, "every refused handshake is counted");
      assertEquals(2, c.rejections, "the parties' budget holds the parties' rejections only");
    }
  }

  /** One source stores at most its share; another source still has its own. */
  @Test
  void oneSourceStoresAtMostItsShareOfRefusedHandshakes(@TempDir Path dir) throws Exception {
    SessionConfig config = Loopback.config(DIGITS, 2, 2, 1e6).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, null, 1e7))) {
      c.lock.lock();
      try {
        for (int port = 1; port <= 50; port++) {
          c.events.handshakeRefused("203.0.113.7:" + port, "refused a TLS handshake from 203.0.113.7:" + port + ": "
              + STRANGER);
        }
        c.events.handshakeRefused("203.0.113.8:1", "refused a TLS handshake from 203.0.113.8:1: " + STRANGER);
        c.events.handshakeRefused(null, "refused a TLS handshake: " + STRANGER);
      } finally {
        c.lock.unlock();
      }
      c.events.flushEvents();
      List<Map<String, Object>> events = c.store().events(c.sessionId());
      long fromSeven = events.stream().filter(e -> String.valueOf(e.get("DETAIL")).contains("from 203.0.113.7:"))
          .count();
      assertEquals(Coordinator.MAX_STORED_HANDSHAKE_REFUSALS_PER_SOURCE, fromSeven);
      assertEquals(Coordinator.MAX_STORED_HANDSHAKE_REFUSALS_PER_SOURCE + 2, count(events, "TLS_HANDSHAKE"));
      assertEquals(52, c.handshakeRefusals);
    }
  }

  /**
   * Over the network: stranger handshakes from one address store that address's share, each
   * naming it (gRPC's TLS engine does not know the peer; the connection guard does), and a
   * certified party's replay in the session after them is stored.
   */
  @Test
  void strangersOverTheNetworkAreNamedByAddressAndAPartysReplayIsStillStored(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Path other = dir.resolve("other");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 3, Duration.ofDays(1));
    Certificates.create(other, List.of("localhost", "127.0.0.1"), 1, Duration.ofDays(1));
    SessionConfig config = Loopback.config(DIGITS, 3, 3, 1e6).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7))) {
      SSLContext ctx = strangerContext(other);
      int n = Coordinator.MAX_STORED_HANDSHAKE_REFUSALS_PER_SOURCE + 5;
      for (int i = 0; i < n; i++) {
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", c.port())) {
          SSLParameters p = s.getSSLParameters();
          p.setApplicationProtocols(new String[] {"h2"});
          s.setSSLParameters(p);
          s.setSoTimeout(5000);
          s.startHandshake();
          s.getOutputStream().write(new byte[] {0});
          s.getOutputStream().flush();
          s.getInputStream().read();
        } catch (java.io.IOException expected) {
          // refused: the CA check failed
        }
      }
      Participant.Hook replays = new Participant.Hook() {
        @Override
        public List<ParticipantMessage> sending(ParticipantMessage m) {
          return m.hasAdvertiseKeys() || m.hasConsistencySignature() ? List.of(m, m) : List.of(m);
        }
      };
      List<Loopback.Outcome> outs = Loopback.participants(c.port(), Loopback.shards(DIGITS, 3, 50, 4), null,
          i -> Tls.Files.in(certs, "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7),
          i -> i == 0 ? replays : Participant.Hook.NONE);
      Coordinator.Result r = c.await(90, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      outs.forEach(o -> assertNull(o.error(), () -> String.valueOf(o.error())));
      c.events.flushEvents();
      List<Map<String, Object>> events = c.store().events(c.sessionId());
      List<Map<String, Object>> refused = events.stream().filter(e -> "TLS_HANDSHAKE".equals(e.get("REASON"))).toList();
      assertEquals(Coordinator.MAX_STORED_HANDSHAKE_REFUSALS_PER_SOURCE, refused.size(), events::toString);
      assertTrue(refused.stream().allMatch(e -> String.valueOf(e.get("DETAIL"))
          .startsWith("refused a TLS handshake from 127.0.0.1:")), refused::toString);
      assertTrue(count(events, "REPLAYED") >= 1, events::toString);
      assertEquals(n, c.handshakeRefusals);
    }
  }

  /** A client presenting {@code other}'s participant-1 certificate (another CA) and trusting any server. */
  private static SSLContext strangerContext(Path other) throws Exception {
    Tls.Files f = Tls.Files.in(other, "participant-1");
    X509Certificate cert;
    try (var in = java.nio.file.Files.newInputStream(f.certificate())) {
      cert = (X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
    String pem = java.nio.file.Files.readString(f.key());
    byte[] der = java.util.Base64.getDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", ""));
    var key = java.security.KeyFactory.getInstance("EC").generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(der));
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("k", key, new char[0], new java.security.cert.Certificate[] {cert});
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, new char[0]);
    TrustManager[] trustAll = {new X509TrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) {}

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) {}

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    }};
    SSLContext ctx = SSLContext.getInstance("TLSv1.3");
    ctx.init(kmf.getKeyManagers(), trustAll, null);
    return ctx;
  }
}
