package dev.helmet.core.features;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.Dataset;
import dev.helmet.core.data.ImageShape;
import dev.helmet.core.data.LabelSet;
import dev.helmet.core.util.Progress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FeatureStageTest {

  /** 2x2 mean pooling: a transform whose output is easy to check by hand. Counts its calls. */
  static final class Pool implements ImageTransform {
    final ImageShape shape;
    final AtomicInteger calls = new AtomicInteger();

    Pool(ImageShape shape) {
      this.shape = shape;
    }

    @Override
    public String id() {
      return "pool";
    }

    @Override
    public ImageShape input() {
      return shape;
    }

    @Override
    public int outputDimension() {
      return (shape.height() / 2) * (shape.width() / 2);
    }

    @Override
    public void apply(float[] in, int inOffset, float[] out, int outOffset) {
      calls.incrementAndGet();
      int w = shape.width();
      int k = 0;
      for (int r = 0; r + 1 < shape.height(); r += 2) {
        for (int c = 0; c + 1 < w; c += 2) {
          int at = inOffset + r * w + c;
          out[outOffset + k++] = (in[at] + in[at + 1] + in[at + w] + in[at + w + 1]) / 4;
        }
      }
    }

    @Override
    public Map<String, Object> parameters() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("shape", shape.toString());
      return m;
    }
  }

  private static Dataset images(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[n * 16];
    int[] y = new int[n];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) r.nextDouble();
    }
    for (int i = 0; i < n; i++) {
      y[i] = i % 2;
    }
    return new Dataset("imgs", x, y, 16, LabelSet.of(List.of("a", "b")), null).withImageShape(new ImageShape(4, 4));
  }

  @Test
  void theStageTransformsEveryRowAndKeepsLabels() {
    Dataset d = images(1000, 1);
    FeatureStage stage = FeatureStage.of(new Pool(new ImageShape(4, 4)));
    Dataset f = stage.apply(d, 2, Progress.NONE, null);
    assertEquals(1000, f.size());
    assertEquals(4, f.dimension());
    assertArrayEquals(d.labels(), f.labels());
    for (int i : new int[] {0, 517, 999}) {
      float expected = (d.feature(i, 0) + d.feature(i, 1) + d.feature(i, 4) + d.feature(i, 5)) / 4;
      assertEquals(expected, f.feature(i, 0));
      float last = (d.feature(i, 10) + d.feature(i, 11) + d.feature(i, 14) + d.feature(i, 15)) / 4;
      assertEquals(last, f.feature(i, 3));
    }
  }

  @Test
  void theCacheIsReusedForTheSameValuesAndMissedForOthers(@TempDir Path cache) throws Exception {
    Pool pool = new Pool(new ImageShape(4, 4));
    FeatureStage stage = FeatureStage.of(pool);
    Dataset d = images(300, 2);
    Dataset first = stage.apply(d, 2, Progress.NONE, cache);
    assertEquals(300, pool.calls.get());
    assertEquals(0, first.featureHeapBytes(), "cached features are memory-mapped");
    Dataset again = stage.apply(d, 2, Progress.NONE, cache);
    assertEquals(300, pool.calls.get(), "a cache hit computes nothing");
    Dataset inMemory = stage.apply(d, 1, Progress.NONE, null);
    for (int i = 0; i < 300; i++) {
      for (int j = 0; j < 4; j++) {
        assertEquals(inMemory.feature(i, j), again.feature(i, j));
      }
    }
    int before = pool.calls.get();
    stage.apply(images(300, 3), 2, Progress.NONE, cache); // other values: a miss
    assertEquals(before + 300, pool.calls.get());
    try (Stream<Path> files = Files.list(cache.resolve("features"))) {
      List<Path> all = files.toList();
      assertEquals(2, all.size(), all.toString());
      assertTrue(all.stream().allMatch(p -> p.getFileName().toString().endsWith(".npy")), "no .part file left");
    }
  }

  @Test
  void aDamagedCacheFileIsRecomputed(@TempDir Path cache) throws Exception {
    Pool pool = new Pool(new ImageShape(4, 4));
    FeatureStage stage = FeatureStage.of(pool);
    Dataset d = images(50, 4);
    stage.apply(d, 1, Progress.NONE, cache);
    Path file;
    try (Stream<Path> files = Files.list(cache.resolve("features"))) {
      file = files.findFirst().orElseThrow();
    }
    Files.write(file, new byte[] {1, 2, 3});
    Dataset f = stage.apply(d, 1, Progress.NONE, cache);
    assertEquals(100, pool.calls.get());
    assertEquals(50, f.size());
    assertEquals((d.feature(7, 0) + d.feature(7, 1) + d.feature(7, 4) + d.feature(7, 5)) / 4, f.feature(7, 0));
  }

  @Test
  void wrongShapesAndNamesAreRejectedWithTheFix() {
    FeatureStage stage = FeatureStage.of(new Pool(new ImageShape(2, 8)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> stage.apply(images(3, 5), 1, Progress.NONE, null));
    assertTrue(e.getMessage().contains("its images are 4x4"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> FeatureStage.parse("scatter", null));
    assertTrue(e.getMessage().contains("--image-shape"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> FeatureStage.parse("sift", new ImageShape(28, 28)));
    assertTrue(e.getMessage().contains("raw, scatter, hog"), e.getMessage());
    assertSame(FeatureStage.RAW, FeatureStage.parse("RAW", null));
    assertSame(FeatureStage.RAW, FeatureStage.fromRecord(Map.of()));
  }
}
