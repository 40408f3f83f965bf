/**
 * Cross-silo DP-SGD with compute nodes (algorithm {@code cross-silo}): silos send noised clipped
 * gradient sums to compute nodes that sum them; Poisson or fixed-size (SWOR) batches, optional public
 * projections, a token mixnet for the batch sampler. One package behind the algorithm interface.
 */
package dev.helmet.protocols.crosssilo;
