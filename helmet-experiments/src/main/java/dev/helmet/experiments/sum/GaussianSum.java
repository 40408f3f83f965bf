package dev.helmet.experiments.sum;

import dev.helmet.privacy.accounting.GaussianReleases;
import java.util.SplittableRandom;

/**
 * The central Gaussian mechanism, the trusted-server baseline of the sum experiment: the true sum
 * plus N(0, sigma^2) per coordinate, sigma from the analytic Gaussian mechanism (Balle and Wang
 * 2018) for L2 sensitivity 1. A measurement of utility only: the noise is drawn in floating point
 * from a seeded generator, which is fine for an experiment on synthetic data and never used on a
 * private path.
 */
final class GaussianSum {
  private GaussianSum() {}

  /** sigma for one release at (eps, delta), sensitivity 1. */
  static double sigma(double epsilon, double delta) {
    return GaussianReleases.noiseMultiplier(epsilon, delta, 1);
  }

  /** The true sum plus the noise. */
  static double[] estimate(double[] trueSum, double sigma, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] out = new double[trueSum.length];
    for (int j = 0; j < out.length; j++) {
      out[j] = trueSum[j] + sigma * r.nextGaussian();
    }
    return out;
  }
}
