package dev.helmet.core.features;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.helmet.core.data.ImageShape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class HogTest {
  private static final ImageShape MNIST = new ImageShape(28, 28);

  @Test
  void defaultsOn28x28GiveThe1296FeaturesAndTheirParameters() {
    Hog hog = Hog.withDefaults(MNIST);
    assertEquals(1296, hog.outputDimension()); // 7x7 cells -> 6x6 blocks x 4 cells x 9 bins
    assertEquals("hog", hog.id());
    assertEquals(MNIST, hog.input());
    assertEquals(List.of("shape", "cell", "block", "bins", "norm"), new ArrayList<>(hog.parameters().keySet()));
    assertEquals(List.of("28x28", 4, 2, 9, "L2-Hys"), new ArrayList<>(hog.parameters().values()));
  }

  @Test
  void verticalStepEdgeVotesOnlyForZeroDegrees() {
    // Left 14 columns 0, right 14 columns 1: gx = 1 at columns 13 and 14 (I[c+1] - I[c-1] straddles
    // the step), gy = 0 everywhere, so each pixel of those columns votes 1 for bin 0 (centred at 0
    // degrees); both columns lie in cell column 3 (pixels 12..15): 4 rows x 2 pixels = 8.
    Hog hog = Hog.withDefaults(MNIST);
    float[] img = image(28, 28, (r, c) -> c >= 14 ? 1 : 0);
    float[] hist = histograms(hog, img);
    for (int cy = 0; cy < 7; cy++) {
      for (int cx = 0; cx < 7; cx++) {
        for (int k = 0; k < 9; k++) {
          assertEquals(cx == 3 && k == 0 ? 8f : 0f, hist[(cy * 7 + cx) * 9 + k], "cell " + cy + "," + cx + " bin " + k);
        }
      }
    }
    float[] out = apply(hog, img);
    for (int i = 0; i < out.length; i++) {
      assertTrue(i % 9 == 0 || out[i] == 0, "energy off the 0-degree bin at " + i);
    }
    assertTrue(max(out) > 0);
    // The falling edge (1 then 0) has gx = -1: atan2 gives 180 degrees, the same orientation.
    assertArrayEquals(hist, histograms(hog, image(28, 28, (r, c) -> c >= 14 ? 0 : 1)));
  }

  @Test
  void orientationsNear180WrapToTheZeroDegreeBin() {
    // I = (r - 2c + 54) / 128: inside, gx = -4/128 and gy = 2/128, at 180 - atan(1/2) = 153.43
    // degrees. With 4 bins (centres 0, 45, 90, 135) that is 3.41 bins: bin 3 gets 0.59 of each
    // vote and the next bin, past 180, is bin 0: 0.41. Cell (1, 1) is interior: 16 votes.
    Hog hog = new Hog(MNIST, 4, 2, 4);
    float[] hist = histograms(hog, image(28, 28, (r, c) -> (r - 2 * c + 54) / 128f));
    double mag = Math.sqrt(16 + 4) / 128;
    double pos = Math.toDegrees(Math.atan2(2, -4)) / 45;
    assertEquals(3.41, pos, 0.01);
    int cell = (1 * 7 + 1) * 4;
    assertEquals(16 * mag * (pos - 3), hist[cell], 1e-6);
    assertEquals(0, hist[cell + 1], 1e-6);
    assertEquals(0, hist[cell + 2], 1e-6);
    assertEquals(16 * mag * (4 - pos), hist[cell + 3], 1e-6);
  }

  @Test
  void horizontalStepEdgeVotesForNinetyDegrees() {
    // Top half 0, bottom half 1: gy = 1 at rows 13 and 14, gx = 0, orientation 90 degrees. With 6
    // bins (centres 0, 30, 60, 90, ...) that is bin 3 alone; with 9 bins (centres 80 and 100 either
    // side) the linear split gives each half: 90 / 20 = 4.5 bins.
    float[] img = image(28, 28, (r, c) -> r >= 14 ? 1 : 0);
    float[] six = histograms(new Hog(MNIST, 4, 2, 6), img);
    float[] nine = histograms(Hog.withDefaults(MNIST), img);
    for (int cy = 0; cy < 7; cy++) {
      for (int cx = 0; cx < 7; cx++) {
        for (int k = 0; k < 6; k++) {
          assertEquals(cy == 3 && k == 3 ? 8f : 0f, six[(cy * 7 + cx) * 6 + k], 1e-6);
        }
        for (int k = 0; k < 9; k++) {
          assertEquals(cy == 3 && (k == 4 || k == 5) ? 4f : 0f, nine[(cy * 7 + cx) * 9 + k], 1e-6);
        }
      }
    }
  }

  @Test
  void diagonalRampsSplitBetweenTheTwoNearestBins() {
    // I = (r + c) / 64 (exact in float): inside the image gx = gy = 2/64, magnitude sqrt(2)/32, at
    // 45 degrees = 2.25 bins of 20 degrees: 0.75 of it to bin 2 (40), 0.25 to bin 3 (60). Cell
    // (1, 1) (pixels 4..7) is all interior: 16 pixels. The other diagonal, I = (c - r + 27) / 64,
    // has gy = -gx: 135 degrees = 6.75 bins, 0.25 to bin 6 and 0.75 to bin 7.
    Hog hog = Hog.withDefaults(MNIST);
    float[] up = histograms(hog, image(28, 28, (r, c) -> (r + c) / 64f));
    float[] down = histograms(hog, image(28, 28, (r, c) -> (c - r + 27) / 64f));
    double m = 16 * Math.sqrt(2) / 32;
    int cell = (1 * 7 + 1) * 9;
    for (int k = 0; k < 9; k++) {
      assertEquals(k == 2 ? 0.75 * m : k == 3 ? 0.25 * m : 0, up[cell + k], 1e-6, "45 degrees, bin " + k);
      assertEquals(k == 6 ? 0.25 * m : k == 7 ? 0.75 * m : 0, down[cell + k], 1e-6, "135 degrees, bin " + k);
    }
  }

  @Test
  void handComputedEightByEightRamp() {
    // I = (r + c) / 16 on 8x8, cell 4, block 2: 2x2 cells, one block, 36 features. With a = 1/16,
    // cell (0, 0) holds: row 0, columns 1..3: gx = 2a, gy = 0 (first row) -> bin 0 gets 6a; column
    // 0, rows 1..3: gx = 0 (first column), gy = 2a, 90 degrees = 4.5 bins -> bins 4 and 5 get a
    // each, 3a in all; pixel (0, 0) has no gradient; the 9 interior pixels have magnitude 2a sqrt 2
    // at 45 degrees -> bin 2 gets 9 * 0.75 * 2a sqrt 2 = 13.5a sqrt 2, bin 3 4.5a sqrt 2. By the
    // same count (the last row and column have gy = 0 and gx = 0) the other three cells are equal.
    Hog hog = new Hog(new ImageShape(8, 8), 4, 2, 9);
    float[] img = image(8, 8, (r, c) -> (r + c) / 16f);
    double a = 1.0 / 16;
    double[] h = {6 * a, 0, 13.5 * a * Math.sqrt(2), 4.5 * a * Math.sqrt(2), 3 * a, 3 * a, 0, 0, 0};
    float[] hist = histograms(hog, img);
    for (int i = 0; i < 36; i++) {
      assertEquals(h[i % 9], hist[i], 1e-6, "histogram " + i);
    }
    // L2-Hys: ||v||^2 = 4 * 459 a^2, so v / ||v|| = h / (2 sqrt(459) a) (eps = 1e-5 is negligible):
    // 0.1400, 0, 0.4456, 0.1485, 0.0700, 0.0700; bin 2 is clipped to 0.2, then all are divided by
    // the clipped vector's norm s = sqrt(4 (0.2^2 + 94.5 / 1836)) = 0.6049: bin 2 becomes 0.3306.
    double n = 2 * Math.sqrt(459);
    double[] clipped = {6 / n, 0, 0.2, 4.5 * Math.sqrt(2) / n, 3 / n, 3 / n, 0, 0, 0};
    double s = Math.sqrt(4 * (0.04 + 94.5 / 1836));
    float[] out = apply(hog, img);
    for (int i = 0; i < 36; i++) {
      assertEquals(clipped[i % 9] / s, out[i], 1e-6, "feature " + i);
    }
    assertEquals(0.3306, out[2], 1e-4);
    assertEquals(0.2315, out[0], 1e-4);
  }

  @Test
  void constantImagesGiveZerosAndNoNaN() {
    Hog hog = Hog.withDefaults(MNIST);
    for (float v : new float[] {0f, 0.7f, 1f}) {
      float[] out = apply(hog, image(28, 28, (r, c) -> v));
      assertEquals(0f, max(out));
      for (float x : out) {
        assertEquals(0f, x); // no NaN from 0 / 0: eps keeps the normaliser positive
      }
    }
  }

  @Test
  void blocksHaveUnitNormAndMatchANaiveL2HysReference() {
    // The reference follows the definition directly (atan2 in degrees, double sums, one block at a
    // time). After the clip at 0.2 the renormalisation may raise entries above 0.2 again (that is
    // L2-Hys), so the reference check is what pins the clip; the norm is 1 for any block with a
    // gradient (eps^2 = 1e-10 is negligible next to these images' gradients) and 0 otherwise.
    SplittableRandom rng = new SplittableRandom(3);
    for (int[] p : new int[][] {{28, 28, 4, 2, 9}, {20, 13, 3, 2, 7}, {16, 16, 5, 3, 12}}) {
      Hog hog = new Hog(new ImageShape(p[0], p[1]), p[2], p[3], p[4]);
      int blockLength = p[3] * p[3] * p[4];
      for (int t = 0; t < 20; t++) {
        float[] img = randomImage(p[0], p[1], rng, t % 2 == 0);
        float[] out = apply(hog, img);
        float[] ref = reference(img, p[0], p[1], p[2], p[3], p[4]);
        assertEquals(ref.length, out.length);
        for (int i = 0; i < out.length; i++) {
          assertEquals(ref[i], out[i], 2e-5, "feature " + i + " of " + Arrays.toString(p));
          assertTrue(out[i] >= 0 && Float.isFinite(out[i]));
        }
        for (int b = 0; b < out.length; b += blockLength) {
          double sum = 0;
          for (int i = b; i < b + blockLength; i++) {
            sum += out[i] * out[i];
          }
          assertTrue(sum <= 1 + 1e-5 && (sum == 0 || sum > 1 - 1e-4), "block norm^2 " + sum);
        }
      }
    }
  }

  @Test
  void scalingTheImageLeavesTheFeaturesUnchanged() {
    Hog hog = Hog.withDefaults(MNIST);
    float[] img = randomImage(28, 28, new SplittableRandom(5), true);
    float[] out = apply(hog, img);
    for (float scale : new float[] {0.1f, 0.5f, 3f}) {
      float[] scaled = img.clone();
      for (int i = 0; i < scaled.length; i++) {
        scaled[i] *= scale;
      }
      assertArrayEquals(out, apply(hog, scaled), 1e-5f, "scale " + scale);
    }
  }

  @Test
  void nonSquareShapesIgnorePixelsBeyondTheLastWholeCell() {
    // 30x22 in 4-pixel cells: 7x5 cells (rows 28-29 and columns 20-21 left over), 3x3-cell blocks:
    // 5x3 blocks of 9 cells of 6 bins = 810. Row 28 still enters row 27's gy and column 20
    // column 19's gx, but row 29 and column 21 enter nothing.
    Hog hog = new Hog(new ImageShape(30, 22), 4, 3, 6);
    assertEquals(810, hog.outputDimension());
    SplittableRandom rng = new SplittableRandom(9);
    float[] img = randomImage(30, 22, rng, false);
    float[] out = apply(hog, img);
    float[] outside = img.clone();
    for (int c = 0; c < 22; c++) {
      outside[29 * 22 + c] = (float) rng.nextDouble();
    }
    for (int r = 0; r < 30; r++) {
      outside[r * 22 + 21] = (float) rng.nextDouble();
    }
    assertArrayEquals(out, apply(hog, outside));
    float[] edge = img.clone();
    edge[28 * 22 + 5] += 0.5f;
    assertFalse(Arrays.equals(out, apply(hog, edge)), "row 28 is row 27's neighbour");
    // Offsets: the same image inside larger arrays.
    float[] in = new float[7 + img.length];
    System.arraycopy(img, 0, in, 7, img.length);
    float[] wide = new float[3 + 810 + 2];
    hog.apply(in, 7, wide, 3);
    assertArrayEquals(out, Arrays.copyOfRange(wide, 3, 813));
    assertThrows(IndexOutOfBoundsException.class, () -> hog.apply(img, 1, new float[810], 0));
  }

  @Test
  void badParametersAreRejectedByName() {
    assertMessage("cell", () -> new Hog(MNIST, 0, 2, 9));
    assertMessage("block", () -> new Hog(MNIST, 4, -1, 9));
    assertMessage("bins", () -> new Hog(MNIST, 4, 2, 0));
    assertMessage("bins must be in [1, 180]", () -> new Hog(MNIST, 4, 2, 181));
    assertMessage("shape", () -> new Hog(null, 4, 2, 9));
    assertMessage("at least 8x8 pixels. Provided shape: 7x28", () -> Hog.withDefaults(new ImageShape(7, 28)));
    assertMessage("at least 30x30", () -> new Hog(MNIST, 10, 3, 9));
    assertEquals(36, new Hog(new ImageShape(8, 8), 4, 2, 9).outputDimension()); // exactly one block fits
  }

  @Test
  void threadsGetTheSameFeatures() throws Exception {
    Hog hog = Hog.withDefaults(MNIST);
    SplittableRandom rng = new SplittableRandom(13);
    float[][] imgs = new float[64][];
    float[][] expected = new float[imgs.length][];
    for (int i = 0; i < imgs.length; i++) {
      imgs[i] = randomImage(28, 28, rng, i % 2 == 0);
      expected[i] = apply(hog, imgs[i]);
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int shift = t;
        results.add(pool.submit(() -> {
          float[] out = new float[hog.outputDimension()];
          for (int rep = 0; rep < 20; rep++) {
            for (int j = 0; j < imgs.length; j++) {
              int i = (j + shift * 7) % imgs.length;
              hog.apply(imgs[i], 0, out, 0);
              if (!Arrays.equals(out, expected[i])) {
                return false;
              }
            }
          }
          return true;
        }));
      }
      for (Future<Boolean> f : results) {
        assertTrue(f.get());
      }
    } finally {
      pool.shutdown();
    }
  }

  private interface Pixel {
    float at(int r, int c);
  }

  private static float[] image(int h, int w, Pixel p) {
    float[] img = new float[h * w];
    for (int r = 0; r < h; r++) {
      for (int c = 0; c < w; c++) {
        img[r * w + c] = p.at(r, c);
      }
    }
    return img;
  }

  /** Uniform noise, or (sparse) a digit-like ring of it on a zero background. */
  private static float[] randomImage(int h, int w, SplittableRandom rng, boolean sparse) {
    double cy = h / 2.0 + rng.nextDouble(-2, 2);
    double cx = w / 2.0 + rng.nextDouble(-2, 2);
    return image(h, w, (r, c) -> {
      double d = Math.hypot(r - cy, c - cx);
      return !sparse || (d > 3 && d < 7) ? (float) rng.nextDouble() : 0f;
    });
  }

  private static float[] apply(Hog hog, float[] img) {
    float[] out = new float[hog.outputDimension()];
    hog.apply(img, 0, out, 0);
    return out;
  }

  private static float[] histograms(Hog hog, float[] img) {
    float[] hist = new float[(hog.input().height() / (int) hog.parameters().get("cell"))
        * (hog.input().width() / (int) hog.parameters().get("cell")) * (int) hog.parameters().get("bins")];
    hog.cellHistograms(img, 0, hist);
    return hist;
  }

  private static float max(float[] v) {
    float m = Float.NEGATIVE_INFINITY;
    for (float x : v) {
      m = Math.max(m, x);
    }
    return m;
  }

  private static void assertMessage(String part, Runnable r) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }

  /** HOG straight from the definition, in double. */
  private static float[] reference(float[] img, int h, int w, int cell, int block, int bins) {
    int ny = h / cell;
    int nx = w / cell;
    double[][][] hist = new double[ny][nx][bins];
    for (int r = 0; r < ny * cell; r++) {
      for (int c = 0; c < nx * cell; c++) {
        double gx = c == 0 || c == w - 1 ? 0 : (double) img[r * w + c + 1] - img[r * w + c - 1];
        double gy = r == 0 || r == h - 1 ? 0 : (double) img[(r + 1) * w + c] - img[(r - 1) * w + c];
        double mag = Math.hypot(gx, gy);
        double degrees = ((Math.toDegrees(Math.atan2(gy, gx)) % 180) + 180) % 180;
        double pos = degrees / (180.0 / bins);
        int k = (int) Math.floor(pos);
        hist[r / cell][c / cell][k % bins] += mag * (1 - (pos - k));
        hist[r / cell][c / cell][(k + 1) % bins] += mag * (pos - k);
      }
    }
    List<Float> out = new ArrayList<>();
    for (int by = 0; by + block <= ny; by++) {
      for (int bx = 0; bx + block <= nx; bx++) {
        double[] v = new double[block * block * bins];
        for (int i = 0; i < v.length; i++) {
          v[i] = hist[by + i / (block * bins)][bx + i / bins % block][i % bins];
        }
        double norm = Math.sqrt(Arrays.stream(v).map(x -> x * x).sum() + 1e-10);
        double[] clipped = Arrays.stream(v).map(x -> Math.min(x / norm, 0.2)).toArray();
        double norm2 = Math.sqrt(Arrays.stream(clipped).map(x -> x * x).sum() + 1e-10);
        for (double x : clipped) {
          out.add((float) (x / norm2));
        }
      }
    }
    float[] result = new float[out.size()];
    for (int i = 0; i < result.length; i++) {
      result[i] = out.get(i);
    }
    return result;
  }

  /**
   * The attacker's third read: a published stage of 1073741852-pixel sides wrapped HOG's long
   * bounds negative (and the pixel count to 784), then allocated 3.8 GB per thread. Sides are
   * bounded first and the products are exact.
   */
  @org.junit.jupiter.api.Test
  void sidesThatWouldWrapTheBoundsAreRefused() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new Hog(new dev.helmet.core.data.ImageShape(1073741852, 1073741852), 3, 3, 73));
    org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("at most 32768 pixels a side"), e.getMessage());
    org.junit.jupiter.api.Assertions.assertThrows(ArithmeticException.class,
        () -> new dev.helmet.core.data.ImageShape(1073741852, 1073741852).pixels());
  }
}
