package dev.helmet.protocols.algorithm;

/** One party during a run: turns each round's public state into its summation input. */
public interface Contributor {
  /**
   * Its input to round {@code round}: a vector in the summation ring, with its own share of the
   * noise already added. Computed by the party alone, from its data and the public state.
   *
   * @throws IllegalArgumentException if the state is malformed (the party then stops)
   */
  long[] contribute(int round, byte[] state);
}
