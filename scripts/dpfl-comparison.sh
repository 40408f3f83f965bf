#!/usr/bin/env bash
# Helmet (softmax blind averaging) against DP-FL (federated DP-SGD of the same softmax model) on
# MNIST, W parties x 60 images, delta = 1e-5, honest fraction 0.5, for several eps and party counts.
#
# DP-FL runs with two noise splits: honest (the honest half of the parties alone adds the full
# noise, the assumption Helmet makes) and the papers' sqrt(W) penalty (every party adds the full
# noise). And with two choices of hyperparameters:
#   papers    the Helmet papers' setting: learning rate 4, clip 0.1, q = 1024/N, 40 epochs;
#   selected  the best of a grid (learning rate {1, 4} x clip {0.1, 1} x epochs {10, 40}, q as
#             above), chosen per cell on a validation holdout (10 % of the MNIST training set, with
#             min(W, 900) parties so that the holdout is never trained on), then rerun on the test set.
# Helmet keeps its defaults (not tuned). Every reported figure is the mean of DRAWS runs (fresh
# noise; DP-FL also fresh partition and batches), with the standard deviation.
#
# DP-FL's rounds are simulated in aggregate (--summation simulated: the parties' summed noise drawn
# at once, same distribution; see DpFl.Simulation), Helmet's sum is taken in the clear
# (--protocol plain): accuracy is the same through secure aggregation (docs/results.md); the bytes
# per party are measured separately (scripts/communication-table.sh).
#
# Usage: scripts/dpfl-comparison.sh [OUT_DIR] (default target/dpfl-comparison); resumable: every
# run's JSON is kept in OUT_DIR/runs.jsonl and a rerun skips what is there.
# Environment: EPSILONS (default "0.3 0.5 1 3"), PARTIES (default "1 10 100 400 1000"), DRAWS (3).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/dpfl-comparison}"
mkdir -p "$out"
runs="$out/runs.jsonl"
touch "$runs"
epsilons="${EPSILONS:-0.3 0.5 1 3}"
parties="${PARTIES:-1 10 100 400 1000}"
draws="${DRAWS:-3}"
./helmet --version >/dev/null # build once, before the loop

# run KEY ARGS...: runs `helmet train ARGS --json -q` unless KEY is already in runs.jsonl.
run() {
  local key="$1"; shift
  if ! grep -q "\"key\":\"$key\"" "$runs"; then
    local j
    j=$(./helmet train "$@" --json -q)
    jq -c --arg key "$key" '{key: $key, acc: .test_accuracy, sd: (.test_accuracy_sd // 0), bytes: .bytes_per_party,
        rounds: .rounds, eps: .epsilon}' <<<"$j" >>"$runs"
  fi
}
get() { jq -r --arg key "$1" "select(.key == \$key) | .$2" "$runs" | head -1; }
# q = 1024/N, at most 1
rate() { awk -v n="$1" 'BEGIN { q = 1024 / n; if (q > 1) q = 1; printf "%.10g", q }'; }
# mean and sd over keys
stats() { for k in "$@"; do get "$k" acc; done | awk '{ s += $1; ss += $1 * $1; n++ }
  END { m = s / n; v = n > 1 ? (ss - n * m * m) / (n - 1) : 0; if (v < 0) v = 0; printf "%.2f ± %.2f", 100 * m, 100 * sqrt(v) }'; }

dpfl() { # dpfl KEY W EPS SPLIT LR CLIP EPOCHS SEED [extra...]
  local key="$1" w="$2" eps="$3" split="$4" lr="$5" clip="$6" ep="$7" seed="$8"; shift 8
  run "$key" --protocol dp-fl --dataset mnist --parties "$w" --per-party 60 --epsilon "$eps" --delta 1e-5 \
    --summation simulated --noise-split "$split" --learning-rate "$lr" --grad-clip "$clip" --dp-epochs "$ep" \
    --sampling-rate "$(rate $((w * 60)))" --seed "$seed" "$@"
}

grid_lr="1 4"; grid_clip="0.1 1"; grid_epochs="10 40"
total=0; for w in $parties; do for eps in $epsilons; do total=$((total + 1)); done; done
cell=0
echo "| parties | eps | Helmet | DP-FL honest, papers' hp | DP-FL honest, selected hp | DP-FL sqrt(W), papers' hp | DP-FL sqrt(W), selected hp |" >"$out/table.md"
echo "|---|---|---|---|---|---|---|" >>"$out/table.md"
for w in $parties; do
  wsel=$(( w > 900 ? 900 : w ))
  for eps in $epsilons; do
    cell=$((cell + 1))
    echo "[$cell/$total] W = $w, eps = $eps" >&2
    run "helmet-$w-$eps" --dataset mnist --parties "$w" --per-party 60 --epsilon "$eps" --delta 1e-5 --protocol plain \
      --no-reference --noise-draws "$draws"
    row="| $w | $eps | $(get "helmet-$w-$eps" acc | awk '{printf "%.2f", 100 * $1}') ± $(get "helmet-$w-$eps" sd | awk '{printf "%.2f", 100 * $1}')"
    for split in honest sqrt-w-penalty; do
      papers=(); for s in $(seq 1 "$draws"); do
        dpfl "papers-$split-$w-$eps-$s" "$w" "$eps" "$split" 4 0.1 40 "$s"; papers+=("papers-$split-$w-$eps-$s")
      done
      best=""; bestacc=-1
      for lr in $grid_lr; do for clip in $grid_clip; do for ep in $grid_epochs; do
        k="val-$split-$wsel-$eps-$lr-$clip-$ep"
        dpfl "$k" "$wsel" "$eps" "$split" "$lr" "$clip" "$ep" 101 --validation-fraction 0.1
        a=$(get "$k" acc)
        if awk -v a="$a" -v b="$bestacc" 'BEGIN { exit !(a > b) }'; then best="$lr $clip $ep"; bestacc="$a"; fi
      done; done; done
      read -r blr bclip bep <<<"$best"
      sel=(); for s in $(seq 1 "$draws"); do
        dpfl "sel-$split-$w-$eps-$s" "$w" "$eps" "$split" "$blr" "$bclip" "$bep" "$s"; sel+=("sel-$split-$w-$eps-$s")
      done
      row+=" | $(stats "${papers[@]}") | $(stats "${sel[@]}") (lr $blr, C $bclip, $bep ep.)"
    done
    # column order: honest papers, honest selected, sqrt papers, sqrt selected
    echo "$row |" >>"$out/table.md"
  done
done
cat "$out/table.md"
