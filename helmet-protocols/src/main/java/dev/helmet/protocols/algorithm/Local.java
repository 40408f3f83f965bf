package dev.helmet.protocols.algorithm;

/**
 * A party's private state before the roster is known: its preprocessed data and whatever it
 * computed from it alone (Helmet: its trained model). It never leaves the party.
 */
public interface Local {
  /** The number of records it holds (public: it weights the party's contribution). */
  int size();
}
