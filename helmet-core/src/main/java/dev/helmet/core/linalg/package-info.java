/**
 * Dense FP64 kernels of the training loop (dot products, small matrix products with per-row
 * offsets, scaled accumulation), vectorised with the JDK Vector API when the
 * {@code jdk.incubator.vector} module is present and in plain Java otherwise, with bit-identical
 * results: see {@link dev.helmet.core.linalg.Blas}.
 */
package dev.helmet.core.linalg;
