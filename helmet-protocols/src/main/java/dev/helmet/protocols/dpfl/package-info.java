/**
 * Federated DP-SGD (algorithm {@code dp-fl}), the papers' baseline: one secure summation of noised
 * clipped gradients per round. One package behind the algorithm interface; its DP-SGD building
 * blocks are shared in {@code protocols.dpsgd}.
 */
package dev.helmet.protocols.dpfl;
