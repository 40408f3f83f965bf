/**
 * Experiment grids: a configuration of algorithms, parties and epsilons run cell by cell through
 * the in-process simulator, resumable, with reports and plots; and the registry of built-in
 * experiments ({@link dev.helmet.experiments.Presets}: each {@link dev.helmet.experiments.Preset}
 * a learning grid or a computed pipeline, registered per algorithm by the sub-packages
 * {@code blind}, {@code wddp}, {@code smm} and {@code crosssilo}).
 */
package dev.helmet.experiments;
