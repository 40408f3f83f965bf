package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.BinomialDpEvent;
import dev.helmet.privacy.event.ComposedDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.NeighbourRelation;
import dev.helmet.privacy.event.PoissonSampledDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Accounting in (eps, delta) terms alone, for mechanisms that have no Renyi or privacy-loss curve:
 * cpSGD's binomial mechanism ({@link BinomialMechanismDp}), accounted as the Skellam mixture
 * mechanism's paper accounts its cpSGD baseline (Bao et al., PVLDB 2022, Section 6.2: "linear
 * composition and advanced composition ... the stronger guarantee between them"). Loose by
 * construction; that looseness is part of what the paper compares.
 *
 * <ul>
 *   <li><b>Subsampling.</b> A mechanism that is (e0, d0)-DP, run on a Poisson sample of rate q, is
 *       (ln(1 + q (e^e0 - 1)), q d0)-DP for add-or-remove neighbours (Balle, Barthe and Gaboardi,
 *       NeurIPS 2018, "Privacy amplification by subsampling", Poisson sampling). Replace-one
 *       sampling is refused.
 *   <li><b>Composition</b> of k releases that are each (e1, d1)-DP: linear, (k e1, k d1); or
 *       advanced (Dwork, Rothblum and Vadhan 2010; Dwork and Roth, Theorem 3.20), (sqrt(2 k ln(1/d'))
 *       e1 + k e1 (e^e1 - 1), k d1 + d') for any d' > 0. Both hold for adaptive composition.
 *   <li><b>Delta.</b> The target delta is split between the releases' d1 and the slack d' at each of
 *       the fractions 1/100, ..., 99/100 (and wholly to d1 for linear composition); the smallest eps
 *       is kept. Every split is a valid bound and the grid is fixed, so choosing among them depends
 *       on public parameters only. Distinct events compose linearly, with delta split equally.
 * </ul>
 *
 * eps is rounded up by 1e-12 relative (double arithmetic); {@link #delta} returns the upper end of
 * a bisection bracket, so it too errs high.
 */
public final class ApproxDpAccountant implements PrivacyAccountant {
  private static final int SPLITS = 100;

  /** One kind of release: its mechanism, the Poisson rate it ran at (1: none) and how often. */
  private record Entry(BinomialDpEvent event, double rate, long count) {}

  private final List<Entry> entries = new ArrayList<>();

  @Override
  public String name() {
    return "approx-dp";
  }

  @Override
  public boolean supportsMechanism(DpEvent event) {
    if (event instanceof PoissonSampledDpEvent p) {
      return p.neighbours() == NeighbourRelation.ADD_OR_REMOVE_ONE && p.event() instanceof BinomialDpEvent;
    }
    return event instanceof BinomialDpEvent;
  }

  @Override
  public PrivacyAccountant compose(DpEvent event, int count) {
    Checks.positive("count", count);
    if (!supports(event)) {
      throw new UnsupportedEventException(name(), event);
    }
    add(event, count);
    return this;
  }

  private void add(DpEvent event, long count) {
    if (event instanceof SelfComposedDpEvent s) {
      add(s.event(), Math.multiplyExact(count, (long) s.count()));
    } else if (event instanceof ComposedDpEvent c) {
      c.events().forEach(e -> add(e, count));
    } else if (event instanceof PoissonSampledDpEvent p) {
      entries.add(new Entry((BinomialDpEvent) p.event(), p.samplingProbability(), count));
    } else {
      entries.add(new Entry((BinomialDpEvent) event, 1, count));
    }
  }

  @Override
  public double epsilon(double delta) {
    if (!(delta > 0 && delta < 1)) {
      throw new IllegalArgumentException("delta must be in (0, 1). Provided value: " + delta);
    }
    double eps = 0;
    for (Entry e : entries) {
      eps += epsilon(e, delta / entries.size());
    }
    return eps * (1 + 1e-12);
  }

  private static double epsilon(Entry e, double delta) {
    if (e.count == 0) {
      return 0;
    }
    double best = e.count * release(e, delta / e.count);
    if (e.count > 1) {
      for (int i = 1; i < SPLITS; i++) {
        double slack = delta * i / SPLITS;
        double e1 = release(e, (delta - slack) / e.count);
        double split = Math.sqrt(2 * e.count * Math.log(1 / slack)) * e1 + e.count * e1 * Math.expm1(e1);
        if (split < best) { // a NaN (a slack that underflowed to 0, times eps 0) bounds nothing
          best = split;
        }
      }
    }
    return best;
  }

  /** eps of one release at delta d1 (after subsampling). */
  private static double release(Entry e, double d1) {
    double e0 = BinomialMechanismDp.epsilon(e.event, d1 / e.rate);
    return e.rate == 1 ? e0 : Math.log1p(e.rate * Math.expm1(e0));
  }

  @Override
  public double delta(double epsilon) {
    if (entries.isEmpty() || epsilon(0.5) > epsilon) {
      return entries.isEmpty() ? 0 : 1;
    }
    double lo = Math.log(1e-300);
    double hi = Math.log(0.5);
    if (epsilon(Math.exp(lo)) <= epsilon) {
      return Math.exp(lo);
    }
    for (int i = 0; i < 80 && hi - lo > 1e-12; i++) {
      double mid = (lo + hi) / 2;
      if (epsilon(Math.exp(mid)) <= epsilon) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    return Math.exp(hi);
  }
}
