package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.testdata.TestData;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS mistakes said in words, at once: a participant whose CA did not sign the coordinator's
 * certificate stops without retrying and says which check failed.
 */
@org.junit.jupiter.api.Tag("integration")
class TlsDiagnosticsTest {
  @Test
  void aParticipantWithAnotherCaSaysSoAtOnce(@TempDir Path dir) throws Exception {
    Path ours = dir.resolve("ours");
    Path theirs = dir.resolve("theirs");
    Certificates.create(ours, List.of("localhost", "127.0.0.1"), 1, Duration.ofDays(1));
    Certificates.create(theirs, List.of("localhost", "127.0.0.1"), 1, Duration.ofDays(1));
    var config = Loopback.config(TestData.digits(), 2, 2, 1).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, Tls.Files.in(ours, "coordinator"), 10))) {
      long t0 = System.nanoTime();
      List<Loopback.Outcome> outs = Loopback.participants(c.port(), List.of(TestData.digits()), null,
          i -> Tls.Files.in(theirs, "participant-1"), ParticipantPolicy.upTo(10), i -> Participant.Hook.NONE);
      double seconds = (System.nanoTime() - t0) / 1e9;
      Exception e = outs.get(0).error();
      assertNotNull(e, "the participant should have failed");
      System.out.println("TLS diagnosis: " + e.getMessage());
      assertTrue(e.getMessage().contains("not signed by the CA"), e.getMessage());
      assertTrue(seconds < 10, "it retried for " + seconds + " s");
    }
  }

  /**
   * A participant whose certificate another CA signed is refused by the coordinator, which logs and
   * records the refused handshake in words, naming the peer's address (it used to leave no trace),
   * and the participant says that the coordinator refused its certificate.
   */
  @Test
  void theCoordinatorRecordsARefusedHandshakeInWords(@TempDir Path dir) throws Exception {
    Path ours = dir.resolve("ours");
    Path theirs = dir.resolve("theirs");
    Certificates.create(ours, List.of("localhost", "127.0.0.1"), 1, Duration.ofDays(1));
    Certificates.create(theirs, List.of("localhost", "127.0.0.1"), 1, Duration.ofDays(1));
    var config = Loopback.config(TestData.digits(), 2, 2, 1).build();
    // Trusts the coordinator (our CA) but presents a certificate of another CA.
    Tls.Files stranger = new Tls.Files(theirs.resolve("participant-1.pem"), theirs.resolve("participant-1-key.pem"),
        ours.resolve("ca.pem"));
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, Tls.Files.in(ours, "coordinator"), 10))) {
      List<Loopback.Outcome> outs = Loopback.participants(c.port(), List.of(TestData.digits()), null,
          i -> stranger, ParticipantPolicy.upTo(10), i -> Participant.Hook.NONE);
      Exception e = outs.get(0).error();
      assertNotNull(e, "the participant should have failed");
      assertTrue(e.getMessage().contains("refusing this participant's certificate")
          || e.getMessage().contains("the coordinator refused this participant's certificate"), e.getMessage());
      c.events.flushEvents();
      List<java.util.Map<String, Object>> events = c.store().events(c.sessionId());
      assertTrue(events.stream().anyMatch(ev -> "TLS_HANDSHAKE".equals(ev.get("REASON"))
          && String.valueOf(ev.get("DETAIL")).startsWith("refused a TLS handshake from 127.0.0.1:")
          && String.valueOf(ev.get("DETAIL")).contains(": certificate \"CN=participant-1\"")
          && String.valueOf(ev.get("DETAIL")).contains("participant-1")
          && String.valueOf(ev.get("DETAIL")).contains("not signed by this deployment's CA")), events::toString);
    }
  }

  /** An expired client certificate is named as expired, with its end of validity. */
  @Test
  void anExpiredClientCertificateIsNamedAsExpired(@TempDir Path dir) throws Exception {
    Certificates.create(dir, List.of("localhost"), 1, Duration.ofDays(1));
    java.security.cert.X509Certificate cert;
    try (var in = java.nio.file.Files.newInputStream(dir.resolve("participant-1.pem"))) {
      cert = (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
          .generateCertificate(in);
    }
    var expired = new java.security.cert.CertificateException("validity check failed",
        new java.security.cert.CertificateExpiredException("NotAfter: ..."));
    String why = RefusalReportingTrustManager.describe(new java.security.cert.X509Certificate[] {cert}, expired,
        "10.0.0.7:5000");
    assertTrue(why.startsWith("refused a TLS handshake from 10.0.0.7:5000: certificate ")
        && why.contains("it has expired (valid until " + cert.getNotAfter().toInstant()), why);
  }

  /** A key that does not belong to its certificate is refused when the credentials load, naming both files. */
  @Test
  void aKeyThatDoesNotMatchItsCertificateIsRefusedAtStart(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 2, Duration.ofDays(1));
    Tls.Files mixed = new Tls.Files(certs.resolve("coordinator.pem"), certs.resolve("participant-1-key.pem"),
        certs.resolve("ca.pem"));
    var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Tls.server(mixed));
    assertTrue(e.getMessage().contains("does not belong to the certificate") && e.getMessage().contains("coordinator.pem"),
        e.getMessage());
    Tls.server(Tls.Files.in(certs, "coordinator"));
    Tls.client(Tls.Files.in(certs, "participant-2"));
  }
}
