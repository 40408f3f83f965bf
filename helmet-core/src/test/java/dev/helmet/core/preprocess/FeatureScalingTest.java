package dev.helmet.core.preprocess;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.LabelSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class FeatureScalingTest {
  @Test
  void eachFeatureIsClippedToItsBoundsAndMappedOntoMinusOneToOne() {
    FeatureScaling s = new FeatureScaling(new double[] {1, 0, 5}, new double[] {10, 100, 5});
    double[] v = {1, 50, 7, 0};
    s.apply(v, 0);
    assertArrayEquals(new double[] {-1, 0, 0, 0}, v, 1e-15, "lower end, middle, equal bounds; beyond untouched");
    double[] w = {10, 250, -3};
    s.apply(w, 0);
    assertArrayEquals(new double[] {1, 1, 0}, w, 1e-15, "upper end, clipped above, equal bounds");
    double[] u = {-4, -9, 5.5};
    s.apply(u, 0);
    assertArrayEquals(new double[] {-1, -1, 0}, u, 1e-15, "clipped below");
  }

  @Test
  void theScalingRunsBeforeTheRowNormalisation() {
    // Two features of very different ranges: without scaling the second dominates the normalised row.
    Dataset d = new Dataset("t", new float[] {2, 1000}, new int[] {0}, 2, LabelSet.of(List.of("a", "b")), null);
    double[] raw = new double[3];
    new Preprocessing(1, true).apply(d, 0, raw, 0);
    assertTrue(Math.abs(raw[1]) < 0.01, "unscaled: " + raw[1]);
    double[] scaled = new double[3];
    new Preprocessing(1, true, new FeatureScaling(new double[] {0, 0}, new double[] {4, 2000})).apply(d, 0, scaled, 0);
    // Both features map to 0 (the middle of their bounds): the row is zero and stays zero.
    assertArrayEquals(new double[] {1, 0, 0}, scaled, 1e-15);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Preprocessing(1, true,
        FeatureScaling.uniform(3, 0, 1)).apply(d, 0, new double[3], 0));
    assertTrue(e.getMessage().contains("describe 3 features, the rows have 2"), e.getMessage());
  }

  /** The heap a design matrix takes, known before it is built: the dense form of a dense matrix. */
  @Test
  void theDesignsHeapIsKnownBeforeItIsBuilt() {
    float[] x = new float[200 * 5];
    java.util.Arrays.fill(x, 1f);
    Dataset d = new Dataset("t", x, new int[200], 5, LabelSet.of(List.of("a", "b")), null);
    int[] rows = new int[200];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = i;
    }
    assertEquals(8L * 200 * 6 + 4 * 200, new Preprocessing(1, true).designBytes(d, rows));
  }

  @Test
  void boundsAreCheckedAndDescribed() {
    assertThrows(IllegalArgumentException.class, () -> new FeatureScaling(new double[] {2}, new double[] {1}));
    assertThrows(IllegalArgumentException.class, () -> new FeatureScaling(new double[] {0, 0}, new double[] {1}));
    assertThrows(IllegalArgumentException.class,
        () -> new FeatureScaling(new double[] {Double.NaN}, new double[] {1}));
    assertEquals("features clipped to public bounds [1, 10] and scaled to [-1, 1]",
        FeatureScaling.uniform(9, 1, 10).describe());
    assertEquals(FeatureScaling.uniform(2, 0, 1), new FeatureScaling(new double[] {0, 0}, new double[] {1, 1}));
  }
}
