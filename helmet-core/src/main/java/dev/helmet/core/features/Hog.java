package dev.helmet.core.features;

import dev.helmet.core.data.ImageShape;
import dev.helmet.core.util.Checks;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Histograms of oriented gradients (Dalal and Triggs 2005): a cheap, data-independent feature set
 * for grey images such as MNIST. Every choice below depends only on the public shape and settings,
 * and the one normalisation is per image, so nothing is fitted on data.
 *
 * <ul>
 *   <li><b>Gradients</b> by centred differences [-1, 0, 1]: {@code gx = I[r][c+1] - I[r][c-1]},
 *       {@code gy = I[r+1][c] - I[r-1][c]} (y grows downward, as rows do). On the first and last
 *       column {@code gx = 0}, on the first and last row {@code gy = 0}, as scikit-image's
 *       {@code _hog_channel_gradient} does, rather than padding the image or using one-sided
 *       differences: a digit's zero background makes the choice matter little, and it keeps the
 *       features comparable with scikit-image's.
 *   <li><b>Orientation</b> unsigned, {@code atan2(gy, gx)} modulo 180 degrees, so a stroke's two
 *       edges vote alike. Bin {@code k} of {@code bins} is centred at {@code k * 180 / bins}
 *       degrees, so a vertical edge (gradient along x) lands wholly in bin 0, while with an odd
 *       {@code bins} a horizontal one splits evenly between the two centres beside 90 degrees
 *       (scikit-image's bins span {@code [k, k + 1) * 180 / bins} instead). Each pixel's
 *       magnitude {@code sqrt(gx^2 + gy^2)} is split linearly between the two nearest bin centres,
 *       wrapping at 180: unlike scikit-image's hard binning, a small rotation then moves the
 *       features a little instead of flipping a whole vote from one bin to the next.
 *   <li><b>Cells</b> of {@code cell x cell} pixels sum their pixels' votes (sums, as Dalal and
 *       Triggs; scikit-image divides by the cell's area, which only rescales eps). Pixels beyond
 *       the last whole cell are ignored, as in scikit-image, though their values still enter the
 *       gradients of the pixels next to them.
 *   <li><b>Blocks</b> of {@code block x block} cells slide by one cell; each block's concatenated
 *       histograms are normalised with L2-Hys: {@code v / sqrt(||v||^2 + eps^2)}, entries clipped
 *       at 0.2, then the same L2 normalisation again, with {@code eps = 1e-5} (scikit-image's).
 *       A block without gradient stays all zero. The result is nearly invariant to the image's
 *       contrast: scaling it by {@code a > 0} scales {@code v} by {@code a}.
 * </ul>
 *
 * <p>Output: the blocks in row-major order, each block's cells row-major, each cell's bins in
 * order, so {@code (cellsY - block + 1) * (cellsX - block + 1) * block^2 * bins} features; 1,296
 * for 28x28 images with the defaults (7x7 cells, 6x6 blocks of 2x2 cells, 9 bins).
 *
 * <p>Immutable and thread-safe; {@link #apply} keeps its cell histograms in a per-thread scratch
 * array and allocates nothing once each thread has one.
 */
public final class Hog implements ImageTransform {
  /** Pixels per cell side by default (7x7 cells on 28x28). */
  public static final int DEFAULT_CELL = 4;
  /** Cells per block side by default. */
  public static final int DEFAULT_BLOCK = 2;
  /** Orientation bins by default (20 degrees each). */
  public static final int DEFAULT_BINS = 9;
  /** The most bins accepted: finer than one degree is noise, not orientation. */
  public static final int MAX_BINS = 180;

  private static final double EPS = 1e-5;
  private static final double CLIP = 0.2;

  private final ImageShape shape;
  private final int cell;
  private final int block;
  private final int bins;
  private final int cellsY;
  private final int cellsX;
  private final int outputDimension;
  private final Map<String, Object> parameters;
  private final ThreadLocal<float[]> scratch;

  /** The longest image side, 2^15 pixels. */
  static final int MAX_SIDE = 1 << 15;
  /** The most features or histogram values per image: 2^24 (a 224x224 image with 4-pixel cells has 109 thousand). */
  static final long MAX_VALUES = 1L << 24;

  /**
   * @param shape the images' shape; it must hold at least one block of {@code cell * block} pixels a side
   * @param cell pixels per cell side
   * @param block cells per block side
   * @param bins orientation bins over [0, 180) degrees, at most {@link #MAX_BINS}
   * @throws IllegalArgumentException on a missing shape, a non-positive setting, too many bins or
   *     an image smaller than one block
   */
  public Hog(ImageShape shape, int cell, int block, int bins) {
    this.shape = Checks.notNull("shape", shape);
    this.cell = Checks.positive("cell", cell);
    this.block = Checks.positive("block", block);
    this.bins = Checks.inRange("bins", bins, 1, MAX_BINS);
    // Sides bounded first, so no product below can wrap (the attacker's third read: a 1073741852-pixel
    // side wrapped the long products negative, past the bounds).
    Checks.require(shape.height() <= MAX_SIDE && shape.width() <= MAX_SIDE, "HOG takes images of at most " + MAX_SIDE
        + " pixels a side. Provided shape: " + shape);
    long side = (long) cell * block;
    Checks.require(shape.height() >= side && shape.width() >= side,
        "a block of " + block + "x" + block + " cells of " + cell + "x" + cell + " pixels needs an image of at least "
            + side + "x" + side + " pixels. Provided shape: " + shape);
    this.cellsY = shape.height() / cell;
    this.cellsX = shape.width() / cell;
    long dim = Math.multiplyExact(Math.multiplyExact(Math.multiplyExact((long) (cellsY - block + 1),
        (long) (cellsX - block + 1)), Math.multiplyExact((long) block, (long) block)), (long) bins);
    // Settings may come from another party (a published session or a released model): the
    // features and the per-thread histograms are bounded before anything is allocated.
    Checks.require(dim <= MAX_VALUES, "HOG features would number " + dim + ", more than " + MAX_VALUES);
    Checks.require(Math.multiplyExact((long) cellsY * cellsX, (long) bins) <= MAX_VALUES, "HOG histograms of a "
        + shape + " image with " + cell + "-pixel cells and " + bins + " bins would hold more than " + MAX_VALUES
        + " values");
    this.outputDimension = (int) dim;
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("shape", shape.toString());
    p.put("cell", cell);
    p.put("block", block);
    p.put("bins", bins);
    p.put("norm", "L2-Hys");
    this.parameters = Collections.unmodifiableMap(p);
    int histograms = cellsY * cellsX * bins;
    this.scratch = ThreadLocal.withInitial(() -> new float[histograms]);
  }

  /** HOG with the defaults: 4x4-pixel cells, 2x2-cell blocks, 9 bins. */
  public static Hog withDefaults(ImageShape shape) {
    return new Hog(shape, DEFAULT_CELL, DEFAULT_BLOCK, DEFAULT_BINS);
  }

  @Override
  public String id() {
    return "hog";
  }

  @Override
  public ImageShape input() {
    return shape;
  }

  @Override
  public int outputDimension() {
    return outputDimension;
  }

  @Override
  public Map<String, Object> parameters() {
    return parameters;
  }

  @Override
  public void apply(float[] in, int inOffset, float[] out, int outOffset) {
    Objects.checkFromIndexSize(inOffset, shape.pixels(), in.length);
    Objects.checkFromIndexSize(outOffset, outputDimension, out.length);
    float[] hist = scratch.get();
    cellHistograms(in, inOffset, hist);
    normaliseBlocks(hist, out, outOffset);
  }

  /**
   * The unnormalised cell histograms of one image into {@code hist}: cell {@code (cy, cx)}'s bin
   * {@code k} at {@code (cy * cellsX + cx) * bins + k}. Package-private for tests.
   */
  void cellHistograms(float[] in, int off, float[] hist) {
    java.util.Arrays.fill(hist, 0, cellsY * cellsX * bins, 0f);
    int h = shape.height();
    int w = shape.width();
    double binsPerRadian = bins / Math.PI;
    for (int cy = 0; cy < cellsY; cy++) {
      for (int r = cy * cell, rEnd = r + cell; r < rEnd; r++) {
        int row = off + r * w;
        boolean rowBorder = r == 0 || r == h - 1;
        for (int cx = 0; cx < cellsX; cx++) {
          int base = (cy * cellsX + cx) * bins;
          for (int c = cx * cell, cEnd = c + cell; c < cEnd; c++) {
            int i = row + c;
            float gx = c == 0 || c == w - 1 ? 0f : in[i + 1] - in[i - 1];
            float gy = rowBorder ? 0f : in[i + w] - in[i - w];
            double mag = Math.sqrt((double) gx * gx + (double) gy * gy);
            if (mag == 0) {
              continue;
            }
            // In bin units: atan2 is in [-pi, pi], and unsigned orientation is modulo pi. (A
            // branch-free polynomial arctangent measured no reliably faster than Math.atan2 here.)
            double pos = Math.atan2(gy, gx) * binsPerRadian;
            if (pos < 0) {
              pos += bins;
            }
            int k = (int) pos;
            double frac = pos - k;
            if (k >= bins) { // 180 degrees (a gradient along -x, or rounding up to it) is 0 degrees
              k -= bins;
            }
            int next = k + 1 == bins ? 0 : k + 1;
            hist[base + k] += (float) (mag * (1 - frac));
            hist[base + next] += (float) (mag * frac);
          }
        }
      }
    }
  }

  /** Copies each block's cell histograms to {@code out} and normalises them with L2-Hys in place. */
  private void normaliseBlocks(float[] hist, float[] out, int outOffset) {
    int rowLength = block * bins; // one block row of cells is contiguous in hist
    int o = outOffset;
    for (int by = 0; by + block <= cellsY; by++) {
      for (int bx = 0; bx + block <= cellsX; bx++) {
        int start = o;
        double sum = 0;
        for (int y = 0; y < block; y++) {
          int src = ((by + y) * cellsX + bx) * bins;
          for (int j = 0; j < rowLength; j++) {
            float v = hist[src + j];
            out[o++] = v;
            sum += (double) v * v;
          }
        }
        double scale = 1 / Math.sqrt(sum + EPS * EPS);
        double clipped = 0;
        for (int j = start; j < o; j++) {
          double v = Math.min(out[j] * scale, CLIP);
          out[j] = (float) v;
          clipped += v * v;
        }
        float rescale = (float) (1 / Math.sqrt(clipped + EPS * EPS));
        for (int j = start; j < o; j++) {
          out[j] *= rescale;
        }
      }
    }
  }

  @Override
  public String toString() {
    return "hog" + parameters;
  }
}
