package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SlackDpEvent;
import org.junit.jupiter.api.Test;

class SlackDpEventTest {
  private static final DpEvent STEP =
      new PoissonSampledDpEvent(0.008, new GaussianDpEvent(1), NeighbourRelation.REPLACE_ONE);

  /**
   * Exact algebra of the PLD (design note 2.8): K steps of Slack(s, X) have delta(eps) = 1 - (1 -
   * s)^K + (1 - s)^K delta_X^K(eps), since the failure mass composes as 1 - prod(1 - s) and every
   * finite loss is scaled by (1 - s)^K. Within 1e-12 at every eps.
   */
  @Test
  void slackComposesAsOneMinusTheProductOfSuccesses() {
    int k = 200;
    double s = 1e-8;
    PldAccountant plain = new PldAccountant().compose(STEP, k);
    PldAccountant slack = new PldAccountant().compose(new SlackDpEvent(s, STEP), k);
    double keep = Math.pow(1 - s, k);
    for (double eps : new double[] {0, 0.1, 0.5, 1, 2, 4}) {
      if (eps == 4) { // plain's delta is below what the accountant resolves: it reports the floor
        assertEquals(PldAccountant.SMALLEST_DELTA, plain.delta(eps));
        assertTrue(slack.delta(eps) <= plain.delta(eps) + k * s + 1e-15);
        continue;
      }
      assertTrue(plain.delta(eps) > PldAccountant.SMALLEST_DELTA, "eps " + eps);
      double expected = 1 - keep + keep * plain.delta(eps);
      assertEquals(expected, slack.delta(eps), 1e-12, "eps " + eps);
      // and so at most delta_X + K s, the union bound the paper's (eps, delta + delta') states
      assertTrue(slack.delta(eps) <= plain.delta(eps) + k * s + 1e-15);
    }
  }

  /**
   * One Gaussian release with slack against the closed form (Balle and Wang 2018, {@link
   * GaussianMath}): s + (1 - s) delta_G(eps), from above (the PLD only adds loss) and within 1e-4.
   */
  @Test
  void oneGaussianWithSlackMatchesTheClosedForm() {
    double s = 1e-3;
    PldAccountant a = new PldAccountant().compose(new SlackDpEvent(s, new GaussianDpEvent(2)), 1);
    for (double eps : new double[] {0, 0.25, 0.5, 1}) {
      double exact = s + (1 - s) * GaussianMath.delta(eps, 0.5);
      double pld = a.delta(eps);
      assertTrue(pld >= exact - 1e-12, "eps " + eps + ": " + pld + " < " + exact);
      assertEquals(exact, pld, 1e-4, "eps " + eps);
    }
  }

  /** Zero slack changes nothing; slack above the target delta makes eps infinite. */
  @Test
  void zeroSlackIsTheInnerEventAndLargeSlackIsInfinite() {
    double inner = new PldAccountant().compose(STEP, 50).epsilon(1e-5);
    assertEquals(inner, new PldAccountant().compose(new SlackDpEvent(0, STEP), 50).epsilon(1e-5), 1e-12);
    assertEquals(Double.POSITIVE_INFINITY,
        new PldAccountant().compose(new SlackDpEvent(1e-6, STEP), 50).epsilon(1e-5));
  }

  /** RDP cannot express a failure probability: the RDP accountant refuses the event. */
  @Test
  void rdpRefusesSlack() {
    DpEvent e = new SlackDpEvent(1e-9, new GaussianDpEvent(1));
    assertFalse(new RdpAccountant().supports(e));
    assertThrows(UnsupportedEventException.class, () -> new RdpAccountant().compose(e));
    assertTrue(new PldAccountant().supports(e));
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> new SlackDpEvent(1.5, e));
    assertEquals("slack must be in [0, 1]. Provided value: 1.5", bad.getMessage());
  }
}
