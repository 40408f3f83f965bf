#!/usr/bin/env bash
# Test accuracy of blind averaging on MNIST, 1000 parties x 60 images, for every learner and a range
# of epsilons, next to the non-private centralized reference; documented defaults throughout.
# Each cell is the mean (sd, min) over 5 noise draws on the same trained local models. The sum is
# taken in the clear with the papers' continuous Gaussian (--protocol plain), which is fast; see
# docs/results.md for the same setting through SecAgg+ with the exact discrete Gaussian.
# Usage: scripts/accuracy-table.sh [dataset] [parties] [per-party]
set -euo pipefail
cd "$(dirname "$0")/.."
dataset="${1:-mnist}"; parties="${2:-1000}"; per="${3:-60}"
echo "| learner | eps | test accuracy % (mean of 5 draws) | sd | min | reference % | noise multiplier | sensitivity |"
echo "|---|---|---|---|---|---|---|---|"
for learner in softmax svm logreg; do
  for eps in 0.1 0.3 0.5 1 3; do
    ./helmet train --dataset "$dataset" --learner "$learner" --parties "$parties" --per-party "$per" \
        --epsilon "$eps" --delta 1e-5 --protocol plain --noise-draws 5 --json -q |
      python3 -c "import json,sys; j=json.load(sys.stdin); print('| %s | %s | %.2f | %.2f | %.2f | %.2f | %.4f | %.4f |' % (j['learner'], '$eps', 100*j['test_accuracy'], 100*j['test_accuracy_sd'], 100*j['test_accuracy_min'], 100*j['reference_accuracy'], j['noise_multiplier'], j['sensitivity']))"
  done
done
