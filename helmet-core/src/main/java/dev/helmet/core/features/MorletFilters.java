package dev.helmet.core.features;

import org.jtransforms.fft.DoubleFFT_1D;

/**
 * Kymatio's 2-D filter bank ({@code scattering2d/filter_bank.py}) in double precision, and the
 * 2-D FFT that {@link Scattering2D} builds from JTransforms' 1-D transforms. Complex arrays are
 * interleaved (re, im); spectra are stored transposed (column frequency first), so a 2-D FFT needs
 * one transpose instead of two.
 */
final class MorletFilters {
  private MorletFilters() {}

  /**
   * Kymatio's {@code gabor_2d}: {@code exp(-u' C u / 2 + i xi (u_1 cos theta + u_2 sin theta))}
   * with {@code C = R diag(1, slant^2) R^-1 / sigma^2}, summed over the 5 x 5 periodic copies of
   * the {@code m x n} grid (u_1 along the rows, starting at 0), divided by
   * {@code 2 * 3.1415 * sigma^2 / slant}. The constant 3.1415, not pi, is Kymatio's; it is kept so
   * the filters, and so the features, have Kymatio's scale.
   *
   * @return the {@code m x n} complex filter in space, row-major, interleaved
   */
  static double[] gabor(int m, int n, double sigma, double theta, double xi, double slant) {
    double cos = Math.cos(theta);
    double sin = Math.sin(theta);
    double d = 2 * sigma * sigma;
    double s2 = slant * slant;
    double c00 = (cos * cos + sin * sin * s2) / d;
    double c01 = 2 * (cos * sin * (1 - s2)) / d; // the two off-diagonal entries together
    double c11 = (sin * sin + cos * cos * s2) / d;
    double[] g = new double[2 * m * n];
    for (int ex = -2; ex <= 2; ex++) {
      for (int ey = -2; ey <= 2; ey++) {
        for (int x = 0; x < m; x++) {
          double xx = x + ex * m;
          for (int y = 0; y < n; y++) {
            double yy = y + ey * n;
            double re = -(c00 * xx * xx + c01 * xx * yy + c11 * yy * yy);
            if (re < -746) {
              continue; // exp underflows to exactly 0: skipping changes nothing
            }
            double mag = Math.exp(re);
            int i = 2 * (x * n + y);
            if (xi == 0) {
              g[i] += mag;
            } else {
              double phase = xx * xi * cos + yy * xi * sin;
              g[i] += mag * Math.cos(phase);
              g[i + 1] += mag * Math.sin(phase);
            }
          }
        }
      }
    }
    double norm = 2 * 3.1415 * sigma * sigma / slant;
    for (int i = 0; i < g.length; i++) {
      g[i] /= norm;
    }
    return g;
  }

  /**
   * Kymatio's {@code morlet_2d}: the Gabor filter minus a multiple K of its envelope (the same
   * filter with {@code xi = 0}) so that the sum, the filter's mean, is exactly 0.
   */
  static double[] morlet(int m, int n, double sigma, double theta, double xi, double slant) {
    double[] wave = gabor(m, n, sigma, theta, xi, slant);
    double[] envelope = gabor(m, n, sigma, theta, 0, slant);
    double waveRe = 0;
    double waveIm = 0;
    double env = 0; // the envelope is real
    for (int i = 0; i < wave.length; i += 2) {
      waveRe += wave[i];
      waveIm += wave[i + 1];
      env += envelope[i];
    }
    double kRe = waveRe / env;
    double kIm = waveIm / env;
    for (int i = 0; i < wave.length; i += 2) {
      wave[i] -= kRe * envelope[i];
      wave[i + 1] -= kIm * envelope[i];
    }
    return wave;
  }

  /**
   * The real part of the filter's 2-D DFT (Kymatio drops the imaginary part, which is only
   * rounding for its filters), transposed: {@code n x m}.
   */
  static double[] realSpectrum(double[] spatial, int m, int n, DoubleFFT_1D fftM, DoubleFFT_1D fftN) {
    double[] src = spatial.clone();
    double[] spectrum = new double[2 * m * n];
    forward(fftN, fftM, m, n, src, spectrum);
    double[] real = new double[m * n];
    for (int i = 0; i < real.length; i++) {
      real[i] = spectrum[2 * i];
    }
    return real;
  }

  /**
   * Kymatio's {@code periodize_filter_fft}: the spectrum ({@code rows x cols}) at resolution
   * {@code res}, {@code (rows >> res) x (cols >> res)}: frequencies above the new Nyquist band are
   * masked, then the aliased copies summed (so it is a crop of the lowest frequencies). Both axes
   * are treated alike, so the transposed layout does not matter.
   */
  static double[] periodize(double[] x, int rows, int cols, int res) {
    int subRows = rows >> res;
    int subCols = cols >> res;
    int k = 1 << res;
    // Kymatio zeroes [start, start + len) with start = size 2^-(res+1), len = size (1 - 2^-res).
    int rowStart = rows >> (res + 1);
    int rowEnd = rowStart + rows - subRows;
    int colStart = cols >> (res + 1);
    int colEnd = colStart + cols - subCols;
    double[] crop = new double[subRows * subCols];
    for (int a = 0; a < subRows; a++) {
      for (int b = 0; b < subCols; b++) {
        double sum = 0;
        for (int i = 0; i < k; i++) {
          int r = a + i * subRows;
          if (r >= rowStart && r < rowEnd) {
            continue;
          }
          for (int j = 0; j < k; j++) {
            int c = b + j * subCols;
            if (c >= colStart && c < colEnd) {
              continue;
            }
            sum += x[r * cols + c];
          }
        }
        crop[a * subCols + b] = sum;
      }
    }
    return crop;
  }

  /**
   * The 2-D DFT (unscaled, numpy's sign) of {@code src} ({@code rows x cols}, row-major complex)
   * into {@code dst}, transposed ({@code cols x rows}). Clobbers src.
   *
   * @param rowFft the 1-D transform of length cols
   * @param colFft the 1-D transform of length rows
   */
  static void forward(DoubleFFT_1D rowFft, DoubleFFT_1D colFft, int rows, int cols, double[] src, double[] dst) {
    for (int r = 0; r < rows; r++) {
      rowFft.complexForward(src, 2 * cols * r);
    }
    transpose(src, rows, cols, dst);
    for (int c = 0; c < cols; c++) {
      colFft.complexForward(dst, 2 * rows * c);
    }
  }

  /** {@code dst (cols x rows) = src (rows x cols)} transposed, complex interleaved. */
  static void transpose(double[] src, int rows, int cols, double[] dst) {
    for (int r = 0; r < rows; r++) {
      int in = 2 * r * cols;
      for (int c = 0; c < cols; c++) {
        int out = 2 * (c * rows + r);
        dst[out] = src[in + 2 * c];
        dst[out + 1] = src[in + 2 * c + 1];
      }
    }
  }
}
