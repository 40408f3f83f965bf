package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment flow of issue 13: keys made where they are used, an offline CA that decides each
 * certificate's role, and participant certificates the only ones that can bind an identity key.
 */
class CertificateRequestsTest {
  @Test
  void aSignedRequestBindsForAParticipantOnlyAndKeysStayOwnerOnly(@TempDir Path dir) throws Exception {
    Path ca = dir.resolve("ca");
    CertificateRequests.createCa(ca, "Test CA", Duration.ofDays(1));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ca.resolve("ca-key.pem"))));
    assertThrows(IllegalArgumentException.class, () -> CertificateRequests.createCa(ca, "again", Duration.ofDays(1)),
        "an existing CA key is never replaced");

    Path p = dir.resolve("p");
    Path csr = CertificateRequests.request(p, "participant-7");
    assertEquals("rw-------", PosixFilePermissions.toString(
        Files.getPosixFilePermissions(p.resolve("participant-7-key.pem"))));
    CertificateRequests.sign(ca, csr, CertificateRequests.Role.PARTICIPANT, List.of(), Duration.ofDays(1),
        p.resolve("participant-7.pem"));
    Files.copy(ca.resolve("ca.pem"), p.resolve("ca.pem"));
    Tls.Files files = Tls.Files.in(p, "participant-7");
    byte[] digest = new byte[32];
    byte[] key = new byte[32];
    byte[] nonce = new byte[32];
    assertNull(IdentityBinding.check(IdentityBinding.certificate(files), IdentityBinding.sign(files, digest, key, nonce),
        IdentityBinding.ca(files), digest, key, nonce));

    // The same request signed for the coordinator's role cannot vouch for an identity key.
    CertificateRequests.sign(ca, csr, CertificateRequests.Role.COORDINATOR, List.of("localhost"), Duration.ofDays(1),
        p.resolve("as-server.pem"));
    Tls.Files server = new Tls.Files(p.resolve("as-server.pem"), p.resolve("participant-7-key.pem"),
        p.resolve("ca.pem"));
    String why = IdentityBinding.check(IdentityBinding.certificate(server), IdentityBinding.sign(server, digest, key,
        nonce), IdentityBinding.ca(server), digest, key, nonce);
    assertTrue(why != null && why.contains("not a participant certificate"), why);
  }

  @Test
  void aTamperedOrForeignRequestIsRefused(@TempDir Path dir) throws Exception {
    Path ca = dir.resolve("ca");
    CertificateRequests.createCa(ca, "Test CA", Duration.ofDays(1));
    Path csr = CertificateRequests.request(dir, "participant-1");
    String pem = Files.readString(csr);
    int i = pem.indexOf('\n') + 40;
    char c = pem.charAt(i);
    Files.writeString(csr, pem.substring(0, i) + (c == 'A' ? 'B' : 'A') + pem.substring(i + 1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CertificateRequests.sign(ca, csr,
        CertificateRequests.Role.PARTICIPANT, List.of(), Duration.ofDays(1), dir.resolve("out.pem")));
    assertTrue(e.getMessage().contains("participant-1.csr"), e.getMessage());
    IllegalArgumentException role = assertThrows(IllegalArgumentException.class,
        () -> CertificateRequests.Role.parse("admin"));
    assertTrue(role.getMessage().contains("participant or coordinator"), role.getMessage());
    Path notCsr = dir.resolve("x.csr");
    Files.writeString(notCsr, Files.readString(ca.resolve("ca.pem")));
    e = assertThrows(IllegalArgumentException.class, () -> CertificateRequests.sign(ca, notCsr,
        CertificateRequests.Role.PARTICIPANT, List.of(), Duration.ofDays(1), dir.resolve("out.pem")));
    assertTrue(e.getMessage().contains("not a PEM certificate signing request"), e.getMessage());
  }

  /**
   * The CA marks a compute node's certificate OU=compute-node (serverAuth and clientAuth), which
   * can never act as a participant.
   */
  @Test
  void aComputeNodeCertificateIsMarkedAndCannotBeAParticipant(@TempDir Path dir) throws Exception {
    Path ca = dir.resolve("ca");
    CertificateRequests.createCa(ca, "Test CA", Duration.ofDays(1));
    Path csr = CertificateRequests.request(dir.resolve("node"), "compute-node-1");
    Path out = dir.resolve("node.pem");
    CertificateRequests.sign(ca, csr, CertificateRequests.Role.parse("compute-node"), List.of("127.0.0.1"),
        Duration.ofDays(1), out);
    java.security.cert.X509Certificate cert;
    try (var in = java.nio.file.Files.newInputStream(out)) {
      cert = (java.security.cert.X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509")
          .generateCertificate(in);
    }
    org.junit.jupiter.api.Assertions.assertTrue(NodeTls.isComputeNode(cert), cert.getSubjectX500Principal().getName());
    String why = IdentityBinding.participantUsage(cert);
    org.junit.jupiter.api.Assertions.assertTrue(why != null && why.contains("compute node"), why);
  }
}
