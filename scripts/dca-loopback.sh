#!/usr/bin/env bash
# A networked dca session on loopback with every role its own process: 2 compute nodes
# (`helmet compute-node`), a coordinator and 3 participants on iris, mutual TLS throughout. Prints
# the coordinator's JSON summary (per node and per party bytes and seconds) and each node's stats.
# Usage: scripts/dca-loopback.sh [ALGORITHM]   (helmet, the default, dp-fl or cross-silo). Stops by itself.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
algorithm="${1:-helmet}"
. "$here/scripts/loopback-lib.sh" helmet-dca
"$here/helmet" certs --out "$dir/certs" --participants 3 --compute-nodes 2 >/dev/null
port=$(free_port); n1=$(free_port); n2=$(free_port)
for l in 1 2; do
  p=$([ "$l" = 1 ] && echo "$n1" || echo "$n2")
  timeout 300 "$here/helmet" compute-node --name "compute-node-$l" --listen "127.0.0.1:$p" \
      --cert "$dir/certs/compute-node-$l.pem" --key "$dir/certs/compute-node-$l-key.pem" --ca "$dir/certs/ca.pem" \
      --coordinator "127.0.0.1:$port" --stats-json "$dir/node-$l.json" 2>"$dir/node-$l.log" &
  pids+=($!)
done
honest=1.0
if [ "$algorithm" = dp-fl ]; then
  extra=$'algorithm: dp-fl\nlearner: {kind: softmax}\ndpfl: {sampling_rate: 0.5, rounds: 3, neighbours: add-remove, accountant: rdp, expected_batch: 75}'
elif [ "$algorithm" = cross-silo ]; then
  # T = 0 colluders: each party adds 1/(3 - 0 - 1) of the noise; the honest fraction 0.5 tolerates
  # the T + 1 = 1 party the noise is sized for.
  honest=0.5
  extra=$'algorithm: cross-silo\nlearner: {kind: softmax}\ncrosssilo: {colluders: 0, sampling_rate: 0.5, rounds: 3, optimizer: sgd, learning_rate: 2}'
else
  extra='learner: {kind: softmax, epochs: 5}'
fi
cat > "$dir/session.yaml" <<YAML
name: iris-dca
dataset: iris
parties: 3
min_contributors: 3
features: 4
labels: [0, 1, 2]
privacy: {epsilon: 1.0, delta: 1.0e-5, honest_fraction: $honest}
deadlines: {enrolment_seconds: 60, round_seconds: 30}
listen: 127.0.0.1:$port
tls: {certificate: certs/coordinator.pem, key: certs/coordinator-key.pem, ca: certs/ca.pem}
budget: {epsilon: 10, delta: 1.0e-4}
summation: dca
compute_nodes:
  - {name: compute-node-1, endpoint: "127.0.0.1:$n1", certificate: certs/compute-node-1.pem}
  - {name: compute-node-2, endpoint: "127.0.0.1:$n2", certificate: certs/compute-node-2.pem}
$extra
YAML
timeout 300 "$here/helmet" coordinator --config "$dir/session.yaml" --json >"$dir/coordinator.json" \
    2>"$dir/coordinator.log" &
coordinator=$!
sleep 3
iris="$here/helmet-core/src/test/resources/dev/helmet/core/testdata/iris.csv"
[ -f "$iris" ] || iris="$(find "$here" -name iris.csv -path '*testdata*' | head -1)"
parts=()
allow=$([ "$algorithm" = dp-fl ] || [ "$algorithm" = cross-silo ] && echo --allow-float-noise || true)
# Each participant names the node it trusts to stay honest (here the first): the session's privacy
# rests on one honest node, which the participant chooses, not the coordinator.
trusted=$(sha256sum < <(openssl x509 -in "$dir/certs/compute-node-1.pem" -outform DER 2>/dev/null) | cut -d' ' -f1)
for k in 1 2 3; do
  timeout 300 "$here/helmet" participant --coordinator "127.0.0.1:$port" --data "$iris" --skip-rows 1 \
      --tls-dir "$dir/certs" --name "participant-$k" --ledger "$dir/ledger-$k.json" --min-contributors 3 \
      --honest-fraction "$honest" --trusted-node "$trusted" --json $allow \
      >"$dir/participant-$k.json" 2>"$dir/participant-$k.log" &
  parts+=($!)
done
status=0
for p in "${parts[@]}"; do wait "$p" || status=$?; done
wait "$coordinator" || status=$?
cat "$dir/coordinator.json"
sleep 1
for l in 1 2; do echo "node $l stats:"; cat "$dir/node-$l.json" 2>/dev/null || echo "(none)"; done
if [ "$status" != 0 ]; then
  echo "dca-loopback: a process failed (exit $status); logs:" >&2
  tail -n 20 "$dir"/*.log >&2
fi
exit "$status"
