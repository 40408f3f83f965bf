package dev.helmet.core.linalg;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link Blas#accumulateTN} on the Vector API: every output row plus a combination of the batch
 * rows, each element an FMA chain over the batch in increasing order (so the vector width cannot
 * change the result, and {@link ScalarBlas} gives the same bits). Columns in tiles that keep the
 * batch's slice in L1; within a tile, 4 x 16 and 2 x 16 register tiles of the output stay in
 * registers while the whole batch streams through.
 */
final class VectorUpdate {
  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_256;

  private VectorUpdate() {}

  static void accumulateTN(double[] c, int ldc, double[] a, int[] aRow, int m, double[] b, int bOff, int kk,
      int n) {
    int body = n - n % 8;
    // Every coefficient replicated into a full vector once, so the inner loop loads it (a load
    // port) instead of broadcasting it from a scalar register (a shuffle on the FMA ports).
    double[] cb = new double[m * kk * 4];
    for (int j = 0; j < m; j++) {
      for (int q = 0; q < kk; q++) {
        double v = c[j * ldc + q];
        int at = (j * kk + q) * 4;
        cb[at] = v;
        cb[at + 1] = v;
        cb[at + 2] = v;
        cb[at + 3] = v;
      }
    }
    // Columns in tiles whose slice of the m input rows fits the L1 cache (about 16 KB), so every
    // block of output rows after the first reads them from there.
    int tile = Math.max(16, (2048 / m) & ~15);
    for (int from = 0; from < body; from += tile) {
      int to = Math.min(body, from + tile);
      int k = 0;
      for (; k + 3 < kk; k += 4) {
        tile4x16(cb, kk, k, a, aRow, m, b, bOff + k * n, n, from, to);
      }
      if (k + 1 < kk) {
        tile2x16(cb, kk, k, a, aRow, m, b, bOff + k * n, n, from, to);
        k += 2;
      }
      for (; k < kk; k++) {
        tile1x8(cb, kk, k, a, aRow, m, b, bOff + k * n, from, to);
      }
    }
    for (int k = 0; k < kk; k++) {
      tailTN(c, ldc, k, a, aRow, m, b, bOff + k * n, body, n);
    }
  }

  /**
   * Output rows k..k+3, columns [from, to) in steps of 16: 16 accumulators, and per batch row 4
   * input and 4 coefficient loads for 16 FMAs (the forward block's ratio); a shorter rest in
   * steps of 8.
   */
  private static void tile4x16(double[] cb, int kk, int k, double[] a, int[] aRow, int m, double[] b, int r0,
      int n, int from, int to) {
    int r1 = r0 + n;
    int r2 = r1 + n;
    int r3 = r2 + n;
    int i = from;
    for (; i + 16 <= to; i += 16) {
      DoubleVector u00 = DoubleVector.fromArray(S, b, r0 + i);
      DoubleVector u01 = DoubleVector.fromArray(S, b, r0 + i + 4);
      DoubleVector u02 = DoubleVector.fromArray(S, b, r0 + i + 8);
      DoubleVector u03 = DoubleVector.fromArray(S, b, r0 + i + 12);
      DoubleVector u10 = DoubleVector.fromArray(S, b, r1 + i);
      DoubleVector u11 = DoubleVector.fromArray(S, b, r1 + i + 4);
      DoubleVector u12 = DoubleVector.fromArray(S, b, r1 + i + 8);
      DoubleVector u13 = DoubleVector.fromArray(S, b, r1 + i + 12);
      DoubleVector u20 = DoubleVector.fromArray(S, b, r2 + i);
      DoubleVector u21 = DoubleVector.fromArray(S, b, r2 + i + 4);
      DoubleVector u22 = DoubleVector.fromArray(S, b, r2 + i + 8);
      DoubleVector u23 = DoubleVector.fromArray(S, b, r2 + i + 12);
      DoubleVector u30 = DoubleVector.fromArray(S, b, r3 + i);
      DoubleVector u31 = DoubleVector.fromArray(S, b, r3 + i + 4);
      DoubleVector u32 = DoubleVector.fromArray(S, b, r3 + i + 8);
      DoubleVector u33 = DoubleVector.fromArray(S, b, r3 + i + 12);
      for (int j = 0; j < m; j++) {
        int cj = (j * kk + k) * 4;
        int aj = aRow[j] + i;
        DoubleVector x0 = DoubleVector.fromArray(S, a, aj);
        DoubleVector x1 = DoubleVector.fromArray(S, a, aj + 4);
        DoubleVector x2 = DoubleVector.fromArray(S, a, aj + 8);
        DoubleVector x3 = DoubleVector.fromArray(S, a, aj + 12);
        DoubleVector s = DoubleVector.fromArray(S, cb, cj);
        u00 = x0.fma(s, u00);
        u01 = x1.fma(s, u01);
        u02 = x2.fma(s, u02);
        u03 = x3.fma(s, u03);
        s = DoubleVector.fromArray(S, cb, cj + 4);
        u10 = x0.fma(s, u10);
        u11 = x1.fma(s, u11);
        u12 = x2.fma(s, u12);
        u13 = x3.fma(s, u13);
        s = DoubleVector.fromArray(S, cb, cj + 8);
        u20 = x0.fma(s, u20);
        u21 = x1.fma(s, u21);
        u22 = x2.fma(s, u22);
        u23 = x3.fma(s, u23);
        s = DoubleVector.fromArray(S, cb, cj + 12);
        u30 = x0.fma(s, u30);
        u31 = x1.fma(s, u31);
        u32 = x2.fma(s, u32);
        u33 = x3.fma(s, u33);
      }
      u00.intoArray(b, r0 + i);
      u01.intoArray(b, r0 + i + 4);
      u02.intoArray(b, r0 + i + 8);
      u03.intoArray(b, r0 + i + 12);
      u10.intoArray(b, r1 + i);
      u11.intoArray(b, r1 + i + 4);
      u12.intoArray(b, r1 + i + 8);
      u13.intoArray(b, r1 + i + 12);
      u20.intoArray(b, r2 + i);
      u21.intoArray(b, r2 + i + 4);
      u22.intoArray(b, r2 + i + 8);
      u23.intoArray(b, r2 + i + 12);
      u30.intoArray(b, r3 + i);
      u31.intoArray(b, r3 + i + 4);
      u32.intoArray(b, r3 + i + 8);
      u33.intoArray(b, r3 + i + 12);
    }
    if (i < to) {
      tile4x8(cb, kk, k, a, aRow, m, b, r0, n, i, to);
    }
  }

  /** Output rows k, k+1, columns [from, to) in steps of 16 (8 accumulators); a rest in steps of 8. */
  private static void tile2x16(double[] cb, int kk, int k, double[] a, int[] aRow, int m, double[] b, int r0,
      int n, int from, int to) {
    int r1 = r0 + n;
    int i = from;
    for (; i + 16 <= to; i += 16) {
      DoubleVector u00 = DoubleVector.fromArray(S, b, r0 + i);
      DoubleVector u01 = DoubleVector.fromArray(S, b, r0 + i + 4);
      DoubleVector u02 = DoubleVector.fromArray(S, b, r0 + i + 8);
      DoubleVector u03 = DoubleVector.fromArray(S, b, r0 + i + 12);
      DoubleVector u10 = DoubleVector.fromArray(S, b, r1 + i);
      DoubleVector u11 = DoubleVector.fromArray(S, b, r1 + i + 4);
      DoubleVector u12 = DoubleVector.fromArray(S, b, r1 + i + 8);
      DoubleVector u13 = DoubleVector.fromArray(S, b, r1 + i + 12);
      for (int j = 0; j < m; j++) {
        int cj = (j * kk + k) * 4;
        int aj = aRow[j] + i;
        DoubleVector x0 = DoubleVector.fromArray(S, a, aj);
        DoubleVector x1 = DoubleVector.fromArray(S, a, aj + 4);
        DoubleVector x2 = DoubleVector.fromArray(S, a, aj + 8);
        DoubleVector x3 = DoubleVector.fromArray(S, a, aj + 12);
        DoubleVector s = DoubleVector.fromArray(S, cb, cj);
        u00 = x0.fma(s, u00);
        u01 = x1.fma(s, u01);
        u02 = x2.fma(s, u02);
        u03 = x3.fma(s, u03);
        s = DoubleVector.fromArray(S, cb, cj + 4);
        u10 = x0.fma(s, u10);
        u11 = x1.fma(s, u11);
        u12 = x2.fma(s, u12);
        u13 = x3.fma(s, u13);
      }
      u00.intoArray(b, r0 + i);
      u01.intoArray(b, r0 + i + 4);
      u02.intoArray(b, r0 + i + 8);
      u03.intoArray(b, r0 + i + 12);
      u10.intoArray(b, r1 + i);
      u11.intoArray(b, r1 + i + 4);
      u12.intoArray(b, r1 + i + 8);
      u13.intoArray(b, r1 + i + 12);
    }
    if (i < to) {
      tile1x8(cb, kk, k, a, aRow, m, b, r0, i, to);
      tile1x8(cb, kk, k + 1, a, aRow, m, b, r1, i, to);
    }
  }

  /** Output rows k..k+3 (starting at {@code r0}, n apart), columns [from, to) in steps of 8. */
  private static void tile4x8(double[] cb, int kk, int k, double[] a, int[] aRow, int m, double[] b, int r0, int n,
      int from, int to) {
    int r1 = r0 + n;
    int r2 = r1 + n;
    int r3 = r2 + n;
    for (int i = from; i < to; i += 8) {
      DoubleVector u0 = DoubleVector.fromArray(S, b, r0 + i);
      DoubleVector u1 = DoubleVector.fromArray(S, b, r1 + i);
      DoubleVector u2 = DoubleVector.fromArray(S, b, r2 + i);
      DoubleVector u3 = DoubleVector.fromArray(S, b, r3 + i);
      DoubleVector w0 = DoubleVector.fromArray(S, b, r0 + i + 4);
      DoubleVector w1 = DoubleVector.fromArray(S, b, r1 + i + 4);
      DoubleVector w2 = DoubleVector.fromArray(S, b, r2 + i + 4);
      DoubleVector w3 = DoubleVector.fromArray(S, b, r3 + i + 4);
      for (int j = 0; j < m; j++) {
        int cj = (j * kk + k) * 4;
        DoubleVector x = DoubleVector.fromArray(S, a, aRow[j] + i);
        DoubleVector z = DoubleVector.fromArray(S, a, aRow[j] + i + 4);
        DoubleVector s0 = DoubleVector.fromArray(S, cb, cj);
        DoubleVector s1 = DoubleVector.fromArray(S, cb, cj + 4);
        DoubleVector s2 = DoubleVector.fromArray(S, cb, cj + 8);
        DoubleVector s3 = DoubleVector.fromArray(S, cb, cj + 12);
        u0 = x.fma(s0, u0);
        u1 = x.fma(s1, u1);
        u2 = x.fma(s2, u2);
        u3 = x.fma(s3, u3);
        w0 = z.fma(s0, w0);
        w1 = z.fma(s1, w1);
        w2 = z.fma(s2, w2);
        w3 = z.fma(s3, w3);
      }
      u0.intoArray(b, r0 + i);
      u1.intoArray(b, r1 + i);
      u2.intoArray(b, r2 + i);
      u3.intoArray(b, r3 + i);
      w0.intoArray(b, r0 + i + 4);
      w1.intoArray(b, r1 + i + 4);
      w2.intoArray(b, r2 + i + 4);
      w3.intoArray(b, r3 + i + 4);
    }
  }

  /** Output row k (at {@code r}), columns [from, to) in steps of 8. */
  private static void tile1x8(double[] cb, int kk, int k, double[] a, int[] aRow, int m, double[] b, int r,
      int from, int to) {
    for (int i = from; i < to; i += 8) {
      DoubleVector u = DoubleVector.fromArray(S, b, r + i);
      DoubleVector w = DoubleVector.fromArray(S, b, r + i + 4);
      for (int j = 0; j < m; j++) {
        DoubleVector s = DoubleVector.fromArray(S, cb, (j * kk + k) * 4);
        u = DoubleVector.fromArray(S, a, aRow[j] + i).fma(s, u);
        w = DoubleVector.fromArray(S, a, aRow[j] + i + 4).fma(s, w);
      }
      u.intoArray(b, r + i);
      w.intoArray(b, r + i + 4);
    }
  }

  private static void tailTN(double[] c, int ldc, int k, double[] a, int[] aRow, int m, double[] b, int r,
      int from, int n) {
    for (int i = from; i < n; i++) {
      double s = b[r + i];
      for (int j = 0; j < m; j++) {
        s = Math.fma(c[j * ldc + k], a[aRow[j] + i], s);
      }
      b[r + i] = s;
    }
  }
}
