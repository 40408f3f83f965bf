package dev.helmet.experiments.sum;

import dev.helmet.privacy.noise.RandomBits;

/**
 * A mechanism for distributed sum estimation (Bao et al., PVLDB 2022, Section 6.1; Kairouz et al.
 * 2021): n clients each hold a vector of L2 norm at most 1, each sends one message, and the server
 * estimates the sum under (eps, delta)-DP for one client added or removed.
 */
interface SumMechanism {
  /** Its name in results and plots: smm, ddg, skellam, gaussian. */
  String name();

  /**
   * The mechanism calibrated for one release.
   *
   * @param n the clients whose noise the guarantee counts on: each client's share is calibrated so
   *     that any n of them reach the target, and the caller passes one fewer than the clients, for
   *     a removed client takes its own share with it
   * @param d the vectors' dimension
   * @param bits b (ignored by the central Gaussian, which has no ring)
   * @param gamma the scale before rounding (ignored by the central Gaussian)
   * @param seed public seed of the rotation
   */
  Calibrated calibrate(int n, int d, int bits, double gamma, double epsilon, double delta, long seed);

  /** A calibrated mechanism: each client's message and the server's estimate. */
  interface Calibrated {
    /** Client i's message (already reduced into the ring), from its own randomness. */
    long[] encode(double[] x, RandomBits bits);

    /** The estimated sum from the coordinate-wise sum of the messages modulo 2^b. */
    double[] decode(long[] sum);

    /** The ring's bit width (64 for a mechanism without a ring). */
    int bits();

    /** The calibrated parameters, in words, for the report. */
    String describe();
  }
}
