/**
 * Weighted noisy gradient descent (algorithm {@code wd-dp}): full-batch noisy GD whose parties add
 * their own noise, weighted by their sizes. One package behind the algorithm interface.
 */
package dev.helmet.protocols.wddp;
