package dev.helmet.experiments.bench;

import dev.helmet.core.linalg.Blas;
import java.util.SplittableRandom;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * What this core does on the trainer's arithmetic, measured in the same run as the trainer so the
 * trainer is reported as a fraction of it rather than of a number from another day or machine:
 *
 * <ul>
 *   <li>{@link #fmaPeak}: 12 independent chains of 256-bit FP64 FMAs on registers only (no memory):
 *       the core's FP64 FMA rate through the Vector API.
 *   <li>{@link #stepGemm}: the SGD step's own matrix products on data in cache, with the same
 *       register-blocked kernels the trainer uses ({@link Blas#productNT} for the scores of a
 *       batch, {@link Blas#accumulateTN} for the update): batch x dims x classes, twice.
 * </ul>
 */
public final class Roofline {
  private Roofline() {}

  /** FP64 GFLOP/s of register-only 256-bit FMAs (0 when the Vector API is not enabled). */
  public static double fmaPeak() {
    if (!Blas.vectorised()) {
      return 0;
    }
    double sink = 0;
    for (int w = 0; w < 5; w++) {
      sink += Fma.loop(2_000_000);
    }
    long iters = 40_000_000;
    long t0 = System.nanoTime();
    sink += Fma.loop(iters);
    double secs = (System.nanoTime() - t0) / 1e9;
    return 12.0 * 4 * 2 * iters / secs / 1e9 + (sink == 42 ? 1e-12 : 0);
  }

  /** Apart, so nothing of the Vector API is loaded unless it is enabled. */
  private static final class Fma {
    private static final VectorSpecies<Double> S = DoubleVector.SPECIES_256;

  static double loop(long iters) {
    DoubleVector m = DoubleVector.broadcast(S, 0.999_999_9);
    DoubleVector a = DoubleVector.broadcast(S, 1e-9);
    DoubleVector c0 = DoubleVector.broadcast(S, 1);
    DoubleVector c1 = c0;
    DoubleVector c2 = c0;
    DoubleVector c3 = c0;
    DoubleVector c4 = c0;
    DoubleVector c5 = c0;
    DoubleVector c6 = c0;
    DoubleVector c7 = c0;
    DoubleVector c8 = c0;
    DoubleVector c9 = c0;
    DoubleVector c10 = c0;
    DoubleVector c11 = c0;
    for (long i = 0; i < iters; i++) {
      c0 = c0.fma(m, a);
      c1 = c1.fma(m, a);
      c2 = c2.fma(m, a);
      c3 = c3.fma(m, a);
      c4 = c4.fma(m, a);
      c5 = c5.fma(m, a);
      c6 = c6.fma(m, a);
      c7 = c7.fma(m, a);
      c8 = c8.fma(m, a);
      c9 = c9.fma(m, a);
      c10 = c10.fma(m, a);
      c11 = c11.fma(m, a);
    }
    DoubleVector s = c0.add(c1).add(c2).add(c3).add(c4).add(c5).add(c6).add(c7).add(c8).add(c9).add(c10).add(c11);
    return s.lane(0) + s.lane(3);
  }
  }

  /**
   * GFLOP/s of the SGD step's products, {@code 4 b k n} flops per step: the scores of b rows of
   * length n against k model rows, then the k rows' update from the same b rows.
   */
  public static double stepGemm(int b, int n, int k) {
    SplittableRandom r = new SplittableRandom(3);
    int rows = 4 * b;
    double[] x = new double[rows * n];
    for (int i = 0; i < x.length; i++) {
      x[i] = r.nextGaussian() * 0.01;
    }
    double[] w = new double[k * n];
    double[] scores = new double[b * k];
    double[] c = new double[b * k];
    for (int i = 0; i < c.length; i++) {
      c[i] = r.nextGaussian() * 1e-6;
    }
    int[][] batches = new int[4][b];
    for (int q = 0; q < 4; q++) {
      for (int j = 0; j < b; j++) {
        batches[q][j] = (q * b + j) * n;
      }
    }
    long steps = Math.max(200, (long) (4e9 / (4.0 * b * k * n)));
    for (int i = 0; i < steps / 4; i++) {
      int[] rowsAt = batches[i % 4];
      Blas.productNT(x, rowsAt, b, w, 0, k, n, scores, k);
      Blas.accumulateTN(c, k, x, rowsAt, b, w, 0, k, n);
    }
    long t0 = System.nanoTime();
    for (long i = 0; i < steps; i++) {
      int[] rowsAt = batches[(int) (i % 4)];
      Blas.productNT(x, rowsAt, b, w, 0, k, n, scores, k);
      Blas.accumulateTN(c, k, x, rowsAt, b, w, 0, k, n);
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    return 4.0 * b * k * n * steps / secs / 1e9 + (scores[0] == 42 ? 1e-12 : 0);
  }
}
