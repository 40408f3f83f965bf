package dev.helmet.protocols.algorithm;

import java.util.function.Supplier;

/** One party during a run: turns each round's public state into its summation input. */
public interface Contributor {
  /**
   * Opens round {@code round}: checks its public state at once and returns the computation of the
   * party's input, a vector in the summation ring with its own share of the noise already added,
   * computed by the party alone from its data and the state. The runner may run the computation
   * in the background while the summation's first messages go out.
   *
   * @throws IllegalArgumentException if the state is malformed (the party then stops)
   */
  Supplier<long[]> open(int round, byte[] state);
}
