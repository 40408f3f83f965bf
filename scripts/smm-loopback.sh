#!/usr/bin/env bash
# An smm session over gRPC on loopback, every role its own process with mutual TLS: a coordinator and
# 3 participants, each with a 2,000-image MNIST shard, train the 784-80-10 MLP through SecAgg in an
# 8-bit ring (gamma 64, |B| 240 of the 6,000 records, Adam 0.005) at eps 3. Prints the coordinator's
# JSON summary and each participant's (its own eps, bytes sent, accuracy of the released model on the
# public MNIST test split). Usage: scripts/smm-loopback.sh [ROUNDS] (default 20). Stops by itself.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-20}"
case "$rounds" in ''|*[!0-9]*) echo "smm-loopback: ROUNDS must be a positive integer, got '$rounds'" >&2; exit 2 ;; esac
. "$here/scripts/loopback-lib.sh" helmet-smm
"$here/helmet" certs --out "$dir/certs" --participants 3 >/dev/null
port=$(free_port)
cat > "$dir/session.yaml" <<YAML
name: smm-mnist
dataset: mnist-shards
algorithm: smm
parties: 3
min_contributors: 3
features: 784
labels: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
learner: {kind: mlp, hidden: [80]}
smm: {bits: 8, gamma: 64, sampling_rate: 0.04, expected_batch: 240, rounds: $rounds, learning_rate: 0.005}
privacy: {epsilon: 3.0, delta: 1.0e-5, honest_fraction: 1.0}
deadlines: {enrolment_seconds: 120, round_seconds: 60}
listen: 127.0.0.1:$port
tls: {certificate: certs/coordinator.pem, key: certs/coordinator-key.pem, ca: certs/ca.pem}
budget: {epsilon: 3, delta: 1.0e-5}
YAML
SECONDS=0
timeout 900 "$here/helmet" coordinator --config "$dir/session.yaml" --json -o "$dir/model.json" \
    >"$dir/coordinator.json" 2>"$dir/coordinator.log" &
coordinator=$!
pids+=("$coordinator")
parts=()
for k in 1 2 3; do
  timeout 900 "$here/helmet" participant --coordinator "127.0.0.1:$port" --data mnist --shard "$k/3" \
      --shard-size 2000 --tls-dir "$dir/certs" --name "participant-$k" --ledger "$dir/ledger-$k.json" --min-contributors 3 \
      --honest-fraction 1 --max-epsilon 3 --learners mlp --test builtin --json \
      >"$dir/participant-$k.json" 2>"$dir/participant-$k.log" &
  parts+=($!)
  pids+=($!)
done
status=0
for p in "${parts[@]}"; do wait "$p" || status=$?; done
wait "$coordinator" || status=$?
took=$SECONDS
echo "coordinator:"
cat "$dir/coordinator.json"
for k in 1 2 3; do echo "participant-$k:"; cat "$dir/participant-$k.json"; done
echo "session wall time (coordinator start to last exit): $took s"
if [ "$status" != 0 ]; then
  echo "smm-loopback: a process failed (exit $status); logs:" >&2
  tail -n 20 "$dir"/*.log >&2
fi
exit "$status"
