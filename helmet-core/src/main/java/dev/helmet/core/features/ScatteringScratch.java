package dev.helmet.core.features;

import java.util.HashMap;
import java.util.Map;
import org.jtransforms.fft.DoubleFFT_1D;

/**
 * One thread's scratch space for {@link Scattering2D}: its FFT plans and buffers, so that
 * {@code apply} allocates nothing of its own in steady state (JTransforms' mixed-radix 1-D
 * transforms still allocate a small work array per call; their API takes none).
 */
final class ScatteringScratch {
  private ScatteringScratch() {}

  /** One DoubleFFT_1D per length, shared by the axes that have it. */
  static final class Plans {
    private final Map<Integer, DoubleFFT_1D> byLength = new HashMap<>();

    DoubleFFT_1D get(int n) {
      return byLength.computeIfAbsent(n, DoubleFFT_1D::new);
    }
  }

  /**
   * One thread's FFT plans and buffers. Level s holds the signals subsampled by 2^s
   * ({@code (mp >> s) x (np >> s)}); spatial buffers are row-major, spectra transposed
   * ({@code (np >> s) x (mp >> s)}), all complex interleaved.
   */
  static final class Workspace {
    final int mp;
    final int np;
    final int levels;
    final DoubleFFT_1D[] rowFft;
    final DoubleFFT_1D[] colFft;
    final double[] u0;
    final double[][] spec;
    final double[][] spat;
    final double[][] pair;
    final double[][] pairSpec;
    final double[][] ua;
    final double[][] ub;
    final int specSize;
    final double[] outSpec;
    final double[] result;

    Workspace(int mp, int np, int J, int channels) {
      this.mp = mp;
      this.np = np;
      this.levels = J + 1;
      Plans plans = new Plans();
      rowFft = new DoubleFFT_1D[levels];
      colFft = new DoubleFFT_1D[levels];
      spec = new double[levels][];
      spat = new double[levels][];
      pair = new double[levels][];
      pairSpec = new double[levels][];
      ua = new double[levels][];
      ub = new double[levels][];
      for (int s = 0; s < levels; s++) {
        rowFft[s] = plans.get(np >> s);
        colFft[s] = plans.get(mp >> s);
        int n = 2 * (mp >> s) * (np >> s);
        spec[s] = new double[n];
        spat[s] = new double[n];
        if (s < J) {
          pair[s] = new double[n];
          pairSpec[s] = new double[n];
          ua[s] = new double[n];
          ub[s] = new double[n];
        }
      }
      u0 = new double[2 * mp * np];
      specSize = 2 * (mp >> J) * (np >> J);
      outSpec = new double[channels * specSize];
      result = new double[channels * ((mp >> J) - 2) * ((np >> J) - 2)];
    }

    /** Spatial (rows x cols) to transposed spectrum; clobbers src. */
    void forward(int s, double[] src, double[] dst) {
      MorletFilters.forward(rowFft[s], colFft[s], mp >> s, np >> s, src, dst);
    }

    /** Transposed spectrum to spatial, unscaled (the kernels carry numpy's 1 / (rows cols)); clobbers src. */
    void inverse(int s, double[] src, double[] dst) {
      int rows = mp >> s;
      int cols = np >> s;
      for (int c = 0; c < cols; c++) {
        colFft[s].complexInverse(src, 2 * rows * c, false);
      }
      MorletFilters.transpose(src, cols, rows, dst);
      for (int r = 0; r < rows; r++) {
        rowFft[s].complexInverse(dst, 2 * cols * r, false);
      }
    }

    /**
     * The real outputs from their spectra (at level J), two channels per inverse FFT: each
     * spectrum made Hermitian, (X[f] + conj X[-f]) / 2, whose inverse is the real part of X's;
     * then X + iY inverts to x + iy. Writes the unpadded values to {@code result}.
     */
    void outputs(int outH, int outW, int channels, int[] neg) {
      int s = levels - 1;
      double[] z = spec[s];
      double[] sp = spat[s];
      int plane = outH * outW;
      for (int ch = 0; ch < channels; ch += 2) {
        int xo = ch * specSize;
        boolean two = ch + 1 < channels;
        int yo = xo + specSize;
        for (int f = 0; f < neg.length; f++) {
          int i = 2 * f;
          int m = 2 * neg[f];
          double re = outSpec[xo + i] + outSpec[xo + m];
          double im = outSpec[xo + i + 1] - outSpec[xo + m + 1];
          if (two) {
            re -= outSpec[yo + i + 1] - outSpec[yo + m + 1];
            im += outSpec[yo + i] + outSpec[yo + m];
          }
          z[i] = 0.5 * re;
          z[i + 1] = 0.5 * im;
        }
        inverse(s, z, sp);
        int outCols = np >> s;
        for (int r = 0; r < outH; r++) {
          for (int c = 0; c < outW; c++) {
            int i = 2 * ((r + 1) * outCols + c + 1);
            result[ch * plane + r * outW + c] = sp[i];
            if (two) {
              result[(ch + 1) * plane + r * outW + c] = sp[i + 1];
            }
          }
        }
      }
    }
  }
}
