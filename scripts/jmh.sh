#!/usr/bin/env bash
# Runs the JMH benchmarks (module helmet-bench) and writes their results as JSON.
#   scripts/jmh.sh                       every benchmark, results in helmet-bench/target/jmh.json
#   scripts/jmh.sh KernelBenchmarks      only the benchmarks whose name matches (a JMH regexp)
#   JMH_ARGS="-f 1 -wi 1 -i 3" scripts/jmh.sh Sampler    shorter runs (any JMH option)
# The machines are shared and noisy: compare ratios within one run (each benchmark class has its
# own baseline: the plain-Java kernels, the generator's raw words, the plain sum).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mvn -q -B -pl helmet-bench -am package -DskipTests >&2
out="${JMH_OUT:-$here/helmet-bench/target/jmh.json}"
# shellcheck disable=SC2086
java --add-modules jdk.incubator.vector -jar helmet-bench/target/helmet-benchmarks.jar ${JMH_ARGS:-} \
  -rf json -rff "$out" "$@"
echo "results: $out" >&2
