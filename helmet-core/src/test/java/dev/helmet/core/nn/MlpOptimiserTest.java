package dev.helmet.core.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@link Sgd} and {@link Adam} against values computed by hand from their defining formulas. */
class MlpOptimiserTest {
  @Test
  void adamsFirstThreeStepsMatchTheFormulasOfKingmaAndBaAlgorithm1() {
    // Computed with 50-digit decimal arithmetic from Algorithm 1 of Kingma and Ba (ICLR 2015):
    // lr 0.01, beta1 0.9, beta2 0.999, eps 1e-8, theta_0 = (1, -0.5), gradients (2, -0.25),
    // (-1, 0.5), (0.5, 0). Step 1: m = (0.2, -0.025), v = (0.004, 6.25e-5), m-hat = g, v-hat = g^2,
    // so theta moves by lr g / (|g| + eps), just under lr. The tolerances are a few units in the
    // last place: 1 - 0.9 and 1 - 0.999 are not exact in binary.
    Adam.State s = new Adam(0.01).start(2);
    double[] theta = {1.0, -0.5};
    s.update(theta, new double[] {2.0, -0.25});
    assertArrayEquals(new double[] {0.99000000004999999975, -0.49000000039999998400}, theta, 1e-16);
    assertArrayEquals(new double[] {0.2, -0.025}, s.firstMoment(), 1e-16);
    assertArrayEquals(new double[] {0.004, 0.0000625}, s.secondMoment(), 1e-17);
    s.update(theta, new double[] {-1.0, 0.5});
    assertArrayEquals(new double[] {0.98733662967024313578, -0.49366103557775465808}, theta, 1e-15);
    assertArrayEquals(new double[] {0.08, 0.0275}, s.firstMoment(), 1e-16);
    assertArrayEquals(new double[] {0.004996, 0.0003124375}, s.secondMoment(), 1e-16);
    s.update(theta, new double[] {0.5, 0.0});
    assertArrayEquals(new double[] {0.98393233821389424718, -0.49649102636487057322}, theta, 1e-15);
    assertEquals(3, s.steps());
  }

  @Test
  void adamsDefaultsAreThePapers() {
    assertEquals(new Adam(0.005, 0.9, 0.999, 1e-8), new Adam(0.005));
  }

  @Test
  void sgdStepsAgainstTheGradient() {
    Sgd.State s = new Sgd(0.5).start(3);
    double[] theta = {1, 2, 3};
    s.update(theta, new double[] {2, -2, 0});
    assertArrayEquals(new double[] {0, 3, 3}, theta, 0.0);
    assertEquals(1, s.steps());
  }

  @Test
  void optimisersRejectInvalidSettingsAndLengths() {
    assertThrows(IllegalArgumentException.class, () -> new Adam(0));
    assertThrows(IllegalArgumentException.class, () -> new Adam(0.1, 1.0, 0.999, 1e-8));
    assertThrows(IllegalArgumentException.class, () -> new Adam(0.1, 0.9, 0.999, 0));
    assertThrows(IllegalArgumentException.class, () -> new Sgd(-1));
    Optimiser.State s = new Adam(0.1).start(2);
    assertThrows(IllegalArgumentException.class, () -> s.update(new double[2], new double[3]));
  }
}
