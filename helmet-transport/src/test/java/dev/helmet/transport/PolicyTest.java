package dev.helmet.transport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.testdata.TestData;
import dev.helmet.transport.wire.SessionConfig;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A participant's policy bounds every privacy-relevant parameter a coordinator publishes, and the
 * configuration's own validation ties SecAgg+'s colluders to the noise's honest fraction (issue 13,
 * findings 3, 4 and 8).
 */
class PolicyTest {
  private static final ParticipantPolicy DEFAULT = new ParticipantPolicy(1, 2, Set.of(), 0.5);

  private static SessionConfig.Builder base() {
    SessionConfig.Builder b = Loopback.config(TestData.digits(), 10, 9, 1).setColludingFraction(0.5);
    return b.setPrivacy(b.getPrivacy().toBuilder().setHonestFraction(0.5));
  }

  private static SessionConfig gaussian() {
    return Loopback.algorithm(base(), "helmet", Loopback.HELMET.replace("discrete-gaussian", "gaussian")).build();
  }

  @Test
  void theDefaultsAcceptAnOrdinarySession() {
    assertNull(DEFAULT.check(base().build()));
  }

  /** Finding 4: delta 0.4 cuts the noise about sixfold while eps stays 1; the default refuses it. */
  @Test
  void aLargeDeltaIsRefusedNamingTheParameter() {
    SessionConfig c = base().setPrivacy(base().getPrivacy().toBuilder().setDelta(0.4)).build();
    String why = DEFAULT.check(c);
    assertTrue(why != null && why.startsWith("privacy.delta") && why.contains("1.0E-5"), why);
    assertTrue(why.contains("--max-delta 0.4 would allow it"), why);
  }

  @Test
  void floatingPointNoiseAWeakerSplitAndHugeClaimsAreRefusedByDefault() {
    String why = DEFAULT.check(gaussian());
    assertTrue(why != null && why.startsWith("noise:") && why.contains("exact") && why.contains("--allow-float-noise"),
        why);
    SessionConfig dpfl = Loopback.algorithm(base(), "dp-fl", "{\"dpfl\": {\"sampling_rate\": 0.5, \"grad_clip\": 1, "
        + "\"rounds\": 2, \"learning_rate\": 1, \"noise_split\": \"all-trusted\"}}").build();
    why = DEFAULT.check(dpfl);
    assertTrue(why != null && why.startsWith("noise_split"), why);
    why = DEFAULT.check(base().setMaxPoints(SessionFile.DEFAULT_MAX_POINTS + 1).build());
    assertTrue(why != null && why.startsWith("max_points") && why.contains("--max-points "), why);
    ParticipantPolicy lenient = ParticipantPolicy.upTo(1);
    assertNull(lenient.check(gaussian()), "a demo policy may allow float noise");
    assertFalse(lenient.check(base().setPrivacy(base().getPrivacy().toBuilder().setDelta(0.4)).build()) == null,
        "even the demo policy refuses delta 0.4");
  }

  /** Finding 3: colluders below 1 - t would let two neighbours and the server unmask a party. */
  @Test
  void colludingFractionBelowTheDishonestFractionIsInvalid() {
    SessionConfig c = base().setColludingFraction(0).build();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SessionPlan.validate(c));
    assertTrue(e.getMessage().contains("colluding_fraction") && e.getMessage().contains("honest_fraction"),
        e.getMessage());
    SessionPlan.validate(base().build());
  }

  /**
   * A coordinator that claims every party is honest (t = 1) may publish colluding fraction 0, which
   * validates (1 - t = 0) and gives SecAgg+ two neighbours per party: the participant's own belief
   * (at most half honest, by default) refuses both the smaller noise and the weaker summation.
   */
  @Test
  void aSessionCountingOnMoreHonestPartiesThanThisOneTrustsIsRefused() {
    SessionConfig allHonest = base().setColludingFraction(0)
        .setPrivacy(base().getPrivacy().toBuilder().setHonestFraction(1)).build();
    SessionPlan.validate(allHonest); // consistent in itself
    String why = DEFAULT.check(allHonest);
    assertTrue(why != null && why.startsWith("privacy.honest_fraction"), why);
    // issue 47: the refusal names the flag that would change it (a new user could not tell)
    assertTrue(why.contains("--honest-fraction 1.0 would allow it"), why);
    SessionConfig fewColluders = base().setColludingFraction(0.3)
        .setPrivacy(base().getPrivacy().toBuilder().setHonestFraction(0.7)).build();
    why = new ParticipantPolicy(1, 2, Set.of(), 0.7).check(fewColluders);
    assertNull(why, "a participant that trusts 70 % accepts it");
    why = new ParticipantPolicy(1, 2, Set.of(), 0.5).check(base().setColludingFraction(0.3).build());
    assertTrue(why != null && why.startsWith("colluding_fraction"), why);
  }

  @Test
  void aParticipantMayLimitTheAlgorithmsItTakesPartIn() {
    ParticipantPolicy onlyDpFl = new ParticipantPolicy(1, 2, Set.of(), 0.5, 1e-5, Set.of(), Set.of(), true, 1,
        SessionFile.DEFAULT_MAX_POINTS, Set.of("dp-fl"));
    String why = onlyDpFl.check(base().build());
    assertTrue(why != null && why.startsWith("algorithm: the session runs helmet"), why);
    assertNull(DEFAULT.check(base().build()), "no limit by default");
  }

  @Test
  void plaintextOnlyTowardsLoopback() {
    assertTrue(Participant.isLoopback("127.0.0.1:7443"));
    assertTrue(Participant.isLoopback("localhost:1"));
    assertTrue(Participant.isLoopback("[::1]:7443"));
    assertFalse(Participant.isLoopback("10.0.0.1:7443"));
    assertFalse(Participant.isLoopback("coordinator.example:7443"));
    Participant.ParticipantException e = assertThrows(Participant.ParticipantException.class, () -> Participant.run(new Participant.Settings(
        "10.0.0.1:7443", null, ParticipantPolicy.upTo(1), TestData.digits(), 1L, 5)));
    assertTrue(e.getMessage().contains("loopback"), e.getMessage());
  }
}
