package dev.helmet.protocols.algorithm;

import dev.helmet.core.learn.Model;

/** The server's side of a run: publishes each round's state and steps on its decoded sum. */
public interface ServerRole {
  /**
   * The public state that opens round {@code round}, as the bytes that go to every party (an
   * algorithm-defined, versioned encoding; empty when a round needs none).
   */
  byte[] state(int round);

  /**
   * The server's step on round {@code round}'s decoded sum.
   *
   * @param sum the decoded sum of the contributors' inputs
   * @param contributors the parties whose inputs are in it, ascending
   */
  void step(int round, double[] sum, int[] contributors);

  /** The model after the last step. */
  Model model();
}
