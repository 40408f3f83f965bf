package dev.helmet.privacy.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

  /**
   * The cross-silo paper's other targets (Heikkila et al., Fig. 2 and 4; the authors'
   * {@code calculate_privacy.py} comments give them to two decimals, so the tolerance is 0.02,
   * docs/design/cross-silo.md 1.6 and doubt 23): q = 0.008, 1250 steps, delta = 1e-5. Replace-one
   * sigma 0.5 and 2 give 13.81 and 1.07 (the note's FFT check: 13.816, 1.066); add/remove sigma 1
   * gives 1.60 (1.599), and sigma 1.03 at delta 5e-6 about 1.6 (1.580).
   */
  @Test
  void crossSiloGoldenValuesAtTwoDecimals() {
    double[][] cases = { // sigma, delta, authors' eps, replace-one (1) or add/remove (0)
        {0.5, 1e-5, 13.81, 1}, {2, 1e-5, 1.07, 1}, {1, 1e-5, 1.60, 0}, {1.03, 5e-6, 1.58, 0}};
    for (double[] c : cases) {
      NeighbourRelation r = c[3] == 1 ? NeighbourRelation.REPLACE_ONE : NeighbourRelation.ADD_OR_REMOVE_ONE;
      double eps = new PldAccountant().compose(new PoissonSampledDpEvent(0.008, new GaussianDpEvent(c[0]), r), 1250)
          .epsilon(c[1]);
      System.out.printf("cross-silo golden: %s sigma %s delta %s: eps %.4f (authors %.2f)%n", r.id(), c[0], c[1], eps,
          c[2]);
      assertEquals(c[2], eps, 0.02, r.id() + " sigma " + c[0]);
    }
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
  @org.junit.jupiter.api.Tag("statistical")
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

  /**
   * A noise multiplier far below 1 puts the grid's lowest loss far above 0. Connect the dots once
   * extended below the grid with slope -1, which put about e^(lowest loss) of mass there: at sigma
   * 0.01 it overflowed, and the NaN that followed reported eps 9.3e-13 (true: about 5,400). With
   * the chord to (e^eps = 0, delta = 1) the PLD agrees with the closed form from above (within 5 %).
   */
  @Test
  void tinyNoiseMultipliersAgreeWithTheClosedFormFromAbove() {
    for (double sigma : new double[] {0.01, 0.03, 0.05, 0.2}) {
      for (int k : new int[] {1, 3}) {
        double exact = new GaussianAccountant().compose(new GaussianDpEvent(sigma), k).epsilon(1e-5);
        double pld = new PldAccountant(1e-2, PldAccountant.DEFAULT_TAIL).compose(new GaussianDpEvent(sigma), k)
            .epsilon(1e-5);
        assertTrue(pld >= exact - 1e-9, "sigma " + sigma + " x" + k + ": pld " + pld + " < exact " + exact);
        // Close, though looser than at sigma near 1: with losses above about 700 the neighbour's
        // tail mass (about e^-loss) underflows, and the hockey stick then leaves it out (larger,
        // never smaller); 3.8 % at sigma 0.03, where eps is about 700.
        assertEquals(exact, pld, 0.05 * exact, "sigma " + sigma + " x" + k);
      }
      // Subsampled, too: finite, and never looser than RDP.
      var sampled = new PoissonSampledDpEvent(0.5, new GaussianDpEvent(sigma));
      double pld = new PldAccountant(1e-2, PldAccountant.DEFAULT_TAIL).compose(sampled, 3).epsilon(1e-5);
      double rdp = new RdpAccountant().compose(sampled, 3).epsilon(1e-5);
      assertTrue(pld > 1 && pld <= rdp, "sampled sigma " + sigma + ": pld " + pld + " rdp " + rdp);
    }
  }

  /** A noise multiplier whose losses the grid cannot hold is refused by name, never accounted as NaN. */
  @Test
  void aNoiseMultiplierBeyondTheGridIsRefused() {
    for (double sigma : new double[] {1e-4, 1e-200}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new PldAccountant().compose(new GaussianDpEvent(sigma), 1));
      assertTrue(e.getMessage().startsWith("the PLD accountant cannot represent a mechanism with noise multiplier "
          + sigma), e.getMessage());
    }
  }
}
