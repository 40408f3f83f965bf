/**
 * Computations behind the cross-silo presets that train nothing: {@code crosssilo-sampling},
 * Heikkilä et al.'s Fig. 1 (effective sampling fraction of sampling without replacement against
 * the records of malicious parties; docs/design/cross-silo.md section 1.4).
 */
package dev.helmet.experiments.crosssilo;
