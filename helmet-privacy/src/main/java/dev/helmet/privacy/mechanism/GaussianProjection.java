package dev.helmet.privacy.mechanism;

import dev.helmet.core.linalg.Blas;
import dev.helmet.core.util.Checks;
import dev.helmet.core.util.Parallel;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The Johnson-Lindenstrauss projection f_JL(u) = P^T u of Heikkila et al. ("Differentially private
 * cross-silo federated learning", Sec. 2.2 and 3.5, Algorithm 3): P in R^(d x k) with i.i.d.
 * N(0, 1/k) entries, so E[P P^T] = I and the un-projection P y of a projected sum is unbiased.
 * Parties send P^T(sum of clipped gradients) plus noise in k dimensions; the server un-projects
 * (post-processing). The sensitivity of P^T is {@link
 * dev.helmet.privacy.accounting.ProjectionSensitivity}'s.
 *
 * <p>P is never stored whole (d k doubles: 3.2 GB for d = 10^6, k = 400). Column c comes from its
 * own stream: the AES-256 key SHA-256(seed (8 bytes, big-endian) || "helmet projection v1" || c
 * (4 bytes, big-endian)) keys AES/CTR/NoPadding (the JDK's {@link Cipher}, zero IV); each 8
 * keystream bytes give a 53-bit uniform, and each pair of uniforms (u1 in (0, 1], u2 in [0, 1))
 * two normals by Box-Muller, sqrt(-2 ln u1) (cos, sin)(2 pi u2), with {@link StrictMath}, scaled by
 * 1/sqrt(k). Every step is exact IEEE arithmetic or a {@code StrictMath} function, so the bits of P
 * are the same on every JVM and platform, and every party and the server rebuild the same P from
 * the seed. Columns are processed in blocks: a block size bounds memory (d times the block, in
 * doubles) and changes no bit of the result, since each output is accumulated in the same order
 * whatever the blocks.
 *
 * <p>Why a seed and not {@link java.security.SecureRandom}: P is public randomness. It must be
 * identical for every party and the server, it is not secret (the server un-projects with it), and
 * the projection is not a privacy mechanism by itself: privacy comes from the Gaussian noise (drawn
 * with SecureRandom by the noise samplers) and from the clip. The chi^2 argument of Theorem 2 needs P
 * independent of the data and of the model; a seed fixed before the data does not give that
 * against data chosen by someone who knows the seed (a crafted record aligned with P's top singular
 * directions has ||P^T g|| / ||g|| near 1 + sqrt(d / k), not r(k, delta'); privacy review turn 3,
 * finding 2). So the cross-silo protocol does not rely on it: {@link #addClippedProjections} clips
 * each record's projection to the bound the noise is sized for, which holds for any P and any
 * model. AES-CTR is used as a well-studied pseudorandom function, so that honest records' projections
 * behave as under i.i.d. Gaussians (and the clip rarely fires), not for secrecy.
 */
public final class GaussianProjection {
  /** Default number of columns generated together. */
  public static final int DEFAULT_BLOCK = 16;
  private static final byte[] LABEL = "helmet projection v1".getBytes(StandardCharsets.UTF_8);
  /** 2^-53: a 53-bit integer times this is a double in [0, 1), exactly. */
  private static final double UNIT = 0x1p-53;
  /** Keystream bytes per cipher call (512 uniforms). */
  private static final int CHUNK = 4096;
  /** Rows per parallel chunk (even, so no Box-Muller pair straddles two chunks). */
  static final int ROWS = 8192;

  private final long seed;
  private final int d;
  private final int k;
  private final double scale;

  /**
   * @param seed the public seed of this P (fresh per step when the design calls for it)
   * @param dimension d, the length of the vectors projected, >= 1
   * @param projectedDimension k, >= 1
   */
  public GaussianProjection(long seed, int dimension, int projectedDimension) {
    this.seed = seed;
    this.d = Checks.positive("dimension", dimension);
    this.k = Checks.positive("projected dimension", projectedDimension);
    this.scale = 1 / StrictMath.sqrt(projectedDimension);
  }

  /** d. */
  public int dimension() {
    return d;
  }

  /** k. */
  public int projectedDimension() {
    return k;
  }

  /** The seed. */
  public long seed() {
    return seed;
  }

  /** P^T g, in blocks of {@link #DEFAULT_BLOCK} columns. */
  public double[] project(double[] g) {
    return project(g, DEFAULT_BLOCK);
  }

  /**
   * P^T g. The rows are taken in fixed chunks of {@link #ROWS} (independent of the threads and of
   * {@code blockColumns}): y_c is the sum over the chunks, in chunk order, of the chunk's sum in
   * row order, so the bits are the same whatever the block size or the number of threads. The
   * chunks run in parallel; each generates its rows of every column from the column's keystream at
   * the chunk's offset (AES-CTR is seekable: rows 2p and 2p + 1 come from counter block p).
   *
   * @param g a vector of length d
   * @param blockColumns kept for compatibility: any value gives the same bits (the chunked kernel
   *     holds one chunk of one column at a time)
   */
  public double[] project(double[] g, int blockColumns) {
    Checks.require(g.length == d, "vector length must be the dimension " + d + ". Provided value: " + g.length);
    Checks.positive("block columns", blockColumns);
    int chunks = (d + ROWS - 1) / ROWS;
    double[][] partial = new double[chunks][k];
    Parallel.forEach(threads(chunks), chunks, ch -> {
      int from = ch * ROWS;
      int to = Math.min(d, from + ROWS);
      double[] col = new double[to - from];
      for (int c = 0; c < k; c++) {
        generate(c, col, 0, from, to);
        double s = 0;
        for (int j = from; j < to; j++) {
          s += col[j - from] * g[j];
        }
        partial[ch][c] = s;
      }
    });
    double[] y = new double[k];
    for (int c = 0; c < k; c++) {
      double s = 0;
      for (double[] p : partial) {
        s += p[c];
      }
      y[c] = s;
    }
    return y;
  }

  /** P y, in blocks of {@link #DEFAULT_BLOCK} columns. */
  public double[] backProject(double[] y) {
    return backProject(y, DEFAULT_BLOCK);
  }

  /** P y, with {@code blockColumns} columns generated at a time (any value: the same bits). */
  public double[] backProject(double[] y, int blockColumns) {
    double[] x = new double[d];
    backProject(y, x, blockColumns);
    return x;
  }

  /**
   * {@code into += P y}: into[j] += P[j, c] y[c] for c = 0, 1, ..., k - 1 in that order, one term
   * at a time, so any block size or number of threads gives the same bits (the row chunks run in
   * parallel; each row's terms are added in column order within its chunk).
   */
  public void backProject(double[] y, double[] into, int blockColumns) {
    Checks.require(y.length == k, "projected vector length must be " + k + ". Provided value: " + y.length);
    Checks.require(into.length == d, "output length must be the dimension " + d + ". Provided value: "
        + into.length);
    Checks.positive("block columns", blockColumns);
    int chunks = (d + ROWS - 1) / ROWS;
    Parallel.forEach(threads(chunks), chunks, ch -> {
      int from = ch * ROWS;
      int to = Math.min(d, from + ROWS);
      double[] col = new double[to - from];
      for (int c = 0; c < k; c++) {
        generate(c, col, 0, from, to);
        double yc = y[c];
        for (int j = from; j < to; j++) {
          into[j] += col[j - from] * yc;
        }
      }
    });
  }

  /**
   * {@code into += sum_r clip_bound(P^T g_r)} over the {@code count} vectors g_r = {@code
   * rows[r d .. (r + 1) d)}: each vector is projected by itself and its projection scaled down to
   * L2 norm at most {@code bound} before the projections are added, in order r = 0, 1, ... ("project
   * then clip", design note 1.5 and doubt 5). Whatever P is and however the vectors were chosen, one
   * vector then moves the sum by at most {@code bound} (add or remove) or its two versions by at
   * most {@code bound} each (replace one): a deterministic sensitivity, unlike Theorem 2's bound,
   * which holds only with probability 1 - delta' and only for vectors independent of P.
   *
   * <p>Rounding, towards the safe side: the computed norm of a k-vector, sqrt of a recursive sum of
   * squares, is within a relative (k / 2 + 2) 2^-53 of the exact one (Higham, Accuracy and Stability
   * of Numerical Algorithms, 2nd ed., Sec. 3.1: gamma_k for the sum, one rounding for sqrt), and
   * scaling by the rounded factor adds two roundings per entry. The clip therefore aims at {@code
   * bound (1 - (2k + 8) 2^-53)}: the scaled (or unscaled) projection's exact norm is then below
   * {@code bound}. A projection whose norm is not finite (a vector with an infinite entry) counts
   * as zero, as the learners count such gradients.
   *
   * <p>Cost: P is generated once per call (d k Gaussians, as {@link #project}) and multiplied by
   * the count x d block ({@link Blas#productNT}, about count d k FMAs), so callers batch as many
   * vectors per call as their memory allows. The bits do not depend on the threads: each output
   * is the sum over the fixed row chunks of {@link #ROWS}, in chunk order, of the chunk's product.
   *
   * @param rows the vectors, {@code count} rows of length d one after the other
   * @param count how many rows of {@code rows} to use, >= 0
   * @param bound the L2 bound of each projection, > 0
   * @param into the sum of the clipped projections, length k
   * @return how many projections were scaled down (or dropped as not finite)
   */
  public int addClippedProjections(double[] rows, int count, double bound, double[] into) {
    Checks.require(count >= 0 && (long) count * d <= rows.length, "count must be in [0, " + rows.length / d
        + "] for rows of " + rows.length + " values. Provided value: " + count);
    Checks.require(bound > 0 && Double.isFinite(bound), "bound must be > 0 and finite. Provided value: " + bound);
    Checks.require(into.length == k, "output length must be " + k + ". Provided value: " + into.length);
    if (count == 0) {
      return 0;
    }
    int chunks = (d + ROWS - 1) / ROWS;
    double[][] partial = new double[chunks][count * k];
    Parallel.forEach(threads(chunks), chunks, ch -> {
      int from = ch * ROWS;
      int n = Math.min(d, from + ROWS) - from;
      int block = Math.min(k, DEFAULT_BLOCK);
      double[] cols = new double[block * n];
      double[] out = new double[count * block];
      int[] at = new int[count];
      for (int r = 0; r < count; r++) {
        at[r] = r * d + from;
      }
      for (int c0 = 0; c0 < k; c0 += block) {
        int kk = Math.min(block, k - c0);
        for (int c = 0; c < kk; c++) {
          generate(c0 + c, cols, c * n, from, from + n);
        }
        Blas.productNT(rows, at, count, cols, 0, kk, n, out, kk);
        for (int r = 0; r < count; r++) {
          System.arraycopy(out, r * kk, partial[ch], r * k + c0, kk);
        }
      }
    });
    double target = bound * (1 - (2.0 * k + 8) * 0x1p-53);
    double[] y = new double[k];
    int clipped = 0;
    for (int r = 0; r < count; r++) {
      double norm2 = 0;
      for (int c = 0; c < k; c++) {
        double s = 0;
        for (double[] p : partial) {
          s += p[r * k + c];
        }
        y[c] = s;
        norm2 += s * s;
      }
      double norm = Math.sqrt(norm2);
      double f = !Double.isFinite(norm) ? 0 : norm > target ? target / norm : 1;
      if (f != 1) {
        clipped++;
      }
      if (f == 0) {
        continue;
      }
      for (int c = 0; c < k; c++) {
        into[c] += f == 1 ? y[c] : y[c] * f;
      }
    }
    return clipped;
  }

  /** Column c of P: d entries N(0, 1/k). */
  public double[] column(int c) {
    Checks.require(c >= 0 && c < k, "column must be in [0, " + k + "). Provided value: " + c);
    double[] out = new double[d];
    generate(c, out, 0, 0, d);
    return out;
  }

  private static int threads(int chunks) {
    return Math.max(1, Math.min(chunks, Runtime.getRuntime().availableProcessors()));
  }

  /**
   * Writes rows [from, to) of column c into out[at .. at + to - from): row pair p (rows 2p, 2p + 1)
   * is one Box-Muller draw from the 16 keystream bytes of counter block p, so any even {@code from}
   * starts exactly where the whole column's stream would be.
   */
  private void generate(int c, double[] out, int at, int from, int to) {
    Checks.require(from % 2 == 0, "a chunk starts at an even row. Provided value: " + from);
    Cipher aes = columnCipher(c, from / 2);
    byte[] zeros = new byte[CHUNK];
    byte[] ks = new byte[CHUNK];
    ByteBuffer buf = ByteBuffer.wrap(ks);
    buf.position(CHUNK); // empty: refilled on first use
    for (int j = from; j < to; j += 2) {
      if (buf.remaining() < 16) {
        try {
          aes.update(zeros, 0, CHUNK, ks, 0);
        } catch (GeneralSecurityException e) {
          throw new IllegalStateException("AES-CTR keystream failed", e);
        }
        buf.clear();
      }
      double u1 = ((buf.getLong() >>> 11) + 1) * UNIT; // (0, 1]: log is finite
      double u2 = (buf.getLong() >>> 11) * UNIT; // [0, 1)
      double r = StrictMath.sqrt(-2 * StrictMath.log(u1));
      double t = 2 * Math.PI * u2;
      out[at + j - from] = r * StrictMath.cos(t) * scale;
      if (j + 1 < to) {
        out[at + j + 1 - from] = r * StrictMath.sin(t) * scale;
      }
    }
  }

  /** Column c's keystream from counter block {@code block} on (the counter is the IV, big-endian). */
  private Cipher columnCipher(int c, long block) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(ByteBuffer.allocate(8).putLong(seed).array());
      sha.update(LABEL);
      sha.update(ByteBuffer.allocate(4).putInt(c).array());
      Cipher aes = Cipher.getInstance("AES/CTR/NoPadding");
      byte[] iv = ByteBuffer.allocate(16).putLong(0).putLong(block).array();
      aes.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(sha.digest(), "AES"), new IvParameterSpec(iv));
      return aes;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 and AES/CTR/NoPadding are required of every JDK", e);
    }
  }
}
