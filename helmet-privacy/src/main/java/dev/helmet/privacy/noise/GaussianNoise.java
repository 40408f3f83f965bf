package dev.helmet.privacy.noise;

import dev.helmet.core.util.Checks;

/**
 * Continuous Gaussian noise N(0, std^2) in floating point, by the Box-Muller transform of two
 * uniforms from {@link RandomBits} (53 bits each).
 *
 * <p>Floating-point Gaussian samples are not exactly Gaussian, and their low-order bits can leak
 * the unnoised value (Mironov 2012). Helmet uses this sampler only where the result is encoded on
 * a fixed-point grid coarser than those bits, and offers the exact discrete Gaussian on the grid
 * for secure aggregation; the privacy ledger names which sampler ran.
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
