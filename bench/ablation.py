#!/usr/bin/env python3
"""ablation.py -- set several bench_corpus tables (corpus.json files) side by side.

    bench/ablation.py LABEL=FILE.json [LABEL=FILE.json ...] > TABLE.md

Each FILE is the --json output of one bench_corpus campaign (the same
budget and seeds); LABEL names the variant of the search it measured.  Per
kernel: gdivan's re-measured best as a fraction of the known worst (mean
over seeds), per variant, then random testing's and random-ga's from the
last file; and per variant the summary counts bench_corpus printed.
"""
import json
import statistics
import sys


def fractions(kernel, strategy):
    runs = kernel.get("runs", {}).get(strategy, [])
    vals = [r["remeasured"] / kernel["known_worst"] for r in runs if r.get("ok")]
    return statistics.mean(vals) if vals else None


def cell(v):
    return "-" if v is None else "%.3f" % v


def main(args):
    if not args or any("=" not in a for a in args):
        sys.stderr.write(__doc__)
        return 2
    variants = []
    for a in args:
        label, path = a.split("=", 1)
        with open(path) as f:
            variants.append((label, json.load(f)))
    last = variants[-1][1]
    names = [k["kernel"] for k in last["kernels"]]
    by_name = [{k["kernel"]: k for k in v["kernels"]} for _, v in variants]
    head = ["kernel"] + ["gdivan: " + l for l, _ in variants] + ["random-ga", "random"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for n in names:
        row = [n]
        for table in by_name:
            row.append(cell(fractions(table[n], "gdivan")) if n in table else "not run")
        row.append(cell(fractions(by_name[-1][n], "random-ga")))
        row.append(cell(fractions(by_name[-1][n], "random")))
        print("| " + " | ".join(row) + " |")
    print()
    for label, v in variants:
        s = v.get("summary", {})
        print("- %s: %s" % (label, ", ".join("%s %s" % (k, s[k]) for k in sorted(s))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
