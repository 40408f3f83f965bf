package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import org.junit.jupiter.api.Test;

class PldAccountantTest {
  /**
   * For the plain Gaussian mechanism the PLD agrees with the exact closed form (SPEC 1.4, Balle
   * and Wang 2018), from above: discretisation only ever adds loss.
   */
  @Test
  void gaussianAgreesWithTheClosedFormFromAbove() {
    for (double sigma : new double[] {0.8, 1, 3.7306316348}) {
      for (int k : new int[] {1, 10}) {
        double exact = new GaussianAccountant().compose(new GaussianDpEvent(sigma), k).epsilon(1e-5);
        double pld = new PldAccountant().compose(new GaussianDpEvent(sigma), k).epsilon(1e-5);
        assertTrue(pld >= exact - 1e-9, "sigma " + sigma + " x" + k + ": pld " + pld + " < exact " + exact);
        assertEquals(exact, pld, 2e-3 * Math.max(1, exact), "sigma " + sigma + " x" + k);
      }
    }
  }

  /**
   * Golden value from the cross-silo paper's accountant: replace-one neighbours, sigma = 1, q =
   * 0.008, 1250 steps, delta = 1e-5 gives eps = 2.507.
   */
  @Test
  void replaceOneMatchesTheCrossSiloPaper() {
    PldAccountant a = new PldAccountant();
    a.compose(new PoissonSampledDpEvent(0.008, new GaussianDpEvent(1), NeighbourRelation.REPLACE_ONE), 1250);
    double eps = a.epsilon(1e-5);
    assertEquals(2.507, eps, 5e-4, "eps " + eps); // the paper reports three decimals
  }

  /** On the same event the PLD is never looser than RDP (here: Opacus's DP-SGD example). */
  @Test
  void neverLooserThanRdp() {
    var event = new PoissonSampledDpEvent(0.04, new GaussianDpEvent(1.5));
    double rdp = new RdpAccountant().compose(event, 2250).epsilon(1e-5);
    PldAccountant pld = new PldAccountant().compose(event, 2250);
    double eps = pld.epsilon(1e-5);
    assertTrue(eps <= rdp, "pld " + eps + " vs rdp " + rdp);
    assertTrue(pld.delta(eps) <= 1e-5 * (1 + 1e-9));
    System.out.printf("sigma 1.5, q 0.04, 2250 steps, delta 1e-5: RDP %.4f, PLD %.4f%n", rdp, eps);
  }

  /** Never looser than RDP across a grid of subsampled Gaussians (noise, rate, steps, delta). */
  @Test
  void neverLooserThanRdpOnAGrid() {
    for (double sigma : new double[] {0.8, 2, 5}) {
      for (double q : new double[] {0.01, 0.2}) {
        for (int steps : new int[] {10, 500}) {
          var event = new PoissonSampledDpEvent(q, new GaussianDpEvent(sigma));
          for (double delta : new double[] {1e-5, 1e-8}) {
            double rdp = new RdpAccountant().compose(event, steps).epsilon(delta);
            double pld = new PldAccountant().compose(event, steps).epsilon(delta);
            assertTrue(pld <= rdp, String.format("sigma %s q %s steps %d delta %s: pld %s > rdp %s", sigma, q, steps,
                delta, pld, rdp));
          }
        }
      }
    }
  }
}
