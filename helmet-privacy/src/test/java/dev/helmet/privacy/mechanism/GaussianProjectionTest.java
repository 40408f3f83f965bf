package dev.helmet.privacy.mechanism;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.commons.statistics.distribution.ChiSquaredDistribution;
import org.junit.jupiter.api.Test;

/**
 * {@link GaussianProjection}. The statistical checks run on fixed seeds, so they are deterministic;
 * each states the false-failure rate its threshold would have on fresh seeds.
 */
class GaussianProjectionTest {
  private static double[] vector(long seed, int d) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] v = new double[d];
    for (int i = 0; i < d; i++) {
      v[i] = r.nextDouble(-1, 1);
    }
    return v;
  }

  /** Blocks of 1, 7 or k columns give the same bits, on the party's side (P^T g) and the server's (P y). */
  @Test
  void anyBlockSizeGivesIdenticalBits() {
    int d = 53;
    int k = 23;
    GaussianProjection p = new GaussianProjection(0x5eedL, d, k);
    double[] g = vector(1, d);
    double[] y = vector(2, k);
    double[] y1 = p.project(g, 1);
    double[] x1 = p.backProject(y, 1);
    for (int block : new int[] {7, k, 1000}) {
      assertArrayEquals(y1, p.project(g, block), 0.0, "project, block " + block);
      assertArrayEquals(x1, p.backProject(y, block), 0.0, "back-project, block " + block);
    }
    // and both are the products with the columns one by one
    for (int c = 0; c < k; c++) {
      double[] col = p.column(c);
      double s = 0;
      for (int j = 0; j < d; j++) {
        s += col[j] * g[j];
      }
      assertEquals(s, y1[c], 0.0, "column " + c);
    }
    double[] into = vector(3, d);
    double[] expected = into.clone();
    for (int j = 0; j < d; j++) {
      for (int c = 0; c < k; c++) {
        expected[j] += p.column(c)[j] * y[c];
      }
    }
    p.backProject(y, into, 5);
    assertArrayEquals(expected, into, 0.0);
  }

  /**
   * The stream format "helmet projection v1" is pinned: these bits must not change, or parties on
   * different versions would disagree on P. Column 0 was reproduced independently, to the same
   * digits, in Python (hashlib SHA-256 of the packed seed, label and column; AES-CTR from the
   * {@code cryptography} package; Box-Muller with {@code math}). Every operation is IEEE or
   * StrictMath, so the bits are the same on every JVM.
   */
  @Test
  void theStreamFormatIsPinned() {
    GaussianProjection p = new GaussianProjection(42, 5, 4);
    double[] c0 = p.column(0);
    double[] c3 = p.column(3);
    assertArrayEquals(PINNED_C0, c0, 0.0);
    assertArrayEquals(PINNED_C3, c3, 0.0);
    assertNotEquals(c0[0], new GaussianProjection(43, 5, 4).column(0)[0]);
  }

  private static final double[] PINNED_C0 = {0.10074489690901471, 0.7465625904105145, -0.06221462976364779,
      -0.16125554587887467, -0.46874026113997036};
  private static final double[] PINNED_C3 = {-0.4764753748223488, -0.5339674614618243, -0.7614275884181539,
      0.715710384330732, 0.3613119964490224};

  /**
   * One long column has mean 0 and variance 1/k, and two columns are uncorrelated: with 2 10^5
   * entries, 6 standard errors (false-failure rate about 2e-9 each).
   */
  @Test
  void entriesAreCentredWithVarianceOneOverK() {
    int d = 200_000;
    int k = 25;
    GaussianProjection p = new GaussianProjection(7, d, k);
    double[] a = p.column(0);
    double[] b = p.column(1);
    double mean = 0;
    double sq = 0;
    double cross = 0;
    for (int j = 0; j < d; j++) {
      mean += a[j];
      sq += a[j] * a[j];
      cross += a[j] * b[j];
    }
    double var = 1.0 / k;
    assertEquals(0, mean / d, 6 * Math.sqrt(var / d), "mean");
    assertEquals(var, sq / d, 6 * var * Math.sqrt(2.0 / d), "variance");
    assertEquals(0, cross / d, 6 * var / Math.sqrt(d), "correlation of two columns");
  }

  /**
   * E[P P^T] = I: the average of P P^T over 2000 seeds, d = 6, k = 20. A diagonal entry of one P
   * P^T has variance 2/k, an off-diagonal one 1/k; the tolerance is 6 standard errors of the mean
   * (false-failure rate about 2e-9 per entry, 4e-8 for the 21 entries).
   */
  @org.junit.jupiter.api.Tag("statistical")
  @Test
  void projectionPreservesTheIdentityOnAverage() {
    int d = 6;
    int k = 20;
    int seeds = 2000;
    double[][] sum = new double[d][d];
    for (int s = 0; s < seeds; s++) {
      GaussianProjection p = new GaussianProjection(1000 + s, d, k);
      for (int c = 0; c < k; c++) {
        double[] col = p.column(c);
        for (int i = 0; i < d; i++) {
          for (int j = 0; j < d; j++) {
            sum[i][j] += col[i] * col[j];
          }
        }
      }
    }
    for (int i = 0; i < d; i++) {
      for (int j = 0; j < d; j++) {
        double se = Math.sqrt((i == j ? 2.0 : 1.0) / k / seeds);
        assertEquals(i == j ? 1 : 0, sum[i][j] / seeds, 6 * se, "E[P P^T][" + i + "][" + j + "]");
      }
    }
  }

  /**
   * Theorem 2's law, eqs. (4)-(7): k ||P^T u||^2 / ||u||^2 ~ chi^2_k. Kolmogorov-Smirnov over 1000
   * seeds (d = 30, k = 10) against commons-statistics' chi^2_10 CDF; the critical value
   * sqrt(ln(2/alpha)/(2n)) at alpha = 1e-6 (the false-failure rate) is 0.0851.
   */
  @Test
  void projectedNormIsChiSquared() {
    int d = 30;
    int k = 10;
    int n = 1000;
    double[] u = vector(9, d);
    double uu = 0;
    for (double v : u) {
      uu += v * v;
    }
    double[] stat = new double[n];
    for (int s = 0; s < n; s++) {
      double[] y = new GaussianProjection(5000 + s, d, k).project(u);
      double yy = 0;
      for (double v : y) {
        yy += v * v;
      }
      stat[s] = k * yy / uu;
    }
    Arrays.sort(stat);
    ChiSquaredDistribution chi2 = ChiSquaredDistribution.of(k);
    double ks = 0;
    for (int i = 0; i < n; i++) {
      double f = chi2.cumulativeProbability(stat[i]);
      ks = Math.max(ks, Math.max((i + 1.0) / n - f, f - (double) i / n));
    }
    double critical = Math.sqrt(Math.log(2 / 1e-6) / (2 * n));
    assertTrue(ks < critical, "KS statistic " + ks + " >= " + critical);
  }

  /**
   * The server's un-projection is unbiased: the mean of P P^T g over 3000 seeds is g (d = 8, k =
   * 16). Coordinate j of one P P^T g has variance (||g||^2 + g_j^2)/k; 6 standard errors
   * (false-failure rate about 2e-9 per coordinate).
   */
  @org.junit.jupiter.api.Tag("statistical")
  @Test
  void unprojectionIsUnbiased() {
    int d = 8;
    int k = 16;
    int seeds = 3000;
    double[] g = vector(11, d);
    double gg = Arrays.stream(g).map(v -> v * v).sum();
    double[] mean = new double[d];
    for (int s = 0; s < seeds; s++) {
      GaussianProjection p = new GaussianProjection(90_000 + s, d, k);
      double[] x = p.backProject(p.project(g));
      for (int j = 0; j < d; j++) {
        mean[j] += x[j] / seeds;
      }
    }
    for (int j = 0; j < d; j++) {
      double se = Math.sqrt((gg + g[j] * g[j]) / k / seeds);
      assertEquals(g[j], mean[j], 6 * se, "coordinate " + j);
    }
  }

  @Test
  void badShapesAreRefused() {
    GaussianProjection p = new GaussianProjection(1, 4, 3);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.project(new double[5]));
    assertEquals("vector length must be the dimension 4. Provided value: 5", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> p.backProject(new double[4]));
    assertThrows(IllegalArgumentException.class, () -> p.project(new double[4], 0));
    assertThrows(IllegalArgumentException.class, () -> new GaussianProjection(1, 0, 3));
    assertThrows(IllegalArgumentException.class, () -> p.column(3));
  }

  /**
   * The chunked, parallel kernels agree with the columns as generated whole: across several row
   * chunks (d = 2.5 chunks, odd), P y adds each row's terms in column order, so it equals the naive
   * sum over column(c) bit for bit; P^T g sums chunk by chunk, so it agrees to rounding.
   */
  @Test
  void theChunkedKernelsAgreeWithWholeColumns() {
    int d = GaussianProjection.ROWS * 2 + GaussianProjection.ROWS / 2 + 1;
    int k = 5;
    GaussianProjection p = new GaussianProjection(99, d, k);
    java.util.SplittableRandom r = new java.util.SplittableRandom(3);
    double[] y = new double[k];
    double[] g = new double[d];
    for (int c = 0; c < k; c++) {
      y[c] = r.nextGaussian();
    }
    for (int j = 0; j < d; j++) {
      g[j] = r.nextGaussian();
    }
    double[] naive = new double[d];
    double[] dots = new double[k];
    for (int c = 0; c < k; c++) {
      double[] col = p.column(c);
      for (int j = 0; j < d; j++) {
        naive[j] += col[j] * y[c];
        dots[c] += col[j] * g[j];
      }
    }
    assertArrayEquals(naive, p.backProject(y));
    double[] proj = p.project(g);
    for (int c = 0; c < k; c++) {
      assertEquals(dots[c], proj[c], 1e-9 * Math.sqrt(d));
    }
    assertArrayEquals(proj, p.project(g, 3), 0.0);
  }
  private static double norm(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x * x;
    }
    return Math.sqrt(s);
  }

  /**
   * "Project then clip" bounds every vector's contribution by the bound, even a vector along P's
   * top singular direction (||P^T v|| / ||v|| = the largest singular value, about 1 + sqrt(d / k)
   * = 6.5 here, against Theorem 2's r(10, 1e-9) = 2.6 for vectors independent of P): the
   * deterministic sensitivity cross-silo's noise is sized for.
   */
  @Test
  void eachProjectionIsClippedToTheBoundEvenAlongTheTopSingularDirection() {
    int d = 300;
    int k = 10;
    GaussianProjection p = new GaussianProjection(1, d, k);
    double[] v = vector(4, d);
    for (int it = 0; it < 200; it++) {
      double[] w = p.backProject(p.project(v));
      double n = norm(w);
      for (int j = 0; j < d; j++) {
        v[j] = w[j] / n;
      }
    }
    double stretch = norm(p.project(v));
    assertTrue(stretch > 5, "top singular value " + stretch);
    double bound = 1.5;
    double[] into = new double[k];
    assertEquals(1, p.addClippedProjections(v, 1, bound, into));
    assertTrue(norm(into) <= bound && norm(into) > bound * (1 - 1e-12), "clipped norm " + norm(into));
    // the direction is kept: the clipped projection is P^T v scaled down
    double[] y = p.project(v);
    for (int c = 0; c < k; c++) {
      assertEquals(y[c] * bound / stretch, into[c], 1e-12);
    }
  }

  /**
   * Within the bound the clipped projections are the projections (to rounding: the batched kernel
   * sums in another order), their sum in row order; one call with every row gives the same bits as
   * one call per row (what lets callers batch as memory allows); a non-finite vector adds nothing.
   */
  @Test
  void clippedProjectionsAreTheProjectionsAndDoNotDependOnTheBatches() {
    int d = 20_000; // three row chunks of ROWS = 8192
    int k = 21;
    int count = 5;
    GaussianProjection p = new GaussianProjection(9, d, k);
    double[] rows = new double[count * d];
    double[] expected = new double[k];
    for (int r = 0; r < count; r++) {
      double[] g = vector(10 + r, d);
      System.arraycopy(g, 0, rows, r * d, d);
      double[] y = p.project(g);
      for (int c = 0; c < k; c++) {
        expected[c] += y[c];
      }
    }
    double[] all = new double[k];
    assertEquals(0, p.addClippedProjections(rows, count, 1e6, all));
    for (int c = 0; c < k; c++) {
      assertEquals(expected[c], all[c], 1e-10 * Math.max(1, Math.abs(expected[c])));
    }
    double[] one = new double[k];
    for (int r = 0; r < count; r++) {
      p.addClippedProjections(Arrays.copyOfRange(rows, r * d, (r + 1) * d), 1, 1e6, one);
    }
    assertArrayEquals(all, one, 0.0);
    double[] bad = new double[d];
    bad[3] = Double.POSITIVE_INFINITY;
    double[] none = new double[k];
    assertEquals(1, p.addClippedProjections(bad, 1, 1, none));
    assertArrayEquals(new double[k], none, 0.0);
  }
}
