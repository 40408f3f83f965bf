/**
 * Blind averaging (algorithm {@code helmet}, Distributed DP-Helmet): each party trains a
 * regularised linear model locally, adds calibrated noise once, and one secure summation averages
 * the models. One package behind the algorithm interface.
 */
package dev.helmet.protocols.blind;
