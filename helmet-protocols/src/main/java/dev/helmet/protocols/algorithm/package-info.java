/**
 * The one interface every learning algorithm implements, and the registry the runners find them
 * through. A run is a public plan (derived from the configuration and the roster) and a sequence
 * of rounds; per round the server publishes a public state, each party turns it into one ring
 * vector (its own training, clipping and share of the noise), exactly one summation adds the
 * vectors, and the server steps on the decoded sum. The in-process simulator, the networked
 * coordinator and participant, the experiment harness and the CLI drive any algorithm through
 * this package alone; see docs/algorithms.md.
 */
package dev.helmet.protocols.algorithm;
