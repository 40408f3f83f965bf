#!/usr/bin/env bash
# Communication of every protocol Helmet runs, measured (not computed): rounds (summations), bytes
# per party and bytes at the server, on MNIST softmax (7,850 values per model), eps 1, delta 1e-5.
# In-process rows count the protocol messages' serialised sizes; network rows count the gRPC
# messages each participant sent and received (over mutual TLS on loopback; TLS and HTTP/2 framing
# not included).
# Usage: scripts/communication-table.sh [PARTIES] [NETWORK_PARTIES]   (defaults 100 and 50)
set -euo pipefail
cd "$(dirname "$0")/.."
w="${1:-100}"; nw="${2:-50}"
./helmet --version >/dev/null
common=(--dataset mnist --parties "$w" --per-party 60 --epsilon 1 --delta 1e-5 --json -q)
row() { # row NAME JSON
  jq -r --arg name "$1" '"| \($name) | \(.parties) | \(.rounds) | \(.bytes_per_party) | \(.server_bytes // "-") | \(.test_accuracy * 100 | . * 100 | round / 100) |"' <<<"$2"
}
echo "| protocol | parties | rounds | bytes per party | server bytes | test accuracy % |"
echo "|---|---|---|---|---|---|"
for p in plain secagg secagg+ compute-servers; do
  row "Helmet, $p (in-process)" "$(./helmet train "${common[@]}" --protocol "$p" --no-reference)"
done
for r in 10 50; do
  for p in plain secagg+; do
    row "DP-FL, $p, $r rounds (in-process)" "$(./helmet train --protocol dp-fl "${common[@]}" --summation "$p" \
      --rounds "$r")"
  done
done
row "Helmet, secagg+ over gRPC" "$(./helmet demo --network --parties "$nw" --no-reference --json -q)"
row "DP-FL, secagg+ over gRPC, 20 rounds" "$(./helmet demo --network --algorithm dp-fl --parties "$nw" --rounds 20 \
  --sampling-rate 0.2 --json -q)"
