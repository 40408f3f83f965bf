/**
 * Auditing a released model's printed epsilon: the algorithm's release run many times, with fresh
 * noise, on a neighbouring pair of data sets built to be told apart, and the empirical lower bound
 * of {@link dev.helmet.privacy.audit.EpsilonLowerBound} beside the printed epsilon. It knows no
 * algorithm: every run goes through {@link dev.helmet.protocols.simulation.Simulation}.
 */
package dev.helmet.protocols.audit;
