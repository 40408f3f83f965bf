#!/usr/bin/env bash
# Runs one networked session (coordinator + 3 participants on loopback, iris data) with the
# coordinator's database in PostgreSQL instead of the embedded H2, and prints the ledger. Needs the
# PostgreSQL server binaries (Debian: postgresql-15); starts a throwaway cluster on a loopback port
# and stops it afterwards. Not part of `mvn verify`: CI machines need not have a PostgreSQL server.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$bin/initdb" ] || { echo "postgres-check: PostgreSQL server binaries not found (install postgresql)" >&2; exit 1; }
work="$(mktemp -d /tmp/helmet-pg.XXXXXX)"
port=54329
as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
chmod 755 "$work"; mkdir -p "$work/data"; [ "$(id -u)" = 0 ] && chown postgres "$work/data"
as "$bin/initdb" -D "$work/data" -A trust -U helmet >/dev/null
as "$bin/pg_ctl" -D "$work/data" -o "-p $port -k $work/data -c listen_addresses=127.0.0.1" -l "$work/data/log" -w start >/dev/null
trap 'as "$bin/pg_ctl" -D "$work/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
psql -h 127.0.0.1 -p $port -U helmet -d postgres -qc "CREATE DATABASE helmet" >/dev/null
cat > "$work/session.yaml" <<YAML
name: iris-postgres
dataset: iris
parties: 3
min_contributors: 3
features: 4
labels: [0, 1, 2]
learner: {kind: softmax, epochs: 5}
privacy: {epsilon: 1.0, delta: 1.0e-5, honest_fraction: 1.0}
deadlines: {enrolment_seconds: 60, round_seconds: 30}
listen: 127.0.0.1:7451
plaintext: true
database: {url: "jdbc:postgresql://127.0.0.1:$port/helmet", user: helmet, password: ""}
budget: {epsilon: 1.5, delta: 1.0e-4}
YAML
iris="$here/helmet-core/src/test/resources/dev/helmet/core/testdata/iris.csv"
"$here/helmet" coordinator --config "$work/session.yaml" --json > "$work/coordinator.json" 2> "$work/coordinator.log" &
sleep 3
for k in 1 2 3; do
  "$here/helmet" participant --coordinator 127.0.0.1:7451 --plaintext --data "$iris" --skip-rows 1 \
      --ledger "$work/ledger-$k.json" --min-contributors 3 --json > "$work/p$k.json" 2> "$work/p$k.log" &
done
wait
grep -h "\"status\"" "$work"/*.json || { for f in "$work"/*.log; do echo "== $f"; tail -n 5 "$f"; done; exit 1; }
echo "second session (would exceed the budget):"
"$here/helmet" coordinator --config "$work/session.yaml" 2>&1 | tail -1 || true
psql -h 127.0.0.1 -p $port -U helmet -d helmet -c "SELECT version, description FROM flyway_schema_history" \
    -c "SELECT session_id, dataset, epsilon, status FROM ledger" -c "SELECT id, status, stage, reason FROM sessions"
