package dev.helmet.protocols.algorithm;

/**
 * For experiments only: a round's sum of every party's contribution computed at once, without
 * messages or fixed-point encoding (e.g. the parties' independent Gaussian noise drawn as one
 * Gaussian of the summed variance). Same distribution as the summed inputs, up to rounding.
 */
public interface Aggregate {
  /** A short description for the ledger ("simulated ..."). */
  String description();

  /** The decoded sum of every party's input to round {@code round}. */
  double[] sum(int round, byte[] state, int threads);
}
