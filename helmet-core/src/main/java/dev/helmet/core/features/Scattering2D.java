package dev.helmet.core.features;

import dev.helmet.core.data.ImageShape;
import dev.helmet.core.util.Checks;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The 2-D scattering transform of order 2 with Morlet wavelets, as Kymatio's {@code Scattering2D}
 * (NumPy backend, 0.4, commit 11552ed) computes it: a cascade of wavelet convolutions, moduli and
 * a final Gaussian low-pass, which gives translation-stable, deformation-stable features on which
 * a linear model does much better than on raw pixels (the reason private linear learners use it).
 *
 * <p>For J = 2, L = 8 on a 28x28 image the output is 81 channels of 7x7 values: S0 (the low-pass
 * of the image), the 16 first-order paths {@code |x * psi_n1| * phi} ({@code n1 = j1 L + theta1}),
 * then the 64 second-order paths {@code ||x * psi_n1| * psi_n2| * phi} with {@code j2 > j1}
 * (n1 outer, n2 inner). Layout: channel-major, channel c's values row-major at {@code c * h * w}.
 *
 * <p>As in Kymatio: the image is reflect-padded (mirror without repeating the edge) to
 * {@code ((M + 2^J) / 2^J + 1) 2^J} per axis, {@code (Mp - M) / 2} before and the rest after; the
 * filter bank is built at the padded size and only the real part of each filter's Fourier
 * transform is kept; the lower-resolution copies of a filter come from cropping its spectrum
 * ({@code periodize_filter_fft}); subsampling by k in space is the mean of the k x k aliased
 * copies of the spectrum; and each output drops one row and column at every border. Kymatio
 * builds its filters in float32, this class in double: outputs agree to about 1e-6 of each
 * channel's scale.
 *
 * <p>Optionally ({@code groups > 0}) each image's output is normalised per group of consecutive
 * channels: minus the group's mean, divided by {@code sqrt(variance + 1e-5)} (population variance
 * over the group's values of this image). It uses the one image only, so it stays data-independent
 * (no privacy cost), and it evens out the very different scales of the orders: a NumPy prototype
 * reached 90 % on private MNIST with 27 groups of 3 channels, 83 % without.
 *
 * <p>Speed (about 850 images/s per thread for 28x28, J = 2, L = 8, measured on a shared
 * 2-core VM; about two thirds of it in JTransforms): the filter bank is built once; each thread
 * keeps its own FFT plans and buffers ({@link ScatteringScratch}). The 2-D FFTs are combined here
 * from JTransforms' 1-D ones: its DoubleFFT_2D changes a field during a power-of-two transform
 * (so it cannot be shared), allocates a column buffer per call and, from 65,536 values, starts
 * threads of its own. Two real signals share one complex FFT (the moduli of two paths of the same
 * scale), and since every output is real, two output spectra are made Hermitian and share one
 * inverse FFT. Spectra are kept transposed (frequency of the columns first), which saves a
 * transpose per 2-D FFT.
 */
public final class Scattering2D implements ImageTransform {
  /** Default number of scales: the features of 4x4 neighbourhoods of a 28x28 image. */
  public static final int DEFAULT_J = 2;
  /** Default number of angles. */
  public static final int DEFAULT_L = 8;
  /** Default normalisation groups for J = 2, L = 8: 27 groups of 3 of the 81 channels. */
  public static final int DEFAULT_GROUPS = 27;

  /** Kymatio's order: first- and second-order paths. */
  private static final int ORDER = 2;
  /** Added to the variance in the group normalisation, as in the prototype (and batch norm). */
  private static final double NORM_EPS = 1e-5;

  private final ImageShape shape;
  private final int J;
  private final int L;
  private final int groups;
  private final int channels;
  private final int mp;
  private final int np;
  private final int outH;
  private final int outW;
  /** Source pixel of each padded row and column (reflect padding). */
  private final int[] padRow;
  private final int[] padCol;
  /**
   * psi[n][res]: wavelet n = j L + theta at resolution res, real spectrum, transposed, see
   * {@link #kernel}. It is always subsampled by 2^(j - res) after the product.
   */
  private final double[][][] psi;
  /** phi[res]: the low-pass at resolution res, as psi; always subsampled by 2^(J - res). */
  private final double[][] phi;
  /** negated[s][f]: the index of frequency -f in a transposed spectrum at level s. */
  private final int[][] negated;
  /** First output channel of the second-order paths of each n1. */
  private final int[] secondOrderBase;
  private final ThreadLocal<ScatteringScratch.Workspace> workspace;

  /** The transform with Kymatio's defaults J = 2, L = 8 and 27 normalisation groups. */
  public static Scattering2D standard(ImageShape shape) {
    return new Scattering2D(shape, DEFAULT_J, DEFAULT_L, DEFAULT_GROUPS);
  }

  /** The raw scattering transform (no group normalisation), as Kymatio outputs it. */
  public Scattering2D(ImageShape shape, int J, int L) {
    this(shape, J, L, 0);
  }

  /**
   * The most filter values (J L padded images): 2^24, about 0.5 GiB with their spectra. A 224x224
   * image with J = 4, L = 8 needs 2.6 million; MNIST's 28x28 with J = 2, L = 8, 23 thousand.
   */
  static final long MAX_FILTER_CELLS = 1L << 24;
  /** The longest image side, 2^15 pixels. */
  static final int MAX_SIDE = 1 << 15;
  /** The most outputs per image (2^24; a 224x224 image with J = 4, L = 8 has 81 thousand). */
  static final long MAX_OUTPUTS = 1L << 24;

  /**
   * @param shape the image shape; height and width must be at least {@code 2^J}
   * @param J the number of scales (the output is subsampled by {@code 2^J}), at least 1
   * @param L the number of angles, at least 1
   * @param groups the number of normalisation groups, 0 for none; must divide the channel count
   */
  public Scattering2D(ImageShape shape, int J, int L, int groups) {
    this.shape = Checks.notNull("shape", shape);
    Checks.inRange("J", J, 1, 20);
    Checks.inRange("L", L, 1, 1024);
    Checks.nonNegative("groups", groups);
    Checks.require(shape.height() <= MAX_SIDE && shape.width() <= MAX_SIDE, "the scattering transform takes images of "
        + "at most " + MAX_SIDE + " pixels a side. Provided shape: " + shape);
    int scale = 1 << J;
    if (shape.height() < scale || shape.width() < scale) {
      throw new IllegalArgumentException("the scattering transform with J = " + J
          + " needs an image of at least 2^J x 2^J = " + scale + "x" + scale + " pixels. Provided shape: " + shape);
    }
    this.J = J;
    this.L = L;
    this.channels = channels(J, L);
    if (groups > 0 && channels % groups != 0) {
      throw new IllegalArgumentException("groups must divide the " + channels + " channels of J = " + J + ", L = " + L
          + " (one of " + divisors(channels) + "), or be 0 for no normalisation. Provided value: " + groups);
    }
    this.groups = groups;
    this.mp = paddedSize(shape.height(), J);
    this.np = paddedSize(shape.width(), J);
    this.outH = (mp >> J) - 2;
    this.outW = (np >> J) - 2;

    Checks.require((long) channels * outH * outW <= MAX_OUTPUTS, "the scattering transform of a " + shape
        + " image with J = " + J + ", L = " + L + " has more than " + MAX_OUTPUTS + " outputs");
    // The filter bank holds J L wavelets at the padded size (and their spectra): refused before any
    // of it is allocated, since a transform's settings may come from another party (a published
    // session or a released model: security review turn 3, attacker's read of T3-7).
    Checks.require((long) J * L * mp * np <= MAX_FILTER_CELLS, "the scattering transform of a " + shape
        + " image with J = " + J + ", L = " + L + " needs " + J + " x " + L + " filters of " + mp + "x" + np
        + " values, more than " + MAX_FILTER_CELLS + " in all");
    // Only now anything of the image's size is allocated (the attacker's second read: a 250000000x2
    // shape allocated 1 GB of padding indices before the bounds above refused it).
    this.padRow = reflectIndex(shape.height(), mp);
    this.padCol = reflectIndex(shape.width(), np);

    // The filter bank (filter_bank.py) at the padded size: wavelet n = j L + theta has angle
    // (int(L - L/2 - 1) - theta) pi / L (the cast truncates toward 0 as Python's int()), xi
    // 3/4 pi / 2^j, slant 4 / L; its levels are res < min(j + 1, max(J - 1, 1)), all the second
    // order needs. The low-pass is a Gaussian of sigma 0.8 2^(J-1), at every res < J.
    this.psi = new double[J * L][][];
    ScatteringScratch.Plans plans = new ScatteringScratch.Plans();
    for (int j = 0; j < J; j++) {
      for (int theta = 0; theta < L; theta++) {
        double angle = ((int) (L - L / 2.0 - 1) - theta) * Math.PI / L;
        double[] spatial = MorletFilters.morlet(mp, np, 0.8 * (1 << j), angle, 0.75 * Math.PI / (1 << j), 4.0 / L);
        double[] spectrum = MorletFilters.realSpectrum(spatial, mp, np, plans.get(mp), plans.get(np));
        int levels = Math.min(j + 1, Math.max(J - 1, 1));
        psi[j * L + theta] = new double[levels][];
        for (int res = 0; res < levels; res++) {
          psi[j * L + theta][res] = kernel(MorletFilters.periodize(spectrum, np, mp, res), 1 << (j - res),
              (mp >> j) * (np >> j));
        }
      }
    }
    double[] phiSpatial = MorletFilters.gabor(mp, np, 0.8 * (1 << (J - 1)), 0, 0, 1.0);
    double[] phiSpectrum = MorletFilters.realSpectrum(phiSpatial, mp, np, plans.get(mp), plans.get(np));
    this.phi = new double[J][];
    for (int res = 0; res < J; res++) {
      phi[res] = kernel(MorletFilters.periodize(phiSpectrum, np, mp, res), 1 << (J - res), (mp >> J) * (np >> J));
    }
    this.negated = new int[J + 1][];
    for (int s = 0; s <= J; s++) {
      int rows = np >> s;
      int cols = mp >> s;
      negated[s] = new int[rows * cols];
      for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
          negated[s][r * cols + c] = (rows - r) % rows * cols + (cols - c) % cols;
        }
      }
    }
    this.secondOrderBase = new int[J * L];
    int next = 1 + J * L;
    for (int n1 = 0; n1 < J * L; n1++) {
      secondOrderBase[n1] = next;
      next += L * (J - 1 - n1 / L);
    }
    // Captures only plain values, not this: a thread's workspace must not keep the transform alive.
    int mpLocal = mp;
    int npLocal = np;
    int jLocal = J;
    int channelsLocal = channels;
    this.workspace =
        ThreadLocal.withInitial(() -> new ScatteringScratch.Workspace(mpLocal, npLocal, jLocal, channelsLocal));
  }

  /**
   * A real filter spectrum as {@link #mulSub} uses it: each value twice (to multiply a complex
   * interleaved spectrum in one contiguous loop), divided by k^2 (the mean of the k x k aliased
   * copies that follows) and by the size of the inverse FFT that follows (numpy's ifft2 divides
   * by it; the inverse FFTs here do not). Each filter level is always subsampled by the same k
   * and inverted at the same size, so both fold into the filter.
   */
  private static double[] kernel(double[] filter, int k, int inverseSize) {
    double[] twice = new double[2 * filter.length];
    double scale = 1.0 / ((double) k * k * inverseSize);
    for (int i = 0; i < filter.length; i++) {
      twice[2 * i] = filter[i] * scale;
      twice[2 * i + 1] = filter[i] * scale;
    }
    return twice;
  }

  /** Output channels for J scales and L angles: {@code 1 + J L + L^2 J (J - 1) / 2}. */
  public static int channels(int J, int L) {
    return 1 + J * L + L * L * J * (J - 1) / 2;
  }

  /** Kymatio's padded size ({@code compute_padding}): a multiple of 2^J with room for the borders. */
  static int paddedSize(int size, int J) {
    return ((size + (1 << J)) / (1 << J) + 1) * (1 << J);
  }

  /**
   * The source index of each of {@code padded} positions under numpy's 'reflect' padding of
   * {@code size} values with {@code (padded - size) / 2} before: period {@code 2 (size - 1)}, which
   * also covers pads wider than the image (numpy reflects repeatedly).
   */
  private static int[] reflectIndex(int size, int padded) {
    int before = (padded - size) / 2;
    int period = 2 * (size - 1);
    int[] index = new int[padded];
    for (int i = 0; i < padded; i++) {
      int t = Math.floorMod(i - before, period);
      index[i] = t >= size ? period - t : t;
    }
    return index;
  }

  private static String divisors(int n) {
    List<String> d = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      if (n % i == 0) {
        d.add(Integer.toString(i));
      }
    }
    return String.join(", ", d);
  }

  @Override
  public String id() {
    return "scatter";
  }

  @Override
  public ImageShape input() {
    return shape;
  }

  @Override
  public int outputDimension() {
    return channels * outH * outW;
  }

  /** Channels of the output (81 for J = 2, L = 8). */
  public int outputChannels() {
    return channels;
  }

  /** Height of each output channel. */
  public int outputHeight() {
    return outH;
  }

  /** Width of each output channel. */
  public int outputWidth() {
    return outW;
  }

  @Override
  public Map<String, Object> parameters() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("shape", shape.toString());
    p.put("J", J);
    p.put("L", L);
    p.put("order", ORDER);
    p.put("groups", groups);
    return Collections.unmodifiableMap(p);
  }

  @Override
  public void apply(float[] in, int inOffset, float[] out, int outOffset) {
    ScatteringScratch.Workspace w = workspace.get();
    // Pad (reflect) into a complex buffer and transform: U0, the spectrum of the padded image.
    double[] padded = w.pair[0];
    int width = shape.width();
    for (int r = 0; r < mp; r++) {
      int src = inOffset + padRow[r] * width;
      int dst = 2 * r * np;
      for (int c = 0; c < np; c++) {
        padded[dst + 2 * c] = in[src + padCol[c]];
        padded[dst + 2 * c + 1] = 0;
      }
    }
    w.forward(0, padded, w.u0);
    int specSize = w.specSize;
    mulSub(w.u0, np, mp, phi[0], 1 << J, w.outSpec, 0);
    for (int j1 = 0; j1 < J; j1++) {
      for (int t = 0; t < L; t += 2) {
        int na = j1 * L + t;
        int nb = t + 1 < L ? na + 1 : -1;
        modulusPair(w, w.u0, 0, psi[na][0], nb < 0 ? null : psi[nb][0], j1);
        firstOrderOutputs(w, na, j1, w.ua[j1], specSize);
        if (nb >= 0) {
          firstOrderOutputs(w, nb, j1, w.ub[j1], specSize);
        }
      }
    }
    w.outputs(outH, outW, channels, negated[J]);
    double[] result = w.result;
    if (groups > 0) {
      normaliseGroups(result, channels / groups * outH * outW);
    }
    for (int i = 0; i < result.length; i++) {
      out[outOffset + i] = (float) result[i];
    }
  }

  /** S1 of path n1 (whose spectrum {@code u1} is at resolution j1) and all its S2 paths. */
  private void firstOrderOutputs(ScatteringScratch.Workspace w, int n1, int j1, double[] u1, int specSize) {
    int mj = mp >> j1;
    int nj = np >> j1;
    mulSub(u1, nj, mj, phi[j1], 1 << (J - j1), w.outSpec, (1 + n1) * specSize);
    int ch = secondOrderBase[n1];
    for (int j2 = j1 + 1; j2 < J; j2++) {
      for (int t = 0; t < L; t += 2) {
        int ma = j2 * L + t;
        boolean two = t + 1 < L;
        modulusPair(w, u1, j1, psi[ma][j1], two ? psi[ma + 1][j1] : null, j2);
        int m2 = mp >> j2;
        int n2 = np >> j2;
        mulSub(w.ua[j2], n2, m2, phi[j2], 1 << (J - j2), w.outSpec, ch++ * specSize);
        if (two) {
          mulSub(w.ub[j2], n2, m2, phi[j2], 1 << (J - j2), w.outSpec, ch++ * specSize);
        }
      }
    }
  }

  /**
   * The spectra of {@code |ifft(sub(x psiA))|} and {@code |ifft(sub(x psiB))|} at resolution
   * {@code to}, from the spectrum x at resolution {@code from}, into {@code w.ua[to]} and
   * {@code w.ub[to]}: the two real moduli go through one complex FFT (as real and imaginary part)
   * and are separated by the symmetry of real signals' spectra.
   */
  private void modulusPair(ScatteringScratch.Workspace w, double[] x, int from, double[] psiA, double[] psiB, int to) {
    int rows = np >> from;
    int cols = mp >> from;
    int k = 1 << (to - from);
    double[] spec = w.spec[to];
    double[] spat = w.spat[to];
    double[] pair = w.pair[to];
    int n = 2 * (mp >> to) * (np >> to);
    mulSub(x, rows, cols, psiA, k, spec, 0);
    w.inverse(to, spec, spat);
    for (int i = 0; i < n; i += 2) {
      pair[i] = Math.sqrt(spat[i] * spat[i] + spat[i + 1] * spat[i + 1]);
    }
    if (psiB != null) {
      mulSub(x, rows, cols, psiB, k, spec, 0);
      w.inverse(to, spec, spat);
      for (int i = 0; i < n; i += 2) {
        pair[i + 1] = Math.sqrt(spat[i] * spat[i] + spat[i + 1] * spat[i + 1]);
      }
    } else {
      for (int i = 0; i < n; i += 2) {
        pair[i + 1] = 0;
      }
    }
    double[] z = w.pairSpec[to];
    w.forward(to, pair, z);
    // Z = A + iB with A, B Hermitian: A[f] = (Z[f] + conj Z[-f]) / 2, B[f] = (Z[f] - conj Z[-f]) / 2i.
    double[] a = w.ua[to];
    double[] b = w.ub[to];
    int[] neg = negated[to];
    for (int f = 0; f < neg.length; f++) {
      int i = 2 * f;
      int m = 2 * neg[f];
      double re = z[i];
      double im = z[i + 1];
      double reNeg = z[m];
      double imNeg = z[m + 1];
      a[i] = 0.5 * (re + reNeg);
      a[i + 1] = 0.5 * (im - imNeg);
      b[i] = 0.5 * (im + imNeg);
      b[i + 1] = 0.5 * (reNeg - re);
    }
  }

  /**
   * {@code out = subsample_fourier(x * filter, k)}: the product of a complex spectrum (rows x cols,
   * interleaved) with a real filter (a {@link #kernel}: doubled, divided by k^2), summed over the
   * k x k aliased copies: the spectrum of the product's inverse subsampled by k in space.
   */
  private static void mulSub(double[] x, int rows, int cols, double[] filter, int k, double[] out, int outOffset) {
    int subRows = rows / k;
    int rowLen = 2 * (cols / k);
    for (int a = 0; a < subRows; a++) {
      int o = outOffset + a * rowLen;
      int in = 2 * a * cols;
      for (int t = 0; t < rowLen; t++) {
        out[o + t] = x[in + t] * filter[in + t];
      }
      for (int i = 0; i < k; i++) {
        for (int l = i == 0 ? 1 : 0; l < k; l++) {
          int alias = 2 * (a + i * subRows) * cols + l * rowLen;
          for (int t = 0; t < rowLen; t++) {
            out[o + t] += x[alias + t] * filter[alias + t];
          }
        }
      }
    }
  }

  /** Per group of {@code groupSize} consecutive values: minus the mean, over sqrt(variance + eps). */
  private static void normaliseGroups(double[] v, int groupSize) {
    for (int start = 0; start < v.length; start += groupSize) {
      double sum = 0;
      for (int i = start; i < start + groupSize; i++) {
        sum += v[i];
      }
      double mean = sum / groupSize;
      double sq = 0;
      for (int i = start; i < start + groupSize; i++) {
        double d = v[i] - mean;
        sq += d * d;
      }
      double inv = 1 / Math.sqrt(sq / groupSize + NORM_EPS);
      for (int i = start; i < start + groupSize; i++) {
        v[i] = (v[i] - mean) * inv;
      }
    }
  }
}
