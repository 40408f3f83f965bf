/**
 * The cross-silo presets (Heikkilä et al., "Differentially private cross-silo federated
 * learning"; {@link dev.helmet.experiments.crosssilo.CrossSiloPresets}): the grids crosssilo-eps
 * (Fig. 2) and crosssilo-projection (Fig. 4's accuracy), and the computations that train nothing:
 * {@code crosssilo-sampling}, their Fig. 1 (effective sampling fraction of sampling without
 * replacement against the records of malicious parties; docs/design/cross-silo.md section 1.4),
 * and the in-process timing presets {@code crosssilo-nodes} (Fig. 3: DCA against the number of
 * compute nodes) and {@code crosssilo-groups} (Fig. 5: pairwise masking against parties and group
 * size, with the honest noise factor of doubt 8), timed by
 * {@link dev.helmet.experiments.crosssilo.SummationTiming}. Their networked forms are in
 * {@code dev.helmet.experiments.crosssilo.network}.
 */
package dev.helmet.experiments.crosssilo;
