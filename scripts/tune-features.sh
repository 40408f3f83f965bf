#!/usr/bin/env bash
# Chooses the learner defaults of a feature set on a validation split of the MNIST training set
# (never the test set): 1000 parties x 50 images from the 50,400 training images left after a
# stratified holdout of 16 % (9,600 images) to evaluate on; softmax, eps 0.5, 3 noise draws per setting.
# Usage: scripts/tune-features.sh scatter|hog|raw [dataset] > results.csv
set -euo pipefail
features=${1:?usage: tune-features.sh scatter|hog|raw [dataset]}
dataset=${2:-mnist}
here="$(cd "$(dirname "$0")/.." && pwd)"
run() { # lambda radius epochs batch
  "$here/helmet" train --dataset "$dataset" --features "$features" --parties 1000 --per-party 50 \
    --validation-fraction 0.16 --lambda "$1" --radius "$2" --epochs "$3" --batch-size "$4" \
    --epsilon 0.5 --protocol plain --noise-draws 3 --no-reference --seed 1 --quiet --json 2>/dev/null \
    | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["test_accuracy"])'
}
echo "features,dataset,lambda,radius,epochs,batch,validation_accuracy"
for lambda in 0.1 0.3 1; do
  for radius in 1 3 10; do
    echo "$features,$dataset,$lambda,$radius,100,20,$(run "$lambda" "$radius" 100 20)"
  done
done
