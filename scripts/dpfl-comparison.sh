#!/usr/bin/env bash
# Helmet (softmax blind averaging) against DP-FL (federated DP-SGD of the same softmax model) on
# MNIST, W parties x 60 images, delta = 1e-5, honest fraction 0.5, for several eps and party counts.
# DP-FL runs both with the honest noise split (the honest half of the parties alone adds the full
# noise, as Helmet assumes) and the papers' way (every party adds the full noise: a sqrt(W) noise
# penalty on the sum). The sums are
# taken in the clear (--protocol plain / --summation plain): the accuracy is the same through secure
# aggregation (see docs/results.md), and the bytes a secure summation would add are reported there.
# DP-FL's hyperparameters are the fixed defaults (sampling rate 0.1, 5 epochs, gradient clip 1,
# learning rate 2), not tuned on the test data. One run per cell (one noise draw).
# Usage: scripts/dpfl-comparison.sh [eps list] [party counts]
set -euo pipefail
cd "$(dirname "$0")/.."
epsilons="${1:-0.3 0.5 1 3}"; parties="${2:-1 10 100 400 1000}"
echo "| parties | eps | Helmet % | DP-FL honest split % | DP-FL sqrt(W) penalty % | Helmet B/party | DP-FL B/party (rounds) |"
echo "|---|---|---|---|---|---|---|"
for w in $parties; do
  for eps in $epsilons; do
    h=$(./helmet train --dataset mnist --parties "$w" --per-party 60 --epsilon "$eps" --delta 1e-5 --protocol plain \
        --no-reference --json -q)
    f=$(./helmet train --protocol dp-fl --dataset mnist --parties "$w" --per-party 60 --epsilon "$eps" --delta 1e-5 \
        --summation plain --noise-split honest --json -q)
    a=$(./helmet train --protocol dp-fl --dataset mnist --parties "$w" --per-party 60 --epsilon "$eps" --delta 1e-5 \
        --summation plain --noise-split sqrt-w-penalty --json -q)
    printf '| %s | %s | %.2f | %.2f | %.2f | %s | %s (%s) |\n' "$w" "$eps" \
        "$(jq '.test_accuracy * 100' <<<"$h")" "$(jq '.test_accuracy * 100' <<<"$f")" "$(jq '.test_accuracy * 100' <<<"$a")" \
        "$(jq '.bytes_per_party' <<<"$h")" "$(jq '.bytes_per_party' <<<"$f")" "$(jq '.rounds' <<<"$f")"
  done
done
