package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.ParticipantMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Identity keys bound to TLS certificates, so a coordinator cannot substitute them. */
@org.junit.jupiter.api.Tag("integration")
class IdentityBindingTest {
  @Test
  void aBindingHoldsOnlyForItsKeyItsConfigurationAndTheDeploymentsCa(@TempDir Path dir) throws Exception {
    Certificates.create(dir.resolve("a"), List.of("localhost"), 2, Duration.ofDays(1));
    Certificates.create(dir.resolve("b"), List.of("localhost"), 1, Duration.ofDays(1));
    Tls.Files p1 = Tls.Files.in(dir.resolve("a"), "participant-1");
    byte[] session = new byte[32]; // the configuration's digest
    byte[] key = new byte[32];
    byte[] nonce = new byte[32];
    key[0] = 7;
    byte[] cert = IdentityBinding.certificate(p1);
    byte[] sig = IdentityBinding.sign(p1, session, key, nonce);
    var ca = IdentityBinding.ca(p1);
    assertNull(IdentityBinding.check(cert, sig, ca, session, key, nonce));
    byte[] otherKey = key.clone();
    otherKey[0] = 8;
    assertNotNull(IdentityBinding.check(cert, sig, ca, session, otherKey, nonce), "a substituted identity key");
    byte[] otherSession = session.clone();
    otherSession[3] = 1;
    assertNotNull(IdentityBinding.check(cert, sig, ca, otherSession, key, nonce), "replayed into another configuration");
    assertNotNull(IdentityBinding.check(IdentityBinding.certificate(Tls.Files.in(dir.resolve("a"), "participant-2")),
        sig, ca, session, key, nonce), "another participant's certificate");
    Tls.Files stranger = Tls.Files.in(dir.resolve("b"), "participant-1");
    byte[] strangerSig = IdentityBinding.sign(stranger, session, key, nonce);
    String why = IdentityBinding.check(IdentityBinding.certificate(stranger), strangerSig, ca, session, key, nonce);
    assertTrue(why != null && why.contains("not valid for this deployment's CA"), why);
  }

  /**
   * Issue 13, finding 1: the coordinator's own certificate (serverAuth) and the CA's chain to the CA
   * but are not participant certificates, so neither can vouch for an identity key.
   */
  @Test
  void neitherTheCoordinatorsNorTheCasCertificateCanBindAnIdentityKey(@TempDir Path dir) throws Exception {
    Certificates.create(dir, List.of("localhost"), 1, Duration.ofDays(1));
    Tls.Files coordinator = Tls.Files.in(dir, "coordinator");
    var ca = IdentityBinding.ca(coordinator);
    byte[] digest = new byte[32];
    byte[] key = new byte[32];
    byte[] nonce = new byte[32];
    String why = IdentityBinding.check(IdentityBinding.certificate(coordinator),
        IdentityBinding.sign(coordinator, digest, key, nonce), ca, digest, key, nonce);
    assertTrue(why != null && why.contains("not a participant certificate"), why);
    Tls.Files caAsLeaf = new Tls.Files(dir.resolve("ca.pem"), dir.resolve("ca-key.pem"), dir.resolve("ca.pem"));
    why = IdentityBinding.check(IdentityBinding.certificate(caAsLeaf), IdentityBinding.sign(caAsLeaf, digest, key,
        nonce), ca, digest, key, nonce);
    assertTrue(why != null && why.contains("CA certificate"), why);
    Tls.Files participant = Tls.Files.in(dir, "participant-1");
    assertNull(IdentityBinding.check(IdentityBinding.certificate(participant), IdentityBinding.sign(participant, digest,
        key, nonce), ca, digest, key, nonce));
  }

  /** A Join whose binding does not verify, or whose certificate is not the handshake's, is refused. */
  @Test
  void theCoordinatorRefusesJoinsWithABadBinding(@TempDir Path dir) throws Exception {
    Path certs = dir.resolve("certs");
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), 4, Duration.ofDays(1));
    Dataset digits = TestData.digits();
    var config = Loopback.config(digits, 4, 3, 1e6).setDeadlines(dev.helmet.transport.wire.Deadlines.newBuilder()
        .setEnrolmentSeconds(8).setRoundSeconds(30)).build();
    byte[] otherCert = IdentityBinding.certificate(Tls.Files.in(certs, "participant-4"));
    Participant.Hook badSignature = new Participant.Hook() {
      @Override
      public List<ParticipantMessage> sending(ParticipantMessage m) {
        if (!m.hasJoin()) {
          return List.of(m);
        }
        byte[] sig = m.getJoin().getIdentityBinding().toByteArray();
        sig[sig.length - 1] ^= 1;
        return List.of(m.toBuilder().setJoin(m.getJoin().toBuilder().setIdentityBinding(ByteString.copyFrom(sig)))
            .build());
      }
    };
    Participant.Hook foreignCert = new Participant.Hook() {
      @Override
      public List<ParticipantMessage> sending(ParticipantMessage m) {
        return m.hasJoin() ? List.of(m.toBuilder().setJoin(m.getJoin().toBuilder()
            .setCertificate(ByteString.copyFrom(otherCert))).build()) : List.of(m);
      }
    };
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, Tls.Files.in(certs, "coordinator"), 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(digits, 4, 50, 2), null,
          i -> Tls.Files.in(certs, "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7),
          i -> i == 0 ? badSignature : i == 1 ? foreignCert : Participant.Hook.NONE);
      assertTrue(outs.get(0).error() != null && outs.get(0).error().getMessage().contains("does not verify"),
          String.valueOf(outs.get(0).error()));
      assertTrue(outs.get(1).error() != null && outs.get(1).error().getMessage().contains("TLS handshake"),
          String.valueOf(outs.get(1).error()));
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      assertTrue(!r.completed() && r.reason().contains("only 2 of 4"), r.reason());
    }
  }
}
