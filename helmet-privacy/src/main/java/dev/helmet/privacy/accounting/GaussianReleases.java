package dev.helmet.privacy.accounting;

import dev.helmet.privacy.event.DpEvent;
import dev.helmet.privacy.event.GaussianDpEvent;
import dev.helmet.privacy.event.SelfComposedDpEvent;

/**
 * K Gaussian releases of one noise multiplier sigma, on the exact Gaussian curve (the one-vs-rest
 * model's K class rows, or one softmax matrix for K = 1): the event, its calibration through {@link
 * Calibration} and its epsilon. Every runner that sizes such noise (blind averaging, the privacy
 * calculator, experiments' sums) uses this one routine.
 */
public final class GaussianReleases {
  private GaussianReleases() {}

  /** The event of one release with noise multiplier sigma: {@code releases} Gaussians. */
  public static DpEvent event(double sigma, int releases) {
    DpEvent one = new GaussianDpEvent(sigma);
    return releases == 1 ? one : new SelfComposedDpEvent(one, releases);
  }

  /** The smallest sigma (rounded up) that gives (eps, delta) for {@code releases} Gaussians. */
  public static double noiseMultiplier(double epsilon, double delta, int releases) {
    return Calibration.noiseMultiplier(s -> event(s, releases), GaussianAccountant::new, epsilon, delta);
  }

  /** The eps at delta of {@code releases} Gaussians with multiplier sigma. */
  public static double epsilon(double sigma, int releases, double delta) {
    return new GaussianAccountant().compose(event(sigma, releases)).epsilon(delta);
  }
}
