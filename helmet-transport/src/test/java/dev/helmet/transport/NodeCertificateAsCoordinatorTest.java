package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security review turn 3, T3-9 (built on its {@code NodeAsCoordinatorPocTest}): a compute node's
 * certificate from {@code helmet certs --compute-nodes} carried serverAuth and the coordinator's
 * host names, and participants accepted any serverAuth certificate of the CA for the host they
 * dialled, so a coordinator presenting {@code compute-node-1.pem} ran a session to completion. Now
 * participants (and nodes dialling the coordinator) refuse a certificate with the node marker in the
 * TLS handshake, naming it, and node certificates name the nodes' hosts, not the coordinator's.
 */
@org.junit.jupiter.api.Tag("integration")
class NodeCertificateAsCoordinatorTest {
  @Test
  void participantsRefuseACoordinatorPresentingANodeCertificateInTheHandshake(@TempDir Path dir) throws Exception {
    Dataset digits = TestData.digits();
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 3, 1, Duration.ofDays(1));
    SessionConfig config = Loopback.config(digits, 3, 3, 1e6).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, Tls.Files.in(certs, "compute-node-1"), 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(digits, 3, 50, 4), null,
          i -> Tls.Files.in(certs, "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7));
      for (Loopback.Outcome o : outs) {
        assertNull(o.result(), "a participant took part with a node's certificate as the coordinator");
        String why = String.valueOf(o.error().getMessage());
        assertTrue(why.contains("TLS handshake failed") && why.contains("compute node's certificate")
            && why.contains("OU=compute-node") && why.contains("CN=compute-node-1"), why);
      }
    }
  }

  @Test
  void theCoordinatorsHostNameIsStillChecked(@TempDir Path dir) throws Exception {
    // The marker check wraps the CA's trust manager: the dialled host must still be one the
    // coordinator's certificate names (here it names another host only).
    Dataset digits = TestData.digits();
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("coord.example.org"), 1, Duration.ofDays(1));
    SessionConfig config = Loopback.config(digits, 2, 2, 1e6).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, Tls.Files.in(certs, "coordinator"), 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(digits, 1, 50, 4), null,
          i -> Tls.Files.in(certs, "participant-1"), ParticipantPolicy.upTo(1e7));
      String why = String.valueOf(outs.get(0).error().getMessage());
      assertTrue(why.contains("does not name the host"), why);
    }
  }

  @Test
  void aNodeDiallingTheCoordinatorRefusesANodeCertificateThere(@TempDir Path dir) throws Exception {
    Dataset digits = TestData.digits();
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 1, 2, Duration.ofDays(1));
    SessionConfig config = Loopback.config(digits, 3, 3, 1e6).build();
    try (Coordinator c = Coordinator.start(Loopback.settings(config, dir, Tls.Files.in(certs, "compute-node-1"), 1e7))) {
      AtomicReference<X509Certificate> seen = new AtomicReference<>();
      ManagedChannel ch = NettyChannelBuilder.forTarget("127.0.0.1:" + c.port(),
          NodeTls.capturing(Tls.Files.in(certs, "compute-node-2"), seen::set)).build();
      try {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> CoordinatorGrpc
            .newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS).getSession(GetSessionRequest.getDefaultInstance()));
        assertNull(seen.get(), "the node took a node's certificate as the coordinator's");
        assertNotNull(nodeCertificateRefusal(e), "refused, but not for the node marker: " + e);
      } finally {
        ch.shutdownNow();
      }
    }
  }

  @Test
  void nodeCertificatesNameTheNodesHostsNotTheCoordinators(@TempDir Path dir) throws Exception {
    Certificates.create(dir.resolve("demo"), List.of("coord.example.org", "192.0.2.7"), 0, 1, Duration.ofDays(1));
    X509Certificate demo = read(dir.resolve("demo/compute-node-1.pem"));
    assertEquals(List.of("localhost", "127.0.0.1"), names(demo), "a demo's nodes run on loopback");
    assertEquals(List.of("coord.example.org", "192.0.2.7"), names(read(dir.resolve("demo/coordinator.pem"))));

    Certificates.create(dir.resolve("own"), List.of("coord.example.org"), 0, 2, List.of("node1.example.org", "192.0.2.8"),
        Duration.ofDays(1));
    for (String node : List.of("compute-node-1", "compute-node-2")) {
      X509Certificate cert = read(dir.resolve("own/" + node + ".pem"));
      List<String> names = names(cert);
      assertEquals(List.of("node1.example.org", "192.0.2.8"), names);
      assertFalse(names.contains("coord.example.org"), node + " names the coordinator's host: " + names);
      assertTrue(NodeTls.isComputeNode(cert));
    }
    assertThrows(IllegalArgumentException.class, () -> Certificates.create(dir.resolve("none"),
        List.of("coord.example.org"), 0, 1, List.of(), Duration.ofDays(1)));
  }

  private static CoordinatorTrustManager.NodeCertificate nodeCertificateRefusal(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof CoordinatorTrustManager.NodeCertificate n) {
        return n;
      }
    }
    return null;
  }

  private static List<String> names(X509Certificate cert) throws Exception {
    Collection<List<?>> alt = cert.getSubjectAlternativeNames();
    List<String> out = new ArrayList<>();
    for (List<?> n : alt) {
      out.add(String.valueOf(n.get(1)));
    }
    return out;
  }

  private static X509Certificate read(Path p) throws Exception {
    try (var in = Files.newInputStream(p)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }
}
