package dev.helmet.privacy.noise;

import dev.helmet.core.util.Checks;

/**
 * Continuous Gaussian noise N(0, std^2) in floating point, by the Box-Muller transform of two
 * uniforms from {@link RandomBits} (53 bits each).
 *
 * <p>Floating-point Gaussian samples are not exactly Gaussian: they are cut off beyond about 8.6
 * standard deviations (the smallest uniform is 2^-53) and their low-order bits can leak the
 * unnoised value (Mironov 2012). The (eps, delta) Helmet reports for this sampler assumes ideal
 * real-valued Gaussian noise, as most DP libraries do; as a mitigation, blind averaging rounds
 * every noised value to a fixed-point grid at least 2^10 times coarser than its floating-point
 * resolution before it leaves the party. The ledger names the sampler. An exact sampler on the
 * grid (the discrete Gaussian of Canonne, Kamath and Steinke) removes the assumption.
 */
public final class GaussianNoise {
  private final RandomBits bits;
  private double spare;
  private boolean hasSpare;

  public GaussianNoise(RandomBits bits) {
    this.bits = Checks.notNull("random bits", bits);
  }

  /** A sampler on a fresh secure source. */
  public static GaussianNoise secure() {
    return new GaussianNoise(RandomBits.secure());
  }

  /** Whether the underlying bits are cryptographically secure. */
  public boolean isSecure() {
    return bits.isSecure();
  }

  /** One standard normal sample. */
  public double nextStandard() {
    if (hasSpare) {
      hasSpare = false;
      return spare;
    }
    double r = Math.sqrt(-2 * Math.log(bits.nextDoubleNonZero()));
    double theta = 2 * Math.PI * bits.nextDouble();
    spare = r * Math.sin(theta);
    hasSpare = true;
    return r * Math.cos(theta);
  }

  /** Adds independent N(0, std^2) to every element of {@code v}. */
  public void addTo(double[] v, double std) {
    Checks.nonNegative("noise standard deviation", std);
    for (int i = 0; i < v.length; i++) {
      v[i] += std * nextStandard();
    }
  }
}
