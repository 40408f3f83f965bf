package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.ComposedDpEvent;
import dev.helmet.privacy.event.DistributedDiscreteGaussianDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.MixtureDpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.NoOpDpEvent;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import dev.helmet.privacy.event.SkellamDpEvent;
import dev.helmet.privacy.event.SkellamMixtureDpEvent;

/**
 * Renyi-DP accounting (Mironov 2017): RDP curves add under composition; the (eps, delta) of the
 * composition is the best over orders alpha of the improved conversion (Balle et al. 2020;
 * Canonne, Kamath, Steinke 2020, Prop. 12; SPEC 4):
 *
 * <pre>
 *   eps = rdp(alpha) + ln((alpha - 1)/alpha) - (ln delta + ln alpha) / (alpha - 1).
 * </pre>
 *
 * Orders come from a fixed grid (1.01 to 10000, about 2400 values): the grid minimum is never
 * below the true minimum, so rounding goes the safe way.
 *
 * <p>Supported: Gaussian (rdp = alpha / (2 sigma^2), exact), the distributed discrete Gaussian
 * (Kairouz, Liu, Steinke 2021, Prop. 14), the Skellam mechanism (Agarwal, Kairouz, Liu 2021; {@link
 * SkellamRdp}), the Poisson-subsampled Gaussian under add-or-remove neighbours ({@link
 * SampledGaussianRdp}), the Skellam mixture mechanism, plain or Poisson-subsampled ({@link
 * SkellamMixtureRdp}, with the general subsampling bound), the Poisson-subsampled distributed
 * discrete Gaussian and Skellam mechanism under add-or-remove neighbours (Zhu and Wang's general
 * bound, {@link PoissonSubsampledRdp}), compositions of them, and revealed mixtures of them
 * ({@link MixtureDpEvent}: {@code 1/(alpha - 1) ln sum_i w_i exp((alpha - 1) rdp_i(alpha))}, exact
 * for a mixture whose component is revealed, since the Renyi moment E_Q[(p/q)^alpha] is linear in
 * the weights).
 */
public final class RdpAccountant implements PrivacyAccountant {
  static final double[] ORDERS = orders();
  /**
   * The name of an accountant whose Skellam mixture rounds use the paper's subsampling bound
   * (unproven for SMM: privacy review turn 3, finding 5): whatever prints its eps says so.
   */
  public static final String PAPER_SUBSAMPLING = "rdp-paper-subsampling";
  private final double[] orders;
  private final double[] rdp;
  private final SkellamMixtureRdp.Subsampling smmSubsampling;

  /** An accountant over the default grid of orders. */
  public RdpAccountant() {
    this(ORDERS);
  }

  /**
   * An accountant whose Poisson-subsampled Skellam mixture rounds use {@code smmSubsampling}: the
   * paper's form ({@link SkellamMixtureRdp.Subsampling#PAPER}) only to reproduce its numbers.
   */
  public RdpAccountant(SkellamMixtureRdp.Subsampling smmSubsampling) {
    this(ORDERS, smmSubsampling);
  }

  /**
   * An accountant over the given orders (each above 1), e.g. another library's list to compare
   * with its results; the default grid is finer and never worse.
   */
  public RdpAccountant(double[] orders) {
    this(orders, SkellamMixtureRdp.Subsampling.GENERAL);
  }

  /**
   * An accountant over the given orders whose Poisson-subsampled Skellam mixture rounds use {@code
   * smmSubsampling} (the Skellam mixture mechanism's own accounting, {@link SmmAccounting}, uses
   * the integer orders 2 to 256).
   */
  public RdpAccountant(double[] orders, SkellamMixtureRdp.Subsampling smmSubsampling) {
    for (double a : orders) {
      Checks.require(a > 1 && a < Double.POSITIVE_INFINITY, "RDP orders must be above 1 and finite. Provided value: " + a);
    }
    this.orders = orders.clone();
    this.rdp = new double[orders.length];
    this.smmSubsampling = Checks.notNull("subsampling", smmSubsampling);
  }

  /**
   * 2000 orders with alpha - 1 log-spaced from 0.01 to 10^4, joined with every multiple of 0.1
   * from 1.1 to 20 and every integer from 21 to 256: the orders at which the subsampled Gaussian
   * is evaluated exactly ({@link SampledGaussianRdp#rdp} rounds others up to them).
   */
  private static double[] orders() {
    java.util.TreeSet<Double> set = new java.util.TreeSet<>();
    int n = 2000;
    for (int i = 0; i < n; i++) {
      set.add(1 + Math.pow(10, -2 + 6.0 * i / (n - 1)));
    }
    for (int k = 11; k <= 200; k++) {
      set.add(k / 10.0);
    }
    for (int k = 21; k <= 256; k++) {
      set.add((double) k);
    }
    return set.stream().mapToDouble(Double::doubleValue).toArray();
  }

  @Override
  public String name() {
    return smmSubsampling == SkellamMixtureRdp.Subsampling.GENERAL ? "rdp" : PAPER_SUBSAMPLING;
  }

  @Override
  public boolean supportsMechanism(DpEvent event) {
    if (event instanceof MixtureDpEvent m) {
      return java.util.Arrays.stream(m.components()).allMatch(this::supports);
    }
    return event instanceof GaussianDpEvent || event instanceof NoOpDpEvent
        || event instanceof DistributedDiscreteGaussianDpEvent || event instanceof SkellamMixtureDpEvent
        || event instanceof SkellamDpEvent
        || event instanceof PoissonSampledDpEvent p
            && (p.event() instanceof GaussianDpEvent || p.event() instanceof SkellamMixtureDpEvent
                || generallySubsampled(p.event()))
            && p.neighbours() == NeighbourRelation.ADD_OR_REMOVE_ONE;
  }

  /** Mechanisms whose Poisson-subsampled rounds are bounded by {@link PoissonSubsampledRdp}. */
  private static boolean generallySubsampled(DpEvent event) {
    return event instanceof DistributedDiscreteGaussianDpEvent || event instanceof SkellamDpEvent;
  }

  @Override
  public RdpAccountant compose(DpEvent event, int count) {
    Checks.positive("count", count);
    if (!supports(event)) {
      throw new UnsupportedEventException(name(), event);
    }
    double[] curve = curve(event, orders, smmSubsampling);
    for (int i = 0; i < orders.length; i++) {
      // A NaN bound (an order whose terms overflowed) bounds nothing: that order is out, never the min.
      rdp[i] += Double.isNaN(curve[i]) ? Double.POSITIVE_INFINITY : count * curve[i];
    }
    return this;
  }

  @Override
  public RdpAccountant compose(DpEvent event) {
    return compose(event, 1);
  }

  /** The event's RDP on every order (composites summed; subsampled Gaussians memoised). */
  static double[] curve(DpEvent event, double[] orders) {
    return curve(event, orders, SkellamMixtureRdp.Subsampling.GENERAL);
  }

  static double[] curve(DpEvent event, double[] orders, SkellamMixtureRdp.Subsampling smm) {
    double[] out = new double[orders.length];
    if (event instanceof SelfComposedDpEvent s) {
      double[] c = curve(s.event(), orders, smm);
      for (int i = 0; i < out.length; i++) {
        out[i] = s.count() * c[i];
      }
    } else if (event instanceof ComposedDpEvent c) {
      for (DpEvent e : c.events()) {
        double[] part = curve(e, orders, smm);
        for (int i = 0; i < out.length; i++) {
          out[i] += part[i];
        }
      }
    } else if (event instanceof MixtureDpEvent m) {
      return mixtureCurve(m, orders, smm);
    } else if (event instanceof PoissonSampledDpEvent p && p.event() instanceof SkellamMixtureDpEvent m) {
      return SkellamMixtureRdp.subsampledCurve(m, p.samplingProbability(), orders, smm);
    } else if (event instanceof PoissonSampledDpEvent p && generallySubsampled(p.event())) {
      return PoissonSubsampledRdp.curve(a -> rdpOf(p.event(), a), p.samplingProbability(), orders);
    } else if (event instanceof PoissonSampledDpEvent p) {
      return SampledGaussianRdp.curve(p.samplingProbability(), ((GaussianDpEvent) p.event()).noiseMultiplier(), orders);
    } else {
      for (int i = 0; i < out.length; i++) {
        out[i] = rdpOf(event, orders[i]);
      }
    }
    return out;
  }

  /**
   * 1/(alpha - 1) ln sum_i w_i exp((alpha - 1) rdp_i(alpha)), by log-sum-exp, rounded up by a
   * relative 1e-12 (the sum of a few exponentials and a logarithm, each within an ulp or two).
   */
  private static double[] mixtureCurve(MixtureDpEvent m, double[] orders, SkellamMixtureRdp.Subsampling smm) {
    double[][] parts = new double[m.size()][];
    for (int j = 0; j < m.size(); j++) {
      parts[j] = curve(m.component(j), orders, smm);
    }
    double[] out = new double[orders.length];
    for (int i = 0; i < orders.length; i++) {
      double am1 = orders[i] - 1;
      double max = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < m.size(); j++) {
        if (m.weight(j) > 0) {
          max = Math.max(max, am1 * parts[j][i]);
        }
      }
      if (max == Double.POSITIVE_INFINITY) {
        out[i] = max;
        continue;
      }
      double sum = 0;
      double weights = 0;
      for (int j = 0; j < m.size(); j++) {
        if (m.weight(j) > 0) {
          sum += m.weight(j) * Math.exp(am1 * parts[j][i] - max);
          weights += m.weight(j);
        }
      }
      // Weights a rounding short of 1 are renormalised (never the other way: that would lower the bound).
      double r = (max + Math.log(sum / Math.min(1, weights))) / am1;
      out[i] = Math.max(0, r + 1e-12 * Math.abs(r));
    }
    return out;
  }

  static double rdpOf(DpEvent event, double alpha) {
    if (event instanceof GaussianDpEvent g) {
      return alpha / (2 * g.noiseMultiplier() * g.noiseMultiplier());
    }
    if (event instanceof DistributedDiscreteGaussianDpEvent d) {
      return distributedDiscreteGaussian(d, alpha);
    }
    if (event instanceof SkellamMixtureDpEvent m) {
      return SkellamMixtureRdp.rdp(m, alpha);
    }
    if (event instanceof SkellamDpEvent k) {
      return SkellamRdp.rdp(k, alpha);
    }
    if (event instanceof PoissonSampledDpEvent p && p.event() instanceof SkellamMixtureDpEvent m) {
      return SkellamMixtureRdp.subsampledRdp(m, p.samplingProbability(), alpha, SkellamMixtureRdp.Subsampling.GENERAL);
    }
    if (event instanceof PoissonSampledDpEvent p && generallySubsampled(p.event())) {
      return PoissonSubsampledRdp.curve(a -> rdpOf(p.event(), a), p.samplingProbability(), new double[] {alpha})[0];
    }
    if (event instanceof PoissonSampledDpEvent p) {
      return SampledGaussianRdp.rdp(p.samplingProbability(), ((GaussianDpEvent) p.event()).noiseMultiplier(), alpha);
    }
    if (event instanceof SelfComposedDpEvent s) {
      return s.count() * rdpOf(s.event(), alpha);
    }
    if (event instanceof MixtureDpEvent m) {
      return mixtureCurve(m, new double[] {alpha}, SkellamMixtureRdp.Subsampling.GENERAL)[0];
    }
    if (event instanceof ComposedDpEvent c) {
      return c.events().stream().mapToDouble(e -> rdpOf(e, alpha)).sum();
    }
    return 0; // NoOpDpEvent
  }

  /**
   * Kairouz, Liu, Steinke (2021), Prop. 14: for the sum Z of n independent N_Z(0, sigma^2)
   * vectors (sigma >= 1/2) and an integer shift of L2 norm D2 and L1 norm D1 in dimension d,
   * D_alpha(Z + shift || Z) <= min of
   *
   * <pre>
   *   alpha/2 * D2^2/(n sigma^2) + tau d,
   *   alpha/2 * (D2^2/(n sigma^2) + 2 D1 tau / (sqrt(n) sigma) + tau^2 d),
   *   alpha/2 * (D2/(sqrt(n) sigma) + tau sqrt(d))^2,
   * </pre>
   *
   * with {@code tau = 10 sum_{k=1}^{n-1} exp(-2 pi^2 sigma^2 k/(k+1))}, which vanishes for sigma
   * above a few grid units (for sigma = 4 it is below 1e-60 n).
   */
  static double distributedDiscreteGaussian(DistributedDiscreteGaussianDpEvent e, double alpha) {
    double s2 = e.sigma() * e.sigma();
    int n = e.parties();
    double tau = ddgTau(s2, n);
    double d = e.dimension();
    double a = e.l2Sensitivity() * e.l2Sensitivity() / (n * s2);
    if (!(n * s2 < Double.POSITIVE_INFINITY)) { // sigma above about 1e154: (l2 / sigma)^2 / n, not l2^2 / infinity
      double ratio = e.l2Sensitivity() / e.sigma();
      a = ratio * ratio / n;
    }
    double b1 = alpha / 2 * a + tau * d;
    double b2 = alpha / 2 * (a + 2 * e.l1Sensitivity() * tau / (Math.sqrt(n) * e.sigma()) + tau * tau * d);
    double r = e.l2Sensitivity() / (Math.sqrt(n) * e.sigma()) + tau * Math.sqrt(d);
    double b3 = alpha / 2 * r * r;
    // rounded up by a relative 1e-12: each bound is a dozen operations, each within half an ulp
    // (tau is rounded up on its own, in ddgTau)
    return Math.min(b1, Math.min(b2, b3)) * (1 + 1e-12);
  }

  /** Terms of tau summed one by one before the tail is bounded in blocks ({@link #ddgTau}). */
  static final int DDG_TAU_TERMS = 4096;

  /**
   * An upper bound on tau = 10 sum_{k=1}^{n-1} t_k, t_k = exp(-2 pi^2 sigma^2 k/(k+1)), in at most
   * {@value #DDG_TAU_TERMS} + 32 exponentials whatever n. The t_k decrease in k, so once a term is
   * below 1e-300 all later ones are bounded by it; otherwise the terms after the first {@value
   * #DDG_TAU_TERMS} are bounded in blocks [b, 2b) by b t_b, which overstates a block by at most the
   * factor t_b / t_(2b) <= exp(pi^2 sigma^2 / b): below 1 % for sigma <= 2 (b > 4096); for larger
   * sigma every term after the first 4096 is below e^-78, so what is overstated is that small.
   * Summing every term cost n exponentials per order, seconds at 10^5 parties.
   */
  static double ddgTau(double s2, int n) {
    double tau = 0;
    int k = 1;
    for (; k < n && k <= DDG_TAU_TERMS; k++) {
      double term = ddgTauTerm(s2, k);
      tau += term;
      if (term < 1e-300) {
        // the remaining terms are all smaller; bound them by this one
        return 10 * (tau + term * (n - 1 - k)) * DDG_TAU_ROUND_UP;
      }
    }
    while (k < n) { // the block [k, min(2k, n)): its first term bounds every one of its terms
      long end = Math.min(2L * k, n);
      tau += (end - k) * ddgTauTerm(s2, k);
      k = (int) end;
    }
    return 10 * tau * DDG_TAU_ROUND_UP;
  }

  /**
   * The sum's rounding: each exponent argument (|x| <= 745 where the exponential is normal) errs by
   * a few ulps, 3.3e-13 relative in the term at most, and the sum of positive terms by n ulps
   * relative at most (the blocks keep n below 4,116 additions).
   */
  private static final double DDG_TAU_ROUND_UP = 1 + 1e-12;

  /** exp(-2 pi^2 sigma^2 k/(k+1)), at least the smallest positive double (every true term is positive). */
  private static double ddgTauTerm(double s2, int k) {
    return Math.max(Double.MIN_VALUE, Math.exp(-2 * Math.PI * Math.PI * s2 * k / (k + 1.0)));
  }

  @Override
  public double epsilon(double delta) {
    Checks.openUnit("delta", delta);
    double best = Double.POSITIVE_INFINITY;
    for (int i = 0; i < orders.length; i++) {
      double a = orders[i];
      double eps = rdp[i] + Math.log((a - 1) / a) - (Math.log(delta) + Math.log(a)) / (a - 1);
      best = Math.min(best, eps);
    }
    return Math.max(0, best);
  }

  @Override
  public double delta(double epsilon) {
    Checks.nonNegative("epsilon", epsilon);
    double best = 1;
    for (int i = 0; i < orders.length; i++) {
      double a = orders[i];
      // the conversion above solved for delta
      double logDelta = (a - 1) * (rdp[i] - epsilon + Math.log((a - 1) / a)) - Math.log(a);
      best = Math.min(best, Math.exp(logDelta));
    }
    return best;
  }
}
