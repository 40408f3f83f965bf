package dev.helmet.core.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link Mlp}'s parameter layout, its seeded initialisation and its argument checks. */
class MlpArchitectureTest {
  @Test
  void theSkellamMixturePapersNetworkHas63610Parameters() {
    // SPEC section 6 (Bao et al., VLDB 2022): 784-80-10 = 80 x 784 + 80 + 10 x 80 + 10.
    Mlp net = new Mlp(784, 80, 10);
    assertEquals(63_610, net.parameterCount());
    assertEquals("784-80-10", net.toString());
    assertEquals(0, net.weightOffset(0));
    assertEquals(62_720, net.biasOffset(0));
    assertEquals(62_800, net.weightOffset(1));
    assertEquals(63_600, net.biasOffset(1));
    assertEquals(2, net.layers());
    assertEquals(784, net.inputs());
    assertEquals(10, net.classes());
  }

  @Test
  void deeperNetworksLayOutEachLayersWeightsThenItsBias() {
    Mlp net = new Mlp(5, 4, 3, 2);
    assertEquals(4 * 5 + 4 + 3 * 4 + 3 + 2 * 3 + 2, net.parameterCount());
    assertArrayEquals(new int[] {0, 24, 39}, new int[] {net.weightOffset(0), net.weightOffset(1), net.weightOffset(2)});
    assertArrayEquals(new int[] {20, 36, 45}, new int[] {net.biasOffset(0), net.biasOffset(1), net.biasOffset(2)});
  }

  @Test
  void theInitialisationIsReproducibleFromItsSeedAndWithinTheHeAndGlorotLimits() {
    Mlp net = new Mlp(784, 80, 10);
    double[] a = net.initialise(42);
    assertArrayEquals(a, net.initialise(42), 0.0);
    assertFalse(Arrays.equals(a, net.initialise(43)));
    double he = Math.sqrt(6.0 / 784);
    double glorot = Math.sqrt(6.0 / 90);
    double sumSq = 0;
    for (int q = 0; q < 62_720; q++) {
      assertTrue(Math.abs(a[q]) < he, "hidden weight " + q);
      sumSq += a[q] * a[q];
    }
    // The variance of U(-l, l) is l^2 / 3 = 2 / fan_in (He et al. 2015). Over 62,720 draws the
    // estimate's relative standard deviation is sqrt(0.8 / 62720) = 0.36 %, so a 3 % tolerance is
    // over 8 standard deviations (a false failure below 1e-15 for any seed).
    assertEquals(2.0 / 784, sumSq / 62_720, 0.03 * 2.0 / 784);
    for (int q = 62_800; q < 63_600; q++) {
      assertTrue(Math.abs(a[q]) < glorot, "output weight " + q);
    }
    for (int q = 62_720; q < 62_800; q++) {
      assertEquals(0.0, a[q], "hidden bias " + q);
    }
    for (int q = 63_600; q < 63_610; q++) {
      assertEquals(0.0, a[q], "output bias " + q);
    }
  }

  @Test
  void invalidShapesAndMismatchedArgumentsAreRejectedWithTheirValue() {
    assertThrows(IllegalArgumentException.class, () -> new Mlp(784));
    assertThrows(IllegalArgumentException.class, () -> new Mlp(784, 0, 10));
    assertThrows(IllegalArgumentException.class, () -> new Mlp(784, 80, 1));
    Mlp net = new Mlp(3, 2, 2);
    Examples data = MlpTestData.gaussian(1, 4, 3, 2);
    double[] p = net.initialise(1);
    double[] out = new double[net.parameterCount()];
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> net.clippedGradientSum(p, data, new int[] {0}, -1, out));
    assertTrue(e.getMessage().contains("-1"), e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> net.clippedGradientSum(p, data, new int[] {4}, 1, out));
    assertThrows(IllegalArgumentException.class,
        () -> net.gradientSum(new double[3], data, new int[] {0}, out));
    assertThrows(IllegalArgumentException.class,
        () -> net.predict(p, MlpTestData.gaussian(1, 4, 5, 2)));
    assertThrows(IllegalArgumentException.class,
        () -> Examples.dense(new double[6], new int[] {0, 2}, 2, 3, 2));
  }
}
