#!/usr/bin/env python3
# The compact tables of the smm-fl sweeps (docs/experiments/<preset>/report-notes.md; |B| or gamma / m, at eps 3), from the
# results.csv that `helmet experiment run --preset smm-fl-batch|smm-fl-gamma` writes: per b a row,
# per mechanism a column of "v1 / v2 / ..." (one value per swept setting, in increasing order), each
# the mean over the repeats of the validation-selected test accuracy in %, rounded half up to one
# decimal ("*" marks a single repeat, "-" a setting not run yet); then central DP-SGD's row.
#
# Usage (from the repository root):
#   python3 scripts/smm-sweep-table.py docs/experiments/smm-fl-gamma-mnist/results.csv
import csv
import statistics
import sys
from decimal import Decimal, ROUND_HALF_UP


def one_decimal(x):
    return str(Decimal(repr(x)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def split(variant):  # "smm-b8@0.25" -> ("smm-b8", 0.25)
    name, _, setting = variant.partition("@")
    return name, float(setting)


def main(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["selection"] == "validation"]
    settings = sorted({split(r["variant"])[1] for r in rows})

    def mean(name, s):
        acc = [float(r["test_acc"]) for r in rows if split(r["variant"]) == (name, s)]
        if not acc:
            return "-"
        return one_decimal(100 * statistics.mean(acc)) + ("" if len(acc) > 1 else "*")

    print("| b | SMM | DDG | Skellam |\n|---|---|---|---|")
    for b in (6, 8, 10):
        cols = (" / ".join(mean("%s-b%d" % (m, b), s) for s in settings) for m in ("smm", "ddg", "skellam"))
        print("| %d | %s |" % (b, " | ".join(cols)))
    print("central DP-SGD:", " / ".join(mean("dp-sgd", s) for s in settings),
          "  (settings: " + ", ".join("%g" % s for s in settings) + "; * = 1 repeat)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: smm-sweep-table.py RESULTS_CSV")
    main(sys.argv[1])
