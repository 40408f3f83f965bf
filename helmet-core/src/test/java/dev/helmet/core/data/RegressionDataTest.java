package dev.helmet.core.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.preprocess.DesignMatrix;
import dev.helmet.core.preprocess.Preprocessing;
import dev.helmet.core.preprocess.TargetScaling;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Numeric targets through reading, subsets, joins and preprocessing. */
class RegressionDataTest {
  private static Dataset three() {
    return new Dataset("t", new float[] {1, 2, 3, 4, 5, 6}, new int[3], 2, TabularData.NO_CLASSES, null)
        .withTargets(new double[] {10, 20, 30});
  }

  @Test
  void targetsTravelWithTheirRows() {
    Dataset d = three();
    assertTrue(d.isRegression());
    Dataset s = d.subset(new int[] {2, 0}, "s");
    assertArrayEquals(new double[] {30, 10}, s.targets());
    Dataset j = Dataset.concat("j", List.of(s, d));
    assertArrayEquals(new double[] {30, 10, 10, 20, 30}, j.targets());
    assertArrayEquals(new double[] {10, 20, 30}, d.named("n").targets());
    assertFalse(TabularData.NO_CLASSES.equals(LabelSet.ofIntegers(2)));
    assertThrows(IllegalStateException.class,
        () -> new Dataset("c", new float[] {1}, new int[1], 1, LabelSet.ofIntegers(2), null).target(0));
  }

  @Test
  void aNonFiniteTargetIsRefusedNamingTheRow() {
    DataFormatException e = assertThrows(DataFormatException.class,
        () -> three().withTargets(new double[] {1, Double.NaN, 3}));
    assertTrue(e.getMessage().contains("row 2"), e.getMessage());
  }

  @Test
  void aCsvLabelColumnReadsAsNumbersWhenAskedFor(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("r.csv");
    Files.writeString(f, "a,b,y\n1,2,3.5\n4,5,-1e2\n");
    Dataset d = DataReader.read(f, ReadOptions.defaults().numericTargets());
    assertArrayEquals(new double[] {3.5, -100}, d.targets());
    assertEquals(2, d.dimension());
    Files.writeString(f, "a,b,y\n1,2,3.5\n4,5,high\n");
    DataFormatException e = assertThrows(DataFormatException.class,
        () -> DataReader.read(f, ReadOptions.defaults().numericTargets()));
    assertTrue(e.getMessage().contains("'high' is not a number"), e.getMessage());
  }

  /** Targets are clipped to the public bounds and scaled to [-1, 1]; predictions map back. */
  @Test
  void targetBoundsScaleClipAndInvert() {
    TargetScaling t = new TargetScaling(0, 50);
    assertEquals(-1, t.scale(0), 0);
    assertEquals(1, t.scale(80), 0); // clipped
    assertEquals(0, t.scale(25), 1e-15);
    assertEquals(37.5, t.unscale(t.scale(37.5)), 1e-12);
    assertThrows(IllegalArgumentException.class, () -> new TargetScaling(3, 3));
    DesignMatrix m = new Preprocessing(1, true, null, new TargetScaling(0, 40)).design(three());
    assertTrue(m.hasTargets());
    assertEquals(-0.5, m.target(0), 1e-15);
    assertEquals(0.5, m.target(2), 1e-15);
    assertEquals(30, new Preprocessing(1, true, null, new TargetScaling(0, 40)).untarget(0.5), 1e-12);
  }
}
