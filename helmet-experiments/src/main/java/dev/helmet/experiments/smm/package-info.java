/**
 * The presets of the Skellam mixture mechanism (Bao et al., PVLDB 2022): the federated learning
 * grids smm-fl, smm-fl-batch and smm-fl-gamma with the report section that checks the paper's
 * claims, and smm-sum, the distributed sum estimation run by {@code dev.helmet.experiments.sum}
 * ({@link dev.helmet.experiments.smm.SmmPresets}).
 */
package dev.helmet.experiments.smm;
