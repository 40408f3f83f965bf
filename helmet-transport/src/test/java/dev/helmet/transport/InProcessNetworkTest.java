package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.CoordinatorGrpc;
import dev.helmet.transport.wire.GetSessionRequest;
import dev.helmet.transport.wire.SessionConfig;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tests' in-process network gives the identities of mutual TLS without TLS: a certificate of
 * the deployment's CA is the caller's identity, as the coordinator's {@link Tls.PeerInterceptor}
 * reads it, and the coordinator's certificate is what the participant's call shows; a certificate
 * of another CA, none, or plaintext to a TLS server are refused as their handshakes are.
 */
@org.junit.jupiter.api.Tag("integration")
class InProcessNetworkTest {
  @Test
  void identitiesAreTheCertificatesOfTheDeploymentsCa(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Path other = dir.resolve("other");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 2, Duration.ofDays(1));
    Certificates.create(other, List.of("localhost", "127.0.0.1"), 1, Duration.ofDays(1));
    SessionConfig config = Loopback.config(TestData.digits(), 2, 2, 1).build();
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, Tls.Files.in(certs, "coordinator"), 10))) {
      String target = "127.0.0.1:" + c.port();
      assertTrue(InProcessNetwork.NETWORK.listens(target));
      CoordinatorCertificate seen = new CoordinatorCertificate();
      ManagedChannel ok = Loopback.IN_PROCESS.channel(target, Tls.client(Tls.Files.in(certs, "participant-1"))).build();
      ManagedChannel stranger = Loopback.IN_PROCESS.channel(target, Tls.client(new Tls.Files(
          other.resolve("participant-1.pem"), other.resolve("participant-1-key.pem"), certs.resolve("ca.pem")))).build();
      ManagedChannel anonymous = Loopback.IN_PROCESS.channel(target, io.grpc.TlsChannelCredentials.newBuilder()
          .trustManager(certs.resolve("ca.pem").toFile()).build()).build();
      ManagedChannel plain = Loopback.IN_PROCESS.channel(target, Tls.plaintextClient()).build();
      try {
        SessionConfig published = CoordinatorGrpc.newBlockingStub(ok).withInterceptors(seen)
            .withDeadlineAfter(10, TimeUnit.SECONDS).getSession(GetSessionRequest.getDefaultInstance());
        assertEquals(c.config(), published);
        assertNotNull(seen.certificate(), "the coordinator's certificate on the participant's call");
        assertEquals(IdentityBinding.fingerprint(IdentityBinding.certificate(Tls.Files.in(certs, "coordinator")))[0],
            IdentityBinding.fingerprint(seen.certificate().getEncoded())[0]);
        for (ManagedChannel ch : List.of(stranger, anonymous, plain)) {
          StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> CoordinatorGrpc
              .newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).getSession(GetSessionRequest.getDefaultInstance()));
          assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), String.valueOf(e.getStatus()));
        }
      } finally {
        ok.shutdownNow();
        stranger.shutdownNow();
        anonymous.shutdownNow();
        plain.shutdownNow();
      }
    }
  }

  @Test
  void aPlaintextServerHasNoIdentitiesAndATlsClientIsRefusedThere(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 1, Duration.ofDays(1));
    SessionConfig config = Loopback.config(TestData.digits(), 2, 2, 1).build();
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, null, 10))) {
      String target = "127.0.0.1:" + c.port();
      CoordinatorCertificate seen = new CoordinatorCertificate();
      ManagedChannel plain = Loopback.IN_PROCESS.channel(target, Tls.plaintextClient()).build();
      ManagedChannel tls = Loopback.IN_PROCESS.channel(target, Tls.client(Tls.Files.in(certs, "participant-1"))).build();
      try {
        CoordinatorGrpc.newBlockingStub(plain).withInterceptors(seen).withDeadlineAfter(10, TimeUnit.SECONDS)
            .getSession(GetSessionRequest.getDefaultInstance());
        assertNull(seen.certificate(), "plaintext: no coordinator certificate");
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> CoordinatorGrpc
            .newBlockingStub(tls).withDeadlineAfter(10, TimeUnit.SECONDS).getSession(GetSessionRequest.getDefaultInstance()));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), String.valueOf(e.getStatus()));
      } finally {
        plain.shutdownNow();
        tls.shutdownNow();
      }
    }
  }
}
