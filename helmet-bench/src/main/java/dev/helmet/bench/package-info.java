/**
 * JMH benchmarks: the training kernels and one party's local training ({@link
 * dev.helmet.bench.KernelBenchmarks}), the exact samplers ({@link
 * dev.helmet.bench.SamplerBenchmarks}) and whole SecAgg+ rounds ({@link
 * dev.helmet.bench.SecAggBenchmarks}). Run with {@code scripts/jmh.sh}; results as JSON.
 */
package dev.helmet.bench;
