package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.MixtureDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.NoOpDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import org.junit.jupiter.api.Test;

class MixtureDpEventTest {
  private static DpEvent replaceOne(double q, double sigma) {
    return new PoissonSampledDpEvent(q, new GaussianDpEvent(sigma), NeighbourRelation.REPLACE_ONE);
  }

  /** A mixture of copies of one event is that event (after 300 compositions, within 1e-12). */
  @Test
  void mixtureOfIdenticalComponentsIsTheComponent() {
    DpEvent x = new PoissonSampledDpEvent(0.01, new GaussianDpEvent(1.2)); // add/remove: two directions
    DpEvent m = new MixtureDpEvent(new double[] {0.3, 0.7}, new DpEvent[] {x, x});
    PldAccountant a = new PldAccountant().compose(x, 300);
    PldAccountant b = new PldAccountant().compose(m, 300);
    for (double eps : new double[] {0.2, 0.5, 1, 2}) {
      assertEquals(a.delta(eps), b.delta(eps), 1e-12, "eps " + eps);
    }
  }

  /**
   * One release of a revealed mixture of Gaussians: delta(eps) = sum_i w_i delta_i(eps), each by
   * the closed form (Balle and Wang 2018, {@link GaussianMath}); the PLD from above, within 1e-4.
   */
  @Test
  void oneReleaseIsTheWeightedSumOfClosedForms() {
    MixtureDpEvent m = new MixtureDpEvent(new double[] {0.25, 0.75},
        new DpEvent[] {new GaussianDpEvent(1), new GaussianDpEvent(2)});
    PldAccountant a = new PldAccountant().compose(m, 1);
    for (double eps : new double[] {0, 0.3, 1, 2}) {
      double exact = 0.25 * GaussianMath.delta(eps, 1) + 0.75 * GaussianMath.delta(eps, 0.5);
      double pld = a.delta(eps);
      assertTrue(pld >= exact - 1e-12, "eps " + eps + ": " + pld + " < " + exact);
      assertEquals(exact, pld, 1e-4, "eps " + eps);
    }
  }

  /** Weight w on the identity scales every delta(eps >= 0) of one release by 1 - w. */
  @Test
  void weightOnTheIdentityScalesDeltaLinearly() {
    DpEvent x = replaceOne(0.2, 1);
    double w = 0.4;
    PldAccountant plain = new PldAccountant().compose(x, 1);
    PldAccountant mixed = new PldAccountant().compose(
        new MixtureDpEvent(new double[] {w, 1 - w}, new DpEvent[] {new NoOpDpEvent(), x}), 1);
    for (double eps : new double[] {0, 0.1, 0.5, 1}) {
      assertEquals((1 - w) * plain.delta(eps), mixed.delta(eps), 1e-13 + 1e-12 * plain.delta(eps), "eps " + eps);
    }
  }

  /**
   * An independent computation: the hockey-stick divergence of the revealed mixture of two
   * replace-one pairs (q = 0.3 and 0.6, sigma 1), sum_i w_i int (p_i - e^eps q_i)_+ dx with p_i =
   * (1 - q_i) N(0, 1) + q_i N(1, 1) and q_i's mean -1, by the midpoint rule on [-14, 15] with
   * step 2e-4 (error far below 1e-8). The PLD is above it and within 1e-4.
   */
  @Test
  void agreesWithADirectHockeyStickIntegral() {
    double[] w = {0.35, 0.65};
    double[] q = {0.3, 0.6};
    MixtureDpEvent m = new MixtureDpEvent(w, new DpEvent[] {replaceOne(q[0], 1), replaceOne(q[1], 1)});
    PldAccountant a = new PldAccountant().compose(m, 1);
    for (double eps : new double[] {0, 0.2, 0.6, 1.2}) {
      double direct = 0;
      for (int i = 0; i < 2; i++) {
        double step = 2e-4;
        double sum = 0;
        for (double x = -14 + step / 2; x < 15; x += step) {
          double p = (1 - q[i]) * phi(x) + q[i] * phi(x - 1);
          double r = (1 - q[i]) * phi(x) + q[i] * phi(x + 1);
          sum += Math.max(0, p - Math.exp(eps) * r);
        }
        direct += w[i] * sum * step;
      }
      double pld = a.delta(eps);
      assertTrue(pld >= direct - 1e-9, "eps " + eps + ": pld " + pld + " < direct " + direct);
      assertEquals(direct, pld, 1e-4, "eps " + eps);
    }
  }

  private static double phi(double x) {
    return Math.exp(-x * x / 2) / Math.sqrt(2 * Math.PI);
  }

  /**
   * RDP of a revealed mixture: 1/(alpha - 1) ln sum_i w_i exp((alpha - 1) alpha / (2 sigma_i^2))
   * for Gaussians; mixtures of replace-one components stay unsupported, as the components are.
   */
  @Test
  void rdpOfAMixtureOfGaussians() {
    MixtureDpEvent m = new MixtureDpEvent(new double[] {0.5, 0.5},
        new DpEvent[] {new GaussianDpEvent(1), new GaussianDpEvent(3)});
    double[] orders = {1.5, 2, 8, 32};
    double[] curve = RdpAccountant.curve(m, orders);
    for (int i = 0; i < orders.length; i++) {
      double a = orders[i];
      double expected = Math.log(0.5 * Math.exp((a - 1) * a / 2) + 0.5 * Math.exp((a - 1) * a / 18)) / (a - 1);
      assertEquals(expected, curve[i], 1e-10 * expected, "alpha " + a);
      assertTrue(curve[i] <= a / 2, "never above the worse component");
    }
    assertFalse(new RdpAccountant().supports(new MixtureDpEvent(new double[] {1}, new DpEvent[] {replaceOne(0.1, 1)})));
  }

  @Test
  void malformedMixturesAreRefused() {
    IllegalArgumentException sum = assertThrows(IllegalArgumentException.class,
        () -> new MixtureDpEvent(new double[] {0.5, 0.4}, new DpEvent[] {new NoOpDpEvent(), new NoOpDpEvent()}));
    assertTrue(sum.getMessage().startsWith("mixture weights must sum to 1. Provided sum: 0.9"), sum.getMessage());
    IllegalArgumentException len = assertThrows(IllegalArgumentException.class,
        () -> new MixtureDpEvent(new double[] {1}, new DpEvent[0]));
    assertTrue(len.getMessage().contains("one weight per component"), len.getMessage());
    IllegalArgumentException neg = assertThrows(IllegalArgumentException.class,
        () -> new MixtureDpEvent(new double[] {-0.5, 1.5}, new DpEvent[] {new NoOpDpEvent(), new NoOpDpEvent()}));
    assertEquals("mixture weight 0 must be in [0, 1]. Provided value: -0.5", neg.getMessage());
  }
}
