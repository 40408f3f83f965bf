/**
 * The Skellam mixture mechanism (algorithm {@code smm}) and its ring baselines: DP-SGD of an MLP
 * whose clipped, rotated, scaled gradients are rounded and noised on the ring. One package behind
 * the algorithm interface.
 */
package dev.helmet.protocols.smm;
