package dev.helmet.privacy.event;

import dev.helmet.core.util.Checks;

/**
 * One release of a function with L2 sensitivity Delta plus {@code N(0, (sigma Delta)^2 I)}.
 *
 * @param noiseMultiplier sigma: the noise standard deviation divided by the L2 sensitivity
 */
public record GaussianDpEvent(double noiseMultiplier) implements DpEvent {
  public GaussianDpEvent {
    Checks.positive("noise multiplier", noiseMultiplier);
  }

  @Override
  public String describe() {
    return "Gaussian(sigma=" + noiseMultiplier + ")";
  }
}
