#!/usr/bin/env bash
# Chooses the learner defaults of a feature set on a validation split of the MNIST training set
# (never the test set): 1000 parties x 50 images from the 50,400 training images left after a
# stratified holdout of 16 % (9,600 images) to evaluate on; softmax, eps 0.5, DRAWS noise draws
# (default 3) per setting, summed in the clear (the noise is the same; it is faster).
# Usage: scripts/tune-features.sh scatter|hog|raw [LAMBDA,R,EPOCHS,BATCH ...] > results.csv
# Without settings it runs the grid Lambda in {0.1, 0.3, 1} x R in {1, 3, 10}, 100 epochs, batch 20.
set -euo pipefail
features=${1:?usage: tune-features.sh scatter|hog|raw [LAMBDA,R,EPOCHS,BATCH ...]}
shift
draws=${DRAWS:-3}
here="$(cd "$(dirname "$0")/.." && pwd)"
settings=("$@")
if [ ${#settings[@]} -eq 0 ]; then
  for lambda in 0.1 0.3 1; do
    for radius in 1 3 10; do
      settings+=("$lambda,$radius,100,20")
    done
  done
fi
echo "features,lambda,radius,epochs,batch,draws,validation_accuracy,sd"
for s in "${settings[@]}"; do
  IFS=, read -r lambda radius epochs batch <<< "$s"
  acc=$("$here/helmet" train --dataset mnist --features "$features" --parties 1000 --per-party 50 \
    --validation-fraction 0.16 --lambda "$lambda" --radius "$radius" --epochs "$epochs" --batch-size "$batch" \
    --epsilon 0.5 --protocol plain --noise-draws "$draws" --no-reference --seed 1 --quiet --json \
    | python3 -c 'import json,sys; j=json.load(sys.stdin); print("%.4f,%.4f" % (j["test_accuracy"], j.get("test_accuracy_sd", 0)))')
  echo "$features,$lambda,$radius,$epochs,$batch,$draws,$acc"
done
