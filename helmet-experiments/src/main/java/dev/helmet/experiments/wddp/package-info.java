/**
 * The presets of weighted distributed DP ERM (Kang et al. 2021): wd-dp-eps, wd-dp-imbalance and
 * wd-dp-pl, against Jayaraman et al.'s and Wang et al.'s baselines on tabular data
 * ({@link dev.helmet.experiments.wddp.WdDpPresets}).
 */
package dev.helmet.experiments.wddp;
