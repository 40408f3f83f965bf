/**
 * Multilayer perceptrons for DP-SGD style training (SMM, DP-FL, cross-silo; SPEC sections 4, 6, 7):
 * the architecture and its flat parameter layout ({@link dev.helmet.core.nn.Mlp}), labelled inputs
 * ({@link dev.helmet.core.nn.Examples}), the clipped per-example gradient sum that the mechanisms
 * perturb, and the optimisers that post-process the released gradient ({@link
 * dev.helmet.core.nn.Sgd}, {@link dev.helmet.core.nn.Adam}). Everything is FP64 and deterministic;
 * randomness (the initialisation) comes from a caller's seeded {@link java.util.SplittableRandom}.
 */
package dev.helmet.core.nn;
