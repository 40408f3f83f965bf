/**
 * Throughput measurements behind {@code helmet bench}: local training against this core's roofline
 * ({@link dev.helmet.experiments.bench.TrainingBench}, {@link dev.helmet.experiments.bench.Roofline})
 * and full secure summations checked against the exact sum ({@link
 * dev.helmet.experiments.bench.SummationBench}). Measurements, not tests: the machines are shared
 * and noisy.
 */
package dev.helmet.experiments.bench;
