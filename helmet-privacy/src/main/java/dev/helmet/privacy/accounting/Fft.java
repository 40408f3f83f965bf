package dev.helmet.privacy.accounting;

import java.lang.ref.SoftReference;

/**
 * Convolution of real sequences by FFT: each real sequence of (padded) length n is transformed as
 * n/2 complex points (even entries as real parts, odd ones as imaginary parts) by a radix-2
 * complex FFT, and split into its half spectrum; the product is transformed back the same way.
 * A convolution thus costs three half-size complex transforms, a square ({@code a * a}) two.
 *
 * <p>Complex arrays are interleaved (re, im, re, im, ...). Twiddle factors are computed once
 * (directly, by {@code cos}/{@code sin} of the reduced angle, no recurrence) and cached, stored
 * stage by stage so that every butterfly stage reads them contiguously: the factors of the stage
 * of length {@code len}, {@code exp(-2 pi i k / len)} for {@code k < len/2}, are at complex index
 * {@code len/2 + k}. They do not depend on the transform size, so one table serves every size up
 * to its own.
 */
final class Fft {
  /** Below this length of the shorter input (or product of lengths) convolve directly. */
  private static final int DIRECT_MIN = 64;
  private static final long DIRECT_PRODUCT = 4096;
  /** Complex points per cache block: the first stages run block by block. */
  private static final int BLOCK = 2048;

  private static volatile SoftReference<double[]> cache = new SoftReference<>(null);

  private Fft() {}

  /** The full linear convolution of a and b (length {@code a.length + b.length - 1}). */
  static double[] convolve(double[] a, double[] b) {
    int n = a.length + b.length - 1;
    if (Math.min(a.length, b.length) <= DIRECT_MIN || (long) a.length * b.length <= DIRECT_PRODUCT) {
      return direct(a, b);
    }
    int size = Math.max(8, Integer.highestOneBit(n - 1) << 1); // the smallest power of two >= n
    int m = size / 2;
    double[] w = twiddles(size);
    double[] x = new double[size];
    System.arraycopy(a, 0, x, 0, a.length);
    realForward(x, m, w);
    if (a == b) {
      multiplyPacked(x, x, m);
    } else {
      double[] y = new double[size];
      System.arraycopy(b, 0, y, 0, b.length);
      realForward(y, m, w);
      multiplyPacked(x, y, m);
    }
    realInverse(x, m, w);
    double scale = 1.0 / m; // exact: m is a power of two
    double[] c = new double[n];
    for (int i = 0; i < n; i++) {
      c[i] = x[i] * scale;
    }
    return c;
  }

  static double[] direct(double[] a, double[] b) {
    double[] s = a.length <= b.length ? a : b;
    double[] l = s == a ? b : a;
    double[] c = new double[a.length + b.length - 1];
    for (int i = 0; i < s.length; i++) {
      double si = s[i];
      for (int j = 0; j < l.length; j++) {
        c[i + j] += si * l[j];
      }
    }
    return c;
  }

  /**
   * In place: the real sequence x (length 2m) becomes its half spectrum X_0..X_m, packed as x[0] =
   * X_0 and x[1] = X_m (both real), (x[2k], x[2k+1]) = X_k for 0 < k < m.
   */
  static void realForward(double[] x, int m, double[] w) {
    transform(x, m, w, false);
    double z0r = x[0];
    double z0i = x[1];
    x[0] = z0r + z0i;
    x[1] = z0r - z0i;
    int n = 2 * m;
    for (int k = 1, j = m - 1; k < j; k++, j--) {
      double ar = x[2 * k];
      double ai = x[2 * k + 1];
      double br = x[2 * j];
      double bi = x[2 * j + 1];
      // E = (Z_k + conj Z_j)/2, O = (Z_k - conj Z_j)/(2i): the spectra of the even and odd entries.
      double er = 0.5 * (ar + br);
      double ei = 0.5 * (ai - bi);
      double or = 0.5 * (ai + bi);
      double oi = 0.5 * (br - ar);
      double wr = w[n + 2 * k];
      double wi = w[n + 2 * k + 1];
      double tr = wr * or - wi * oi;
      double ti = wr * oi + wi * or;
      // X_k = E + W^k O; X_j = conj(E - W^k O) since W^(m-k) = -conj(W^k).
      x[2 * k] = er + tr;
      x[2 * k + 1] = ei + ti;
      x[2 * j] = er - tr;
      x[2 * j + 1] = ti - ei;
    }
    if (m >= 2) {
      x[m + 1] = -x[m + 1]; // X_(m/2) = conj(Z_(m/2))
    }
  }

  /** The inverse of {@link #realForward}, times m (scale by 1/m to recover x). */
  static void realInverse(double[] x, int m, double[] w) {
    double x0 = x[0];
    double xm = x[1];
    x[0] = 0.5 * (x0 + xm);
    x[1] = 0.5 * (x0 - xm);
    int n = 2 * m;
    for (int k = 1, j = m - 1; k < j; k++, j--) {
      double ar = x[2 * k];
      double ai = x[2 * k + 1];
      double br = x[2 * j];
      double bi = x[2 * j + 1];
      // E = (X_k + conj X_j)/2, O = (X_k - conj X_j) conj(W^k)/2, Z_k = E + i O, Z_j = conj E + i conj O.
      double er = 0.5 * (ar + br);
      double ei = 0.5 * (ai - bi);
      double dr = 0.5 * (ar - br);
      double di = 0.5 * (ai + bi);
      double wr = w[n + 2 * k];
      double wi = w[n + 2 * k + 1];
      double or = dr * wr + di * wi;
      double oi = di * wr - dr * wi;
      x[2 * k] = er - oi;
      x[2 * k + 1] = ei + or;
      x[2 * j] = er + oi;
      x[2 * j + 1] = or - ei;
    }
    if (m >= 2) {
      x[m + 1] = -x[m + 1];
    }
    transform(x, m, w, true);
  }

  /** x = x * y, both packed half spectra (see {@link #realForward}). */
  private static void multiplyPacked(double[] x, double[] y, int m) {
    x[0] *= y[0];
    x[1] *= y[1];
    for (int k = 2; k < 2 * m; k += 2) {
      double ar = x[k];
      double ai = x[k + 1];
      double br = y[k];
      double bi = y[k + 1];
      x[k] = ar * br - ai * bi;
      x[k + 1] = ar * bi + ai * br;
    }
  }

  /**
   * In-place iterative radix-2 FFT of the m complex points interleaved in z (the inverse without
   * the 1/m factor), with the twiddle table w of at least 2m doubles.
   */
  static void transform(double[] z, int m, double[] w, boolean inverse) {
    bitReverse(z, m);
    if (m < 2) {
      return;
    }
    for (int u = 0; u < 2 * m; u += 4) { // length 2: twiddle 1
      double ur = z[u];
      double ui = z[u + 1];
      double vr = z[u + 2];
      double vi = z[u + 3];
      z[u] = ur + vr;
      z[u + 1] = ui + vi;
      z[u + 2] = ur - vr;
      z[u + 3] = ui - vi;
    }
    double sign = inverse ? -1 : 1;
    int block = Math.min(m, BLOCK);
    for (int from = 0; from < m; from += block) { // the stages inside a block, block by block
      for (int len = 4; len <= block; len <<= 1) {
        stage(z, from, from + block, len, w, sign);
      }
    }
    for (int len = 2 * block; len <= m; len <<= 1) {
      stage(z, 0, m, len, w, sign);
    }
  }

  private static void stage(double[] z, int from, int to, int len, double[] w, double sign) {
    int half = len >> 1;
    for (int i = from; i < to; i += len) {
      int u = 2 * i;
      for (int k = 0; k < half; k++, u += 2) {
        double wr = w[len + 2 * k];
        double wi = sign * w[len + 2 * k + 1];
        int v = u + len;
        double vr = z[v];
        double vi = z[v + 1];
        double xr = vr * wr - vi * wi;
        double xi = vr * wi + vi * wr;
        double ur = z[u];
        double ui = z[u + 1];
        z[u] = ur + xr;
        z[u + 1] = ui + xi;
        z[v] = ur - xr;
        z[v + 1] = ui - xi;
      }
    }
  }

  private static void bitReverse(double[] z, int m) {
    for (int i = 1, j = 0; i < m; i++) {
      int bit = m >> 1;
      for (; (j & bit) != 0; bit >>= 1) {
        j ^= bit;
      }
      j ^= bit;
      if (i < j) {
        double t = z[2 * i];
        z[2 * i] = z[2 * j];
        z[2 * j] = t;
        t = z[2 * i + 1];
        z[2 * i + 1] = z[2 * j + 1];
        z[2 * j + 1] = t;
      }
    }
  }

  /** The twiddle table for stages up to length n (a power of two >= 8): 2n doubles. */
  static double[] twiddles(int n) {
    double[] w = cache.get();
    if (w != null && w.length >= 2 * n) {
      return w;
    }
    w = computeTwiddles(n);
    cache = new SoftReference<>(w);
    return w;
  }

  static double[] computeTwiddles(int n) {
    double[] w = new double[2 * n];
    // The largest stage, exp(-2 pi i k / n) for k < n/2, from the first octant by symmetry.
    int q = n / 4;
    for (int k = 0; k <= n / 8; k++) {
      double ang = 2 * Math.PI * k / n;
      double c = Math.cos(ang);
      double s = Math.sin(ang);
      set(w, n, k, c, -s);
      set(w, n, q - k, s, -c);
      set(w, n, q + k, -s, -c);
      if (k > 0) {
        set(w, n, 2 * q - k, -c, -s);
      }
    }
    // Each smaller stage takes every other factor of the next larger one.
    for (int len = n / 2; len >= 2; len >>= 1) {
      for (int k = 0; k < len / 2; k++) {
        w[len + 2 * k] = w[2 * len + 4 * k];
        w[len + 2 * k + 1] = w[2 * len + 4 * k + 1];
      }
    }
    return w;
  }

  private static void set(double[] w, int len, int k, double re, double im) {
    w[len + 2 * k] = re;
    w[len + 2 * k + 1] = im;
  }
}
