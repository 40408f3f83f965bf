/**
 * Experiment grids: a configuration of algorithms, parties and epsilons run cell by cell through
 * the in-process simulator, resumable, with reports and plots.
 */
package dev.helmet.experiments;
