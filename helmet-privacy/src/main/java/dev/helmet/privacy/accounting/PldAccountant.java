package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.ComposedDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.MixtureDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.NoOpDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SampledWithoutReplacementDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.event.SlackDpEvent;
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
 * paper's pair (1-q) N(0, s^2) + q N(1, s^2) vs (1-q) N(0, s^2) + q N(-1, s^2), symmetric); the
 * Gaussian on a fixed-size sample without replacement under replace-one ({@link
 * SampledWithoutReplacementDpEvent}: Dong, Roth and Su's C_p, one symmetrised PLD, {@link
 * Pld#symmetrised}); compositions of them; a {@link SlackDpEvent} around any of these ({@link Pld#withSlack}); a
 * revealed {@link MixtureDpEvent} of any of these ({@link Pld#mix}, per direction).
 */
public final class PldAccountant implements PrivacyAccountant {
  /** Default grid width of the privacy loss. */
  public static final double DEFAULT_INTERVAL = 1e-4;
  /**
   * The smallest delta this accountant resolves. Its masses carry floating-point error of about
   * 1e-16 absolute per FFT convolution (more over many), so a delta near 1e-15 is noise: below
   * this floor {@link #delta} reports the floor (pessimistic) and {@link #epsilon} refuses, naming
   * the RDP accountant, whose bounds are analytic.
   */
  public static final double SMALLEST_DELTA = 1e-10;
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
    if (event instanceof SlackDpEvent s) {
      return supports(s.inner());
    }
    if (event instanceof MixtureDpEvent m) {
      for (int i = 0; i < m.size(); i++) {
        if (!supports(m.component(i))) {
          return false;
        }
      }
      return true;
    }
    return event instanceof GaussianDpEvent || event instanceof NoOpDpEvent
        || event instanceof PoissonSampledDpEvent p && p.event() instanceof GaussianDpEvent
        || event instanceof SampledWithoutReplacementDpEvent w && w.event() instanceof GaussianDpEvent;
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

  /**
   * The per-step PLDs of a mechanism: {remove direction, add direction}. Package-visible so that a
   * test can compose neighbours whose steps mix the two directions (SWOR, design doubt 21).
   */
  Pld[] single(DpEvent event) {
    if (event instanceof SlackDpEvent sl) {
      Pld[] in = of(sl.inner());
      Pld r = in[0].withSlack(sl.slack());
      return new Pld[] {r, in[1] == in[0] ? r : in[1].withSlack(sl.slack())};
    }
    if (event instanceof MixtureDpEvent m) {
      Pld[] rs = new Pld[m.size()];
      Pld[] as = new Pld[m.size()];
      boolean symmetric = true;
      for (int i = 0; i < m.size(); i++) {
        Pld[] c = of(m.component(i));
        rs[i] = c[0];
        as[i] = c[1];
        symmetric &= c[0] == c[1];
      }
      double[] w = m.weights();
      Pld r = Pld.mix(w, rs);
      return new Pld[] {r, symmetric ? r : Pld.mix(w, as)};
    }
    if (event instanceof GaussianDpEvent g) {
      double s = inRange(g.noiseMultiplier());
      // P = N(1, s^2), Q = N(0, s^2): L(x) = (2x - 1) / (2 s^2), increasing; symmetric.
      Pld p = Pld.connectTheDots(new Cdf(1, s, 1), new Cdf(0, s, 1), x -> (2 * x - 1) / (2 * s * s), true, h, tail);
      return new Pld[] {p, p};
    }
    if (event instanceof SampledWithoutReplacementDpEvent w) {
      // Dong, Roth and Su (Sec. 4.2): a fixed-size sample at rate p of a mechanism that is f-DP
      // under replace-one is C_p(f)-DP, C_p(f) = conv(min(f_p, f_p^-1)) with f_p = p f + (1 - p) Id:
      // f_p is the pair (1 - p) N(0, s^2) + p N(1, s^2) vs N(0, s^2) (the add-or-remove Poisson pair's
      // remove direction) and f_p^-1 its add direction; their symmetrisation is one PLD for both.
      Pld[] directions = poissonAddOrRemove(w.samplingFraction(), inRange(((GaussianDpEvent) w.event()).noiseMultiplier()));
      Pld sym = Pld.symmetrised(directions[0], directions[1], h, tail);
      return new Pld[] {sym, sym};
    }
    PoissonSampledDpEvent ps = (PoissonSampledDpEvent) event;
    double q = ps.samplingProbability();
    double s = inRange(((GaussianDpEvent) ps.event()).noiseMultiplier());
    if (ps.neighbours() != NeighbourRelation.REPLACE_ONE) {
      return poissonAddOrRemove(q, s);
    }
    LogMix mix = new LogMix(q);
    // P = (1-q) N(0,s^2) + q N(1,s^2), Q = (1-q) N(0,s^2) + q N(-1,s^2); dividing both densities by
    // the N(0, s^2) density: L(x) = ln((1-q) + q e^{(2x-1)/(2s^2)}) - ln((1-q) + q e^{(-2x-1)/(2s^2)}),
    // increasing in x; the pair is symmetric under x -> -x, so both directions are the same.
    DoubleUnaryOperator loss = x -> mix.apply((2 * x - 1) / (2 * s * s)) - mix.apply((-2 * x - 1) / (2 * s * s));
    Pld p = Pld.connectTheDots(new Cdf(q, s, 1), new Cdf(q, s, -1), loss, true, h, tail);
    return new Pld[] {p, p};
  }

  /** {remove, add} of the Poisson-subsampled Gaussian at rate q, noise s, under add-or-remove. */
  private Pld[] poissonAddOrRemove(double q, double s) {
    LogMix mix = new LogMix(q);
    // Remove: P = mixture, Q = N(0, s^2): L(x) = ln((1-q) + q e^{(2x-1)/(2s^2)}), increasing.
    DoubleUnaryOperator lr = x -> mix.apply((2 * x - 1) / (2 * s * s));
    Pld r = Pld.connectTheDots(new Cdf(q, s, 1), new Cdf(0, s, 1), lr, true, h, tail);
    // Add: P = N(0, s^2), Q = mixture: L(x) = -ln((1-q) + q e^{(2x-1)/(2s^2)}), decreasing.
    DoubleUnaryOperator la = x -> -mix.apply((2 * x - 1) / (2 * s * s));
    Pld a = Pld.connectTheDots(new Cdf(0, s, 1), new Cdf(q, s, 1), la, false, h, tail);
    return new Pld[] {r, a};
  }

  /** The largest noise multiplier the losses below are computed for: 2 s^2 must not overflow. */
  static final double MAX_NOISE_MULTIPLIER = 1e150;

  /**
   * {@code s}, if the losses (2x - 1)/(2 s^2) can be computed for it; otherwise a clear refusal
   * rather than the NaN that infinity over infinity would give deep inside the discretisation.
   */
  private static double inRange(double s) {
    Checks.require(s <= MAX_NOISE_MULTIPLIER, "the PLD accountant handles noise multipliers up to "
        + MAX_NOISE_MULTIPLIER + " (its losses divide by 2 sigma^2). Provided value: " + s
        + "; such noise leaves eps near 0 at any delta: use the RDP accountant");
    return s;
  }

  /**
   * The PLDs {remove, add} of any supported event (composites included), accounted alone on this
   * accountant's grid: the parts of a slack or mixture event.
   */
  private Pld[] of(DpEvent event) {
    if (event instanceof NoOpDpEvent) {
      Pld id = Pld.identity();
      return new Pld[] {id, id};
    }
    if (!(event instanceof SelfComposedDpEvent) && !(event instanceof ComposedDpEvent)) {
      return single(event);
    }
    PldAccountant part = new PldAccountant(h, tail).compose(event, 1);
    return new Pld[] {part.remove, part.add};
  }

  /** ln((1 - q) + q e^t), stable for any t. */
  static double logMix(double q, double t) {
    return new LogMix(q).apply(t);
  }

  /**
   * t -> ln((1 - q) + q e^t) = m + ln(e^(a-m) + e^(b-m)) with a = ln(1-q), b = ln(q) + t, m =
   * max(a, b): one of the two exponentials is e^0 = 1, so only the other is computed, and ln(1-q),
   * ln(q) once.
   */
  static final class LogMix {
    private final double q;
    private final double a;
    private final double lq;

    LogMix(double q) {
      this.q = q;
      this.a = Math.log1p(-q);
      this.lq = Math.log(q);
    }

    double apply(double t) {
      if (q == 1) {
        return t;
      }
      double b = lq + t;
      return a >= b ? a + Math.log(1 + Math.exp(b - a)) : b + Math.log(Math.exp(a - b) + 1);
    }
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

    /**
     * {@code p.sf(x) - e^eps q.sf(x)} (upper) or {@code p.cdf(x) - e^eps q.cdf(x)}, the same
     * expressions, with each normal CDF evaluated once: components of weight 0 are skipped (their
     * term would be exactly 0) and the N(0, s^2) one is shared when both have the same s.
     */
    static double hockeyStick(Cdf p, Cdf q, double x, double eps, boolean upper) {
      if (p.s != q.s) {
        return upper ? p.sf(x) - scaled(eps, q.sf(x)) : p.cdf(x) - scaled(eps, q.cdf(x));
      }
      double s = p.s;
      double c0 = p.q < 1 || q.q < 1 ? normalCdf(upper ? -x / s : x / s) : 0;
      double cp = p.q > 0 ? normalCdf(upper ? -(x - p.mu) / s : (x - p.mu) / s) : 0;
      double cq;
      if (q.q == 0) {
        cq = 0;
      } else if (p.q > 0 && q.mu == p.mu) {
        cq = cp;
      } else {
        cq = normalCdf(upper ? -(x - q.mu) / s : (x - q.mu) / s);
      }
      double pp = (1 - p.q) * c0 + p.q * cp;
      double qq = (1 - q.q) * c0 + q.q * cq;
      return pp - scaled(eps, qq);
    }

    /**
     * e^eps m for a mass m >= 0 without the NaN of infinity times 0: where e^eps overflows (eps
     * above about 709, a noise multiplier far below 1) it is e^(eps + ln m). A subnormal mass (below
     * 2.2e-308, which only noise multipliers below about 0.034 reach) carries an absolute error of
     * 2.5e-324 that e^eps could blow up in either direction, so it counts as 0: the hockey stick is
     * then larger, never smaller, and eps looser (3.8 % at noise multiplier 0.03, eps about 700).
     */
    private static double scaled(double eps, double m) {
      if (m < Double.MIN_NORMAL) {
        return 0;
      }
      double e = Math.exp(eps);
      if (e < Double.POSITIVE_INFINITY) {
        return e * m;
      }
      return Math.exp(eps + Math.log(m));
    }

    private static double normalCdf(double z) {
      return 0.5 * Erfc.value(-z / Math.sqrt(2));
    }
  }

  @Override
  public double delta(double epsilon) {
    Checks.nonNegative("epsilon", epsilon);
    return Math.max(SMALLEST_DELTA, Math.max(remove.delta(epsilon, h), add.delta(epsilon, h)));
  }

  @Override
  public double epsilon(double delta) {
    Checks.openUnit("delta", delta);
    Checks.require(delta >= SMALLEST_DELTA, "the PLD accountant resolves delta down to " + SMALLEST_DELTA
        + " (its masses carry floating-point error near 1e-15); use the RDP accountant for delta " + delta);
    return Math.max(remove.epsilon(delta, h), add.epsilon(delta, h));
  }
}
