#!/bin/bash
# The README's explain example, regenerated: gt_hash's known worst input
# (all 2048 keys distinct, all on one home slot: the longest probe chains)
# explained against distinct home slots (probe chains of 1), on the sim.
# The two inputs are kept beside the report (inputs/), 8 KB each.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/explain
rm -rf "$out/inputs" "$out/gt_hash"
./warphunt input import kernels/gt_hash.json -o "$out/inputs/one-home" --set 'key=5+4096*(i+1)' --quiet
./warphunt input import kernels/gt_hash.json -o "$out/inputs/distinct" --set 'key=i+1' --quiet
./warphunt explain "$out/inputs/one-home" --against "$out/inputs/distinct" -o "$out/gt_hash" --top 8
