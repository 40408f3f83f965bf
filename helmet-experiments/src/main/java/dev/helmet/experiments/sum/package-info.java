/**
 * The distributed-sum estimation experiments of the SMM paper: the Skellam mixture and its ring
 * baselines (distributed discrete Gaussian, Skellam, cpSGD) against the central Gaussian.
 */
package dev.helmet.experiments.sum;
