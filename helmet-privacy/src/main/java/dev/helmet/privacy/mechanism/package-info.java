/**
 * Mechanisms that encode a client's contribution for secure aggregation over a small ring: the
 * Skellam mixture mechanism (SMM; Bao et al., PVLDB 15(11), 2022, Algorithms 4-6) with its
 * randomized Walsh-Hadamard rotation ({@link dev.helmet.privacy.mechanism.RandomizedHadamard}), its
 * clip ({@link dev.helmet.privacy.mechanism.MixtureClip}), exact stochastic rounding ({@link
 * dev.helmet.privacy.mechanism.StochasticRounding}), the client's encoder ({@link
 * dev.helmet.privacy.mechanism.SmmEncoder}) and the server's decoder ({@link
 * dev.helmet.privacy.mechanism.SmmDecoder}). Rounding and noise are secure by default; the
 * rotation's signs are public.
 */
package dev.helmet.privacy.mechanism;
