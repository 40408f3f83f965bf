package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.ComposedDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.NoOpDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.function.DoubleUnaryOperator;
import org.apache.commons.numbers.gamma.Erfc;

/**
 * Privacy-loss-distribution accounting (Meiser and Mohammadi 2018; Koskela, Jalko, Honkela 2020;
 * Doroshenko et al. 2022): each mechanism's privacy loss {@code L = ln(p(X)/q(X))}, X ~ P, is
 * discretised onto a grid of width {@code h}, compositions are convolutions (by FFT), and
 *
 * <pre>
 *   delta(eps) = P[L = infinity] + sum_l P[L = l] (1 - e^(eps - l))_+.
 * </pre>
 *
 * Every approximation errs towards more privacy loss, so the result is an upper bound: each
 * mechanism is discretised by "connect the dots" ({@link Pld#connectTheDots}), a discrete PLD that
 * dominates the mechanism's; after each convolution, mass above the kept range goes to infinity
 * (which counts fully in delta) and mass below it is moved up to the smallest kept loss. delta(eps)
 * only grows when mass moves to larger losses.
 *
 * <p>Supported: the Gaussian mechanism; the Poisson-subsampled Gaussian under add-or-remove
 * neighbours (both directions, "remove" P = (1-q) N(0, s^2) + q N(1, s^2) vs Q = N(0, s^2), and
 * "add" with P and Q swapped; the answer is the worse) and under replace-one (the cross-silo
 * paper's pair (1-q) N(0, s^2) + q N(1, s^2) vs (1-q) N(0, s^2) + q N(-1, s^2), symmetric);
 * compositions of them.
 */
public final class PldAccountant implements PrivacyAccountant {
  /** Default grid width of the privacy loss. */
  public static final double DEFAULT_INTERVAL = 1e-4;
  /** Default tail mass dropped (pessimistically) per discretisation and per convolution. */
  public static final double DEFAULT_TAIL = 1e-15;

  private final double h;
  private final double tail;
  private Pld remove;
  private Pld add;

  public PldAccountant() {
    this(DEFAULT_INTERVAL, DEFAULT_TAIL);
  }

  /**
   * @param interval the grid width h of the privacy loss (smaller: tighter and slower)
   * @param tail the mass moved pessimistically at each truncation
   */
  public PldAccountant(double interval, double tail) {
    Checks.require(interval > 0 && interval <= 0.1, "PLD interval must be in (0, 0.1]. Provided value: " + interval);
    Checks.require(tail > 0 && tail < 1e-6, "PLD tail must be in (0, 1e-6). Provided value: " + tail);
    this.h = interval;
    this.tail = tail;
    this.remove = Pld.identity();
    this.add = remove; // the same object while every event so far was symmetric
  }

  @Override
  public String name() {
    return "pld";
  }

  @Override
  public boolean supportsMechanism(DpEvent event) {
    return event instanceof GaussianDpEvent || event instanceof NoOpDpEvent
        || event instanceof PoissonSampledDpEvent p && p.event() instanceof GaussianDpEvent;
  }

  @Override
  public PldAccountant compose(DpEvent event, int count) {
    Checks.positive("count", count);
    if (!supports(event)) {
      throw new UnsupportedEventException(name(), event);
    }
    if (event instanceof NoOpDpEvent) {
      return this;
    }
    if (event instanceof SelfComposedDpEvent s) {
      return compose(s.event(), Math.multiplyExact(count, s.count()));
    }
    if (event instanceof ComposedDpEvent c) {
      for (int k = 0; k < count; k++) {
        for (DpEvent e : c.events()) {
          compose(e, 1);
        }
      }
      return this;
    }
    Pld[] one = single(event);
    // While every event so far was symmetric the two directions are one object: compose once.
    boolean shared = add == remove && one[1] == one[0];
    remove = remove.convolve(one[0].power(count, tail), tail);
    add = shared ? remove : add.convolve(one[1].power(count, tail), tail);
    return this;
  }

  /** The per-step PLDs of a mechanism: {remove direction, add direction}. */
  private Pld[] single(DpEvent event) {
    if (event instanceof GaussianDpEvent g) {
      double s = g.noiseMultiplier();
      // P = N(1, s^2), Q = N(0, s^2): L(x) = (2x - 1) / (2 s^2), increasing; symmetric.
      Pld p = Pld.connectTheDots(new Cdf(1, s, 1), new Cdf(0, s, 1), x -> (2 * x - 1) / (2 * s * s), true, h, tail);
      return new Pld[] {p, p};
    }
    PoissonSampledDpEvent ps = (PoissonSampledDpEvent) event;
    double q = ps.samplingProbability();
    double s = ((GaussianDpEvent) ps.event()).noiseMultiplier();
    if (ps.neighbours() == NeighbourRelation.REPLACE_ONE) {
      // P = (1-q) N(0,s^2) + q N(1,s^2), Q = (1-q) N(0,s^2) + q N(-1,s^2); dividing both densities by
      // the N(0, s^2) density: L(x) = ln((1-q) + q e^{(2x-1)/(2s^2)}) - ln((1-q) + q e^{(-2x-1)/(2s^2)}),
      // increasing in x; the pair is symmetric under x -> -x, so both directions are the same.
      DoubleUnaryOperator loss = x -> logMix(q, (2 * x - 1) / (2 * s * s)) - logMix(q, (-2 * x - 1) / (2 * s * s));
      Pld p = Pld.connectTheDots(new Cdf(q, s, 1), new Cdf(q, s, -1), loss, true, h, tail);
      return new Pld[] {p, p};
    }
    // Remove: P = mixture, Q = N(0, s^2): L(x) = ln((1-q) + q e^{(2x-1)/(2s^2)}), increasing.
    DoubleUnaryOperator lr = x -> logMix(q, (2 * x - 1) / (2 * s * s));
    Pld r = Pld.connectTheDots(new Cdf(q, s, 1), new Cdf(0, s, 1), lr, true, h, tail);
    // Add: P = N(0, s^2), Q = mixture: L(x) = -ln((1-q) + q e^{(2x-1)/(2s^2)}), decreasing.
    DoubleUnaryOperator la = x -> -logMix(q, (2 * x - 1) / (2 * s * s));
    Pld a = Pld.connectTheDots(new Cdf(0, s, 1), new Cdf(q, s, 1), la, false, h, tail);
    return new Pld[] {r, a};
  }

  /** ln((1 - q) + q e^t), stable for any t. */
  static double logMix(double q, double t) {
    if (q == 1) {
      return t;
    }
    double a = Math.log1p(-q);
    double b = Math.log(q) + t;
    double m = Math.max(a, b);
    return m + Math.log(Math.exp(a - m) + Math.exp(b - m));
  }

  /**
   * The Gaussian mixture (1 - q) N(0, s^2) + q N(mu, s^2) (q = 0: N(0, s^2); q = 1: N(mu, s^2)):
   * its CDF and survival function, each accurate in its own tail.
   */
  record Cdf(double q, double s, double mu) {
    double cdf(double x) {
      return (1 - q) * normalCdf(x / s) + q * normalCdf((x - mu) / s);
    }

    double sf(double x) {
      return (1 - q) * normalCdf(-x / s) + q * normalCdf(-(x - mu) / s);
    }

    private static double normalCdf(double z) {
      return 0.5 * Erfc.value(-z / Math.sqrt(2));
    }
  }

  @Override
  public double delta(double epsilon) {
    Checks.nonNegative("epsilon", epsilon);
    return Math.max(remove.delta(epsilon, h), add.delta(epsilon, h));
  }

  @Override
  public double epsilon(double delta) {
    Checks.openUnit("delta", delta);
    return Math.max(remove.epsilon(delta, h), add.epsilon(delta, h));
  }

  /**
   * A discrete privacy loss distribution: {@code pmf[i]} is the probability of loss {@code (offset
   * + i) h}, and {@code infinity} that of an infinite loss.
   */
  static final class Pld {
    final int offset;
    final double[] pmf;
    final double infinity;

    Pld(int offset, double[] pmf, double infinity) {
      this.offset = offset;
      this.pmf = pmf;
      this.infinity = infinity;
    }

    /** The PLD of a mechanism that reveals nothing: loss 0 with probability 1. */
    static Pld identity() {
      return new Pld(0, new double[] {1}, 0);
    }

    /**
     * The "connect the dots" discretisation (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022) of
     * the pair (P, Q) with privacy loss L(x) = ln(p(x)/q(x)), monotone in x: the exact
     * hockey-stick divergence delta(eps) = P[L > eps] - e^eps Q[L > eps] is computed on the grid
     * eps_i = i h, and the discrete PLD is the one whose delta, as a function of e^eps, is the
     * piecewise-linear interpolation of those points, extended with slope -1 below the grid and
     * constant (its mass at infinity) above it. delta is convex in e^eps, so the interpolation lies
     * above it everywhere: the discrete PLD dominates the pair, and unlike rounding every loss up
     * its error does not grow by h with every composition. The grid spans the losses of the central
     * 1 - tail of P; whatever delta remains at its top is the mass at infinity.
     */
    static Pld connectTheDots(Cdf p, Cdf q, DoubleUnaryOperator loss, boolean increasing, double h, double tail) {
      double lo = lowerQuantile(p, tail / 2);
      double hi = upperQuantile(p, tail / 2);
      double l1 = loss.applyAsDouble(lo);
      double l2 = loss.applyAsDouble(hi);
      int k0 = (int) Math.floor(Math.min(l1, l2) / h);
      int k1 = (int) Math.ceil(Math.max(l1, l2) / h);
      int n = k1 - k0 + 1;
      double[] delta = new double[n];
      for (int i = 0; i < n; i++) {
        delta[i] = hockeyStick(p, q, loss, increasing, (k0 + i) * h, lo, hi);
      }
      double em1 = Math.expm1(h);
      double[] pmf = new double[n];
      for (int i = 0; i < n; i++) {
        // p_i = x_i (slope_i - slope_{i-1}) with x = e^eps, slope_{-1} = -1, slope_n = 0.
        double right = i < n - 1 ? (delta[i + 1] - delta[i]) / em1 : 0;
        double left = i > 0 ? Math.exp(h) * (delta[i] - delta[i - 1]) / em1 : -Math.exp((k0 + i) * h);
        pmf[i] = Math.max(0, right - left);
      }
      return new Pld(k0, pmf, Math.max(0, delta[n - 1]));
    }

    /** delta(eps) = P[L > eps] - e^eps Q[L > eps] for a monotone loss. */
    private static double hockeyStick(Cdf p, Cdf q, DoubleUnaryOperator loss, boolean increasing, double eps,
        double lo, double hi) {
      // Bracket the x where L(x) = eps (widening beyond the central range if needed).
      double a = lo;
      double b = hi;
      double width = hi - lo + 1;
      for (int k = 0; k < 60 && !(increasing ? loss.applyAsDouble(a) <= eps : loss.applyAsDouble(a) > eps); k++) {
        a -= width;
        width *= 2;
      }
      width = hi - lo + 1;
      for (int k = 0; k < 60 && !(increasing ? loss.applyAsDouble(b) > eps : loss.applyAsDouble(b) <= eps); k++) {
        b += width;
        width *= 2;
      }
      double x = invert(loss, eps, a, b, increasing);
      double d = increasing ? p.sf(x) - Math.exp(eps) * q.sf(x) : p.cdf(x) - Math.exp(eps) * q.cdf(x);
      return Math.max(0, d);
    }

    /** An x with P[X <= x] <= mass (the largest such, to bisection precision). */
    private static double lowerQuantile(Cdf p, double mass) {
      double a = -p.s();
      while (p.cdf(a) > mass) {
        a *= 2;
      }
      double b = Math.abs(p.mu()) + 10 * p.s();
      for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (a + b);
        if (p.cdf(mid) > mass) {
          b = mid;
        } else {
          a = mid;
        }
      }
      return a;
    }

    /** An x with P[X > x] <= mass (the smallest such, to bisection precision). */
    private static double upperQuantile(Cdf p, double mass) {
      double b = Math.abs(p.mu()) + p.s();
      while (p.sf(b) > mass) {
        b *= 2;
      }
      double a = -Math.abs(p.mu()) - 10 * p.s();
      for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (a + b);
        if (p.sf(mid) > mass) {
          a = mid;
        } else {
          b = mid;
        }
      }
      return b;
    }

    private static double invert(DoubleUnaryOperator loss, double target, double lo, double hi, boolean increasing) {
      double a = lo;
      double b = hi;
      for (int i = 0; i < 100 && b - a > 1e-14 * Math.max(1, Math.abs(a)); i++) {
        double mid = 0.5 * (a + b);
        double v = loss.applyAsDouble(mid);
        if (increasing ? v <= target : v > target) {
          a = mid;
        } else {
          b = mid;
        }
      }
      // The x whose loss is just at or below target (increasing) / just above (decreasing); its
      // neighbour interval is assigned the next grid value, so every loss is rounded up.
      return increasing ? a : b;
    }

    /** this^n by repeated squaring, truncating after every product. */
    Pld power(int n, double tail) {
      Pld result = identity();
      Pld base = this;
      int k = n;
      while (k > 0) {
        if ((k & 1) == 1) {
          result = result.convolve(base, tail);
        }
        k >>= 1;
        if (k > 0) {
          base = base.convolve(base, tail);
        }
      }
      return result;
    }

    /** The PLD of the composition, with pessimistic truncation of mass below {@code tail}. */
    Pld convolve(Pld o, double tail) {
      double[] c = Fft.convolve(pmf, o.pmf);
      double inf = 1 - (1 - infinity) * (1 - o.infinity);
      // Drop the top until `tail` of mass has gone to infinity; lift the bottom likewise.
      int top = c.length - 1;
      double moved = 0;
      while (top > 0 && moved + Math.max(0, c[top]) <= tail) {
        moved += Math.max(0, c[top]);
        top--;
      }
      inf += moved;
      int bottom = 0;
      double lifted = 0;
      while (bottom < top && lifted + Math.max(0, c[bottom]) <= tail) {
        lifted += Math.max(0, c[bottom]);
        bottom++;
      }
      double[] kept = new double[top - bottom + 1];
      for (int i = 0; i < kept.length; i++) {
        kept[i] = Math.max(0, c[bottom + i]);
      }
      kept[0] += lifted;
      return new Pld(offset + o.offset + bottom, kept, Math.min(1, inf));
    }

    double delta(double eps, double h) {
      double d = infinity;
      for (int i = pmf.length - 1; i >= 0; i--) {
        double l = (offset + i) * h;
        if (l <= eps) {
          break;
        }
        d += pmf[i] * -Math.expm1(eps - l);
      }
      return Math.min(1, d);
    }

    double epsilon(double delta, double h) {
      if (infinity > delta) {
        return Double.POSITIVE_INFINITY;
      }
      double hiLoss = (offset + pmf.length) * h;
      if (delta(0, h) <= delta) {
        return 0;
      }
      double a = 0;
      double b = Math.max(hiLoss, 1e-9);
      for (int i = 0; i < 200 && b - a > 1e-12 * Math.max(1, b); i++) {
        double mid = 0.5 * (a + b);
        if (delta(mid, h) <= delta) {
          b = mid;
        } else {
          a = mid;
        }
      }
      return b; // the upper end: delta(b) <= delta
    }
  }

  /** Real convolution by a radix-2 complex FFT. */
  static final class Fft {
    private Fft() {}

    static double[] convolve(double[] a, double[] b) {
      int n = a.length + b.length - 1;
      if ((long) a.length * b.length <= 4096) {
        double[] c = new double[n];
        for (int i = 0; i < a.length; i++) {
          for (int j = 0; j < b.length; j++) {
            c[i + j] += a[i] * b[j];
          }
        }
        return c;
      }
      int size = Integer.highestOneBit(Math.max(1, n - 1)) << 1;
      double[] ar = new double[size];
      double[] ai = new double[size];
      double[] br = new double[size];
      double[] bi = new double[size];
      System.arraycopy(a, 0, ar, 0, a.length);
      System.arraycopy(b, 0, br, 0, b.length);
      transform(ar, ai, false);
      transform(br, bi, false);
      for (int i = 0; i < size; i++) {
        double re = ar[i] * br[i] - ai[i] * bi[i];
        double im = ar[i] * bi[i] + ai[i] * br[i];
        ar[i] = re;
        ai[i] = im;
      }
      transform(ar, ai, true);
      double[] c = new double[n];
      for (int i = 0; i < n; i++) {
        c[i] = ar[i] / size;
      }
      return c;
    }

    /** In-place iterative Cooley-Tukey FFT (inverse without the 1/n factor). */
    static void transform(double[] re, double[] im, boolean inverse) {
      int n = re.length;
      for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; (j & bit) != 0; bit >>= 1) {
          j ^= bit;
        }
        j ^= bit;
        if (i < j) {
          double t = re[i];
          re[i] = re[j];
          re[j] = t;
          t = im[i];
          im[i] = im[j];
          im[j] = t;
        }
      }
      // Twiddles exp(-+2 pi i k / n) computed directly (no recurrence), so rounding does not
      // accumulate with the transform's size.
      double[] cos = new double[n / 2];
      double[] sin = new double[n / 2];
      for (int k = 0; k < n / 2; k++) {
        double ang = 2 * Math.PI * k / n;
        cos[k] = Math.cos(ang);
        sin[k] = inverse ? Math.sin(ang) : -Math.sin(ang);
      }
      for (int len = 2; len <= n; len <<= 1) {
        int stride = n / len;
        for (int i = 0; i < n; i += len) {
          for (int k = 0; k < len / 2; k++) {
            double cr = cos[k * stride];
            double ci = sin[k * stride];
            int u = i + k;
            int v = i + k + len / 2;
            double xr = re[v] * cr - im[v] * ci;
            double xi = re[v] * ci + im[v] * cr;
            re[v] = re[u] - xr;
            im[v] = im[u] - xi;
            re[u] += xr;
            im[u] += xi;
          }
        }
      }
    }
  }
}
