package dev.helmet.privacy.accounting;

import dev.helmet.core.util.Checks;
import dev.helmet.privacy.event.ComposedDpEvent;
import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.NoOpDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;

/**
 * Exact accounting for compositions of Gaussian mechanisms without subsampling. A composition of
 * Gaussians with multipliers {@code sigma_i} is exactly {@code mu}-GDP with {@code mu^2 = sum_i
 * 1/sigma_i^2} (Dong, Roth, Su 2019, Corollary 3.3), so the privacy curve is the closed form of
 * {@link GaussianMath} (the SPEC 1.4 formula: Sommer et al. 2019 Theorem 5, the analytic Gaussian
 * of Balle and Wang with sensitivity sqrt(K_comp)). Nothing is approximated.
 */
public final class GaussianAccountant implements PrivacyAccountant {
  private double muSquared;

  @Override
  public String name() {
    return "gaussian-exact";
  }

  @Override
  public boolean supportsMechanism(DpEvent event) {
    return event instanceof GaussianDpEvent || event instanceof NoOpDpEvent;
  }

  @Override
  public GaussianAccountant compose(DpEvent event, int count) {
    Checks.positive("count", count);
    if (!supports(event)) {
      throw new UnsupportedEventException(name(), event);
    }
    muSquared += count * muSquaredOf(event);
    return this;
  }

  @Override
  public GaussianAccountant compose(DpEvent event) {
    return compose(event, 1);
  }

  private static double muSquaredOf(DpEvent event) {
    if (event instanceof GaussianDpEvent g) {
      return 1 / (g.noiseMultiplier() * g.noiseMultiplier());
    }
    if (event instanceof SelfComposedDpEvent s) {
      return s.count() * muSquaredOf(s.event());
    }
    if (event instanceof ComposedDpEvent c) {
      return c.events().stream().mapToDouble(GaussianAccountant::muSquaredOf).sum();
    }
    return 0; // NoOpDpEvent
  }

  /** The GDP parameter mu of everything composed so far. */
  public double mu() {
    return Math.sqrt(muSquared);
  }

  @Override
  public double epsilon(double delta) {
    return GaussianMath.epsilon(delta, mu());
  }

  @Override
  public double delta(double epsilon) {
    return GaussianMath.delta(epsilon, mu());
  }
}
