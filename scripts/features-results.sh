#!/usr/bin/env bash
# The feature-set results table of docs/results.md (Better features; docs/features.md): test accuracy of blind averaging
# with softmax and each feature set's tuned defaults, for MNIST and Fashion-MNIST, at several eps and
# two party shapes; continuous Gaussian noise summed in the clear (--protocol plain; the secure
# default gives about the same accuracy, see docs/results.md), DRAWS noise draws (default 5) on the
# same trained local models.
# Usage: scripts/features-results.sh > features-results.csv
set -euo pipefail
draws=${DRAWS:-5}
here="$(cd "$(dirname "$0")/.." && pwd)"
echo "dataset,features,parties,per_party,epsilon,draws,test_accuracy,sd,reference_accuracy"
row() { # dataset features parties per_party eps [reference]
  local ref=--no-reference
  [ "${6:-}" = ref ] && ref=--reference
  "$here/helmet" train --dataset "$1" --features "$2" --parties "$3" --per-party "$4" --epsilon "$5" \
    --protocol plain --noise-draws "$draws" "$ref" --quiet --json \
    | python3 -c 'import json,sys; j=json.load(sys.stdin); print("%s,%s,%s,%s,%s,%s,%.4f,%.4f,%s" % (sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], j["test_accuracy"], j.get("test_accuracy_sd", 0), ("%.4f" % j["reference_accuracy"]) if "reference_accuracy" in j else ""))' "$1" "$2" "$3" "$4" "$5" "$draws"
}
for dataset in mnist fashion-mnist; do
  for features in raw hog scatter; do
    row "$dataset" "$features" 1000 60 0.5 ref
    row "$dataset" "$features" 1000 60 1
    row "$dataset" "$features" 1000 60 3
    row "$dataset" "$features" 50 1200 0.5
  done
done
