/**
 * The presets of blind averaging ({@code --algorithm helmet}): the Helmet papers' figures 5 and 6
 * and table 2 as experiment grids ({@link dev.helmet.experiments.blind.BlindPresets}).
 */
package dev.helmet.experiments.blind;
