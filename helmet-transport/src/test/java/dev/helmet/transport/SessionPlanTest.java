package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.helmet.core.testdata.TestData;
import dev.helmet.secagg.crypto.Secrets;
import dev.helmet.secagg.protocol.SecAggParameters;
import dev.helmet.transport.wire.Roster;
import dev.helmet.transport.wire.RosterEntry;
import dev.helmet.transport.wire.SessionConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The graph seed from committed-then-revealed nonces and the context that binds the whole
 * configuration and roster (issue 13, findings 5 and 6).
 */
class SessionPlanTest {
  private static final int N = 100;

  private record Setup(SessionConfig config, Roster roster, List<byte[]> nonces) {}

  private static Setup setup(String protocol) {
    byte[] coordinatorNonce = Secrets.bytes(32);
    SessionConfig c = Loopback.config(TestData.digits(), N, N - 10, 1).setProtocol(protocol)
        .setGraphNonceCommitment(ByteString.copyFrom(SessionPlan.sha256(coordinatorNonce))).build();
    Roster.Builder r = Roster.newBuilder().setCoordinatorNonce(ByteString.copyFrom(coordinatorNonce));
    List<byte[]> nonces = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      byte[] nonce = Secrets.bytes(32);
      nonces.add(nonce);
      r.addParties(RosterEntry.newBuilder().setParty(i).setPoints(50)
          .setIdentityKey(ByteString.copyFrom(Secrets.bytes(32)))
          .setNonceCommitment(ByteString.copyFrom(SessionPlan.nonceCommitment(nonce))));
    }
    return new Setup(c, r.build(), nonces);
  }

  private static SecAggParameters params(Setup s, List<byte[]> nonces) {
    return SessionPlan.secagg(s.config(), s.roster(), nonces, 10, 32);
  }

  /**
   * One certificate holder, one roster entry: two entries with distinct certificates but the same
   * subject (a CA that issued a second certificate to one name) are refused by every party.
   */
  /**
   * A session whose algorithm has a step that exists only in process (cross-silo's ideal mixnet,
   * which draws the batches without the parties' cryptography) is refused when validated, which a
   * coordinator does at start and a participant at joining, naming the fix; with the real mixnet
   * (run on the coordinator's board) or Poisson sampling the same session is accepted.
   */
  @Test
  void aSessionThatRunsInProcessOnlyIsRefusedBeforeEnrolment() {
    String swor = "{\"learner\": {\"kind\": \"softmax\"}, \"crosssilo\": {\"colluders\": 0, \"sampling\": "
        + "\"swor\", \"batch\": 20, \"swor_mixnet\": \"ideal\", \"rounds\": 3}}";
    SessionConfig.Builder b = Loopback.config(TestData.digits(), 4, 4, 1);
    b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5)).setColludingFraction(0.5);
    var e = assertThrows(IllegalArgumentException.class,
        () -> SessionPlan.validate(Loopback.algorithm(b.clone(), "cross-silo", swor).build()));
    assertTrue(e.getMessage().contains("swor_mixnet real"), e.getMessage());
    SessionPlan.validate(Loopback.algorithm(b.clone(), "cross-silo", swor.replace("ideal", "real")).build());
    SessionPlan.validate(Loopback.algorithm(b.clone(), "cross-silo", swor.replace(", \"sampling\": \"swor\", "
        + "\"batch\": 20, \"swor_mixnet\": \"ideal\"", ", \"sampling_rate\": 0.5")).build());
  }

  /**
   * Security review turn 3, T3-11 (PoC numbers): a swor session of 45 parties with the default
   * max_points of 1,000,000 implies a mixer list beyond what a board post carries (one party's
   * step-1 post alone 2,075 MiB); it is refused when validated, which the coordinator does at start
   * and every participant at joining, before anyone trains, naming max_points, the board's limit and
   * the max_points that fits. The networked swor tests' configuration (3 parties, max_points 100,000)
   * and the same 45 parties with max_points 6,000 are accepted.
   */
  @Test
  void aSworSessionWhoseSetupNoBoardCarriesIsRefusedAtValidation() {
    String swor = "{\"learner\": {\"kind\": \"softmax\"}, \"crosssilo\": {\"colluders\": 0, \"sampling\": "
        + "\"swor\", \"batch\": 20, \"rounds\": 3}}";
    SessionConfig.Builder b = Loopback.config(TestData.digits(), 45, 45, 1);
    b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5)).setColludingFraction(0.5);
    var e = assertThrows(IllegalArgumentException.class, () -> SessionPlan.validate(Loopback.algorithm(b.clone()
        .setMaxPoints(1_000_000), "cross-silo", swor).build()));
    assertTrue(e.getMessage().contains("parties = 45") && e.getMessage().contains("max_points = 1000000")
        && e.getMessage().contains("board post") && e.getMessage().contains("lower max_points to at most"),
        e.getMessage());
    SessionPlan.validate(Loopback.algorithm(b.clone().setMaxPoints(6000), "cross-silo", swor).build());
    SessionConfig.Builder three = Loopback.config(TestData.digits(), 3, 3, 4).setColludingFraction(0.5);
    three.setPrivacy(three.getPrivacy().toBuilder().setHonestFraction(0.5));
    SessionPlan.validate(Loopback.algorithm(three, "cross-silo", swor).build());
  }

  /**
   * A session whose minimum contributors guarantee no honest party under its honest fraction (4
   * parties, half honest: floor(0.5 x 4) = 2 may be dishonest, so 2 contributors guarantee none) is
   * refused when validated, before anyone trains or enrols, naming both fixes with the numbers; so
   * is a floor that secure aggregation cannot be sized for; 4 of 4 contributors are accepted.
   */
  @Test
  void aSessionGuaranteeingNoHonestContributorIsRefusedAtStartWithTheFix() {
    SessionConfig.Builder b = Loopback.config(TestData.digits(), 4, 2, 1).setColludingFraction(0.5);
    b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5));
    var e = assertThrows(IllegalArgumentException.class, () -> SessionPlan.validate(b.build()));
    assertTrue(e.getMessage().contains("raise min_contributors to at least 3")
        && e.getMessage().contains("honest_fraction (--honest-fraction) to at least 0.75"), e.getMessage());
    // 3 contributors guarantee an honest one, but then 1 of 4 enrolled parties may drop while half may
    // collude, which no secure aggregation parameters make safe: refused at start too, saying so.
    var sizing = assertThrows(IllegalArgumentException.class,
        () -> SessionPlan.validate(b.clone().setMinContributors(3).build()));
    assertTrue(sizing.getMessage().contains("the session admits no secure aggregation with 4 enrolled parties and "
        + "min_contributors 3") && sizing.getMessage().contains("raise min_contributors closer to parties")
        && sizing.getMessage().contains("privacy.honest_fraction"), sizing.getMessage());
    SessionPlan.validate(b.clone().setMinContributors(4).build());
  }

  @Test
  void aSubjectListedTwiceIsRefused() {
    Setup s = setup("secagg+");
    Roster.Builder r = s.roster().toBuilder();
    for (int i = 0; i < N; i++) {
      r.setParties(i, r.getParties(i).toBuilder().setSubject("CN=participant-" + i)
          .setCertificateSha256(ByteString.copyFrom(Secrets.bytes(32))));
    }
    SessionPlan.validateRoster(s.config(), r.build());
    r.setParties(7, r.getParties(7).toBuilder().setSubject("CN=participant-3"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SessionPlan.validateRoster(s.config(), r.build()));
    assertTrue(e.getMessage().contains("subject CN=participant-3 is listed for an earlier party"), e.getMessage());
  }

  @Test
  void everyRevealMustMatchItsCommitmentAndSecAggPlusNeedsThemAll() {
    Setup s = setup("secagg+");
    SecAggParameters p = params(s, s.nonces());
    assertTrue(p.graph().degree() < N - 1, "a sparse graph: " + p.graph().description());
    assertEquals(p.graph().description(), params(s, s.nonces()).graph().description());

    List<byte[]> altered = new ArrayList<>(s.nonces());
    byte[] other = altered.get(5).clone();
    other[0] ^= 1;
    altered.set(5, other);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> params(s, altered));
    assertTrue(e.getMessage().contains("party 5's revealed nonce does not match its commitment"), e.getMessage());

    List<byte[]> withheld = new ArrayList<>(s.nonces());
    withheld.set(7, new byte[0]);
    e = assertThrows(IllegalArgumentException.class, () -> params(s, withheld));
    assertTrue(e.getMessage().contains("party 7 did not reveal"), e.getMessage());
  }

  @Test
  void overTheCompleteGraphAWithheldRevealIsAnOrdinaryDropout() {
    Setup s = setup("secagg");
    List<byte[]> withheld = new ArrayList<>(s.nonces());
    withheld.set(7, new byte[0]);
    SecAggParameters p = params(s, withheld);
    assertEquals(N - 1, p.graph().degree());
    assertFalse(p.session() == params(s, s.nonces()).session(), "the seed still covers who revealed");
  }

  /** Finding 5: the context changes with any field of the configuration or the roster. */
  @Test
  void theContextCoversTheWholeConfigurationAndRoster() {
    Setup s = setup("secagg+");
    byte[] context = SessionPlan.context(s.config(), s.roster());
    assertArrayEquals(context, params(s, s.nonces()).context());
    SessionConfig lowerEps = s.config().toBuilder().setPrivacy(s.config().getPrivacy().toBuilder().setEpsilon(0.1))
        .build();
    assertFalse(java.util.Arrays.equals(context, SessionPlan.context(lowerEps, s.roster())), "eps");
    Roster bigger = s.roster().toBuilder().setParties(3, s.roster().getParties(3).toBuilder().setPoints(51)).build();
    assertFalse(java.util.Arrays.equals(context, SessionPlan.context(s.config(), bigger)), "a party's size");
    Roster otherCert = s.roster().toBuilder().setParties(3, s.roster().getParties(3).toBuilder()
        .setCertificateSha256(ByteString.copyFrom(new byte[32]))).build();
    assertFalse(java.util.Arrays.equals(context, SessionPlan.context(s.config(), otherCert)), "a certificate");
  }
}
