package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.core.data.Dataset;
import dev.helmet.core.testdata.TestData;
import dev.helmet.secagg.crypto.Signatures;
import dev.helmet.transport.wire.CoordinatorMessage;
import dev.helmet.transport.wire.Deadlines;
import dev.helmet.transport.wire.KeyRoster;
import dev.helmet.transport.wire.ParticipantMessage;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.SessionConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attacks of a malicious coordinator (and of one certificate holder posing as many parties)
 * that the networked deployment must stop (issue 13). A coordinator's misbehaviour towards one
 * victim is played by a hook that rewrites what the victim receives; the victim must stop before
 * anything computed from its data leaves it.
 */
@org.junit.jupiter.api.Tag("integration")
class MaliciousCoordinatorTest {
  private static final Dataset DIGITS = TestData.digits();
  private static final int W = 4;

  @TempDir static Path certs;

  @BeforeAll
  static void certificates() throws Exception {
    Certificates.create(certs, List.of("localhost", "127.0.0.1"), W, Duration.ofDays(1));
  }

  private static SessionConfig config(int enrolmentSeconds) {
    return Loopback.config(DIGITS, W, W - 1, 1e6).setDeadlines(Deadlines.newBuilder()
        .setEnrolmentSeconds(enrolmentSeconds).setRoundSeconds(30)).build();
  }

  /**
   * Finding 1: a coordinator vouches for a neighbour's identity key with a binding signed by its
   * own (server) certificate, which chains to the CA, so that it can later swap in keys it holds.
   * The victim refuses the binding before it shares anything: the certificate is not the one the
   * roster lists for that neighbour (and listing the coordinator's instead changes the roster, whose
   * digest every signature covers; {@link IdentityBindingTest} shows the coordinator's certificate
   * is refused outright as not a participant's).
   */
  @Test
  void aKeyVouchedForByTheCoordinatorsCertificateIsRefused(@TempDir Path dir) throws Exception {
    Tls.Files coordinatorTls = Tls.Files.in(certs, "coordinator");
    byte[] coordinatorCert = IdentityBinding.certificate(coordinatorTls);
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config(60), dir, coordinatorTls, 1e7))) {
      byte[] digest = SessionPlan.digest(c.config());
      Participant.Hook substitute = new Participant.Hook() {
        private Roster roster;

        @Override
        public CoordinatorMessage rewrite(CoordinatorMessage m) {
          if (m.hasRoster()) {
            roster = m.getRoster();
          }
          if (!m.hasKeyRoster() || m.getKeyRoster().getNeighboursCount() == 0) {
            return m;
          }
          int target = m.getKeyRoster().getNeighbours(0).getSender();
          KeyRoster.Builder k = m.getKeyRoster().toBuilder();
          for (int i = 0; i < k.getBindingsCount(); i++) {
            if (k.getBindings(i).getParty() == target) {
              k.setBindings(i, k.getBindings(i).toBuilder().setCertificate(ByteString.copyFrom(coordinatorCert))
                  .setSignature(ByteString.copyFrom(IdentityBinding.sign(coordinatorTls, digest,
                      roster.getParties(target).getIdentityKey().toByteArray(),
                      roster.getParties(target).getNonceCommitment().toByteArray()))));
            }
          }
          return m.toBuilder().setKeyRoster(k).build();
        }
      };
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(DIGITS, W, 50, 2), null,
          i -> Tls.Files.in(certs, "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7),
          i -> i == 0 ? substitute : Participant.Hook.NONE);
      Exception e = outs.get(0).error();
      assertTrue(e != null && e.getMessage().contains("not bound to a participant certificate")
          && e.getMessage().contains("not the one the roster lists"), String.valueOf(e));
      Coordinator.Result r = c.await(90, TimeUnit.SECONDS);
      assertEquals(W - 1, r.contributors().size(), "the others complete without the victim: " + r.contributors());
    }
  }

  /** Finding 2: one certificate enrols once; its holder cannot pose as several of the parties. */
  @Test
  void oneCertificateEnrolsOnce(@TempDir Path dir) throws Exception {
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config(10), dir, Tls.Files.in(certs, "coordinator"),
        1e7))) {
      // Participants 0, 1 and 2 present participant-1's certificate; 3 its own.
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(DIGITS, W, 50, 2), null,
          i -> Tls.Files.in(certs, "participant-" + (i < 3 ? 1 : 4)), ParticipantPolicy.upTo(1e7),
          i -> Participant.Hook.NONE);
      long refused = outs.stream().filter(o -> o.error() != null && (o.error().getMessage().contains("already "
          + "enrolled") || o.error().getMessage().contains("open streams"))).count();
      assertEquals(2, refused, () -> outs.toString());
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      assertFalse(r.completed());
      assertTrue(r.reason().contains("only 2 of 4"), r.reason());
    }
  }

  /**
   * One holder, one enrolment, also across certificates: a second certificate the CA issued for
   * participant-1's name (another key) is refused as the same holder.
   */
  @Test
  void aSecondCertificateForTheSameNameEnrolsNot(@TempDir Path dir) throws Exception {
    Path twin = dir.resolve("twin");
    Path csr = CertificateRequests.request(twin, "participant-1");
    CertificateRequests.sign(certs, csr, CertificateRequests.Role.PARTICIPANT, List.of(), Duration.ofDays(1),
        twin.resolve("participant-1.pem"));
    java.nio.file.Files.copy(certs.resolve("ca.pem"), twin.resolve("ca.pem"));
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config(10), dir, Tls.Files.in(certs, "coordinator"),
        1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(DIGITS, W, 50, 2), null,
          i -> i == 1 ? Tls.Files.in(twin, "participant-1") : Tls.Files.in(certs, "participant-" + (i == 0 ? 1 : i + 1)),
          ParticipantPolicy.upTo(1e7), i -> Participant.Hook.NONE);
      long refused = outs.stream().filter(o -> o.error() != null && o.error().getMessage().contains("another with "
          + "its subject or key")).count();
      assertEquals(1, refused, () -> outs.toString());
      c.await(60, TimeUnit.SECONDS);
    }
  }

  /**
   * Finding 8: an upload grant is honoured only for this party's pending masked input of this
   * summation. A grant for another SecAgg session is ignored: the party sends nothing, is dropped
   * at the round's deadline, and by its own accounting its data spent nothing.
   */
  @Test
  void anUploadGrantForAnotherSummationIsIgnored(@TempDir Path dir) throws Exception {
    Participant.Hook misdirect = new Participant.Hook() {
      @Override
      public dev.helmet.transport.wire.CoordinatorMessage rewrite(dev.helmet.transport.wire.CoordinatorMessage m) {
        return m.hasUploadGrant() ? m.toBuilder().setUploadGrant(m.getUploadGrant().toBuilder()
            .setSecaggSession(m.getUploadGrant().getSecaggSession() + 1)).build() : m;
      }
    };
    SessionConfig config = Loopback.config(DIGITS, W, W - 1, 1e6).setDeadlines(Deadlines.newBuilder()
        .setEnrolmentSeconds(30).setRoundSeconds(5)).build();
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config, dir, Tls.Files.in(certs, "coordinator"), 1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(DIGITS, W, 50, 2), null,
          i -> Tls.Files.in(certs, "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7),
          i -> i == 0 ? misdirect : Participant.Hook.NONE);
      Coordinator.Result r = c.await(60, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      assertEquals(W - 1, r.contributors().size());
      Participant.Result victim = outs.get(0).result();
      assertTrue(victim != null, () -> String.valueOf(outs.get(0).error()));
      assertFalse(r.contributors().contains(victim.party()), "its masked input never left");
      assertEquals(0, victim.epsilon(), 0, "nothing of its data left, so nothing is charged");
    }
  }

  /**
   * Finding 5: the coordinator shows the victim a different roster (another party's size, which
   * changes the victim's noise plan). The roster's digest is bound into every SecAgg signature, so
   * the victim's check of its neighbours' signed keys fails and it sends nothing computed from its
   * data; the others complete without it.
   */
  @Test
  void anEquivocatedRosterStopsTheVictimBeforeItSendsAnything(@TempDir Path dir) throws Exception {
    Participant.Hook equivocate = new Victim() {
      @Override
      public CoordinatorMessage rewrite(CoordinatorMessage m) {
        if (!m.hasRoster()) {
          return m;
        }
        Roster.Builder r = m.getRoster().toBuilder();
        int e = other(m.getRoster());
        r.setParties(e, r.getParties(e).toBuilder().setPoints(r.getParties(e).getPoints() + 1000));
        return m.toBuilder().setRoster(r).build();
      }
    };
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config(60), dir, Tls.Files.in(certs, "coordinator"),
        1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(DIGITS, W, 50, 2), null,
          i -> Tls.Files.in(certs, "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7),
          i -> i == 0 ? equivocate : Participant.Hook.NONE);
      Coordinator.Result r = c.await(90, TimeUnit.SECONDS);
      assertTrue(r.completed(), r.reason());
      assertEquals(W - 1, r.contributors().size(), "the others complete: " + r.contributors());
      Loopback.Outcome victim = outs.get(0);
      assertNull(victim.error(), String.valueOf(victim.error()));
      assertFalse(r.contributors().contains(victim.result().party()), "the victim is not among the contributors");
      assertEquals(0.0, victim.result().epsilon(), "the victim sent no masked input");
      for (int i = 1; i < W; i++) {
        assertNull(outs.get(i).error(), String.valueOf(outs.get(i).error()));
      }
      assertNotNull(r.model());
    }
  }

  /**
   * A coordinator adds a party it made up to the victim's roster (an identity key it holds, no
   * certificate): the plan would count it as a party whose noise is expected. The victim checks
   * every entry's certificate and binding, and stops before it reveals anything; the others, shown
   * the true roster, complete without it.
   */
  @Test
  void aMadeUpRosterEntryStopsTheVictimBeforeItRevealsAnything(@TempDir Path dir) throws Exception {
    Participant.Hook inflate = new Victim() {
      @Override
      public CoordinatorMessage rewrite(CoordinatorMessage m) {
        if (!m.hasRoster()) {
          return m;
        }
        Roster.Builder r = m.getRoster().toBuilder();
        int n = r.getPartiesCount();
        r.addParties(r.getParties(other(m.getRoster())).toBuilder().setParty(n)
            .setIdentityKey(com.google.protobuf.ByteString.copyFrom(dev.helmet.secagg.crypto.Secrets.bytes(32)))
            .setNonceCommitment(com.google.protobuf.ByteString.copyFrom(dev.helmet.secagg.crypto.Secrets.bytes(32)))
            .setSubject("CN=nobody").clearCertificate().clearIdentityBinding()
            .setCertificateSha256(com.google.protobuf.ByteString.copyFrom(dev.helmet.secagg.crypto.Secrets.bytes(32))));
        return m.toBuilder().setRoster(r).build();
      }
    };
    try (Coordinator c = Coordinator.start(Loopback.inProcess(config(60), dir, Tls.Files.in(certs, "coordinator"),
        1e7))) {
      List<Loopback.Outcome> outs = Loopback.participants(c, Loopback.shards(DIGITS, W, 50, 2), null,
          i -> Tls.Files.in(certs, "participant-" + (i + 1)), ParticipantPolicy.upTo(1e7),
          i -> i == 0 ? inflate : Participant.Hook.NONE);
      Coordinator.Result r = c.await(90, TimeUnit.SECONDS);
      Exception e = outs.get(0).error();
      assertNotNull(e, "the victim went on");
      assertTrue(e.getMessage().contains("lists party " + W + " that is not a distinct certified participant"),
          e.getMessage());
      assertTrue(r.completed(), r.reason());
      assertEquals(W - 1, r.contributors().size());
    }
  }

  /** A hook on the victim's side that knows which roster entry is the victim's (by its nonce). */
  private abstract static class Victim implements Participant.Hook {
    private byte[] ownNonce;

    @Override
    public List<ParticipantMessage> sending(ParticipantMessage m) {
      if (m.hasJoin()) {
        ownNonce = m.getJoin().getNonceCommitment().toByteArray();
      }
      return List.of(m);
    }

    /** The first roster entry that is not the victim's. */
    int other(Roster r) {
      for (int i = 0; i < r.getPartiesCount(); i++) {
        if (!java.util.Arrays.equals(r.getParties(i).getNonceCommitment().toByteArray(), ownNonce)) {
          return i;
        }
      }
      throw new IllegalStateException("the roster lists only the victim");
    }
  }
}
