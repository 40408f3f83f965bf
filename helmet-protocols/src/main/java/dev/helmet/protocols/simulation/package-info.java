/**
 * The in-process runner: {@code Simulation.run} draws a round as every runner does (each party's
 * input with its own noise, one summation, the server's step), for any registered algorithm.
 */
package dev.helmet.protocols.simulation;
