#!/bin/bash
# Re-run the committed reference comparisons.
#
#   results/run_reference.sh [KERNEL ...]     (default: every bundled kernel)
#
# Each kernel gets `warphunt compare` with the budget below, written to
# results/<kernel>/reference/ (replacing an earlier one).  Every kernel gets
# 5 seeds (the fewest with which the table's rank test can show p < 0.05):
# cheap kernels 1000 evaluations, the expensive ones (a third of a second
# or more per evaluation on the sim) 300, so that the whole set runs in
# about an hour and a half on one core.
#
# Environment, for the same runs on a GPU (bench/gpu.sh --reference):
#   BACKEND   sim (default) or cuda
#   WARPHUNT  the binary (default ./warphunt, built if missing)
#   OUT_BASE  write OUT_BASE/<kernel>/ instead of results/<kernel>/reference/
# The budgets, seeds and symbolic stage are the same on every backend, and
# the explorations come from results/<kernel>/.cache when it holds them, so
# that a GPU table compares with the sim's run for run.
set -euo pipefail
cd "$(dirname "$0")/.."
BACKEND=${BACKEND:-sim}
WARPHUNT=${WARPHUNT:-./warphunt}
[ -x "$WARPHUNT" ] || make warphunt ptx
expensive=" gt_bank nsichneu gt_paths32 gt_loop "
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
  for spec in kernels/*.json; do kernels+=("$(basename "$spec" .json)"); done
fi
out_of() { if [ -n "${OUT_BASE:-}" ]; then echo "$OUT_BASE/$1"; else echo "results/$1/reference"; fi; }
for k in "${kernels[@]}"; do
  if [[ "$expensive" == *" $k "* ]]; then budget=(--evals 300 --seeds 5); else budget=(--evals 1000 --seeds 5); fi
  out=$(out_of "$k")
  rm -rf "$out"
  echo "== $k on $BACKEND: ${budget[*]}" >&2
  "$WARPHUNT" compare "kernels/$k.json" --backend "$BACKEND" --quiet "${budget[@]}" -o "$out" --explore-time 60
done
# Keep the committed set small: every run's run.json, history.csv and plot;
# paths.json and best/ only for the first gdivan run (and paths.json only
# when under 3 MB).  Everything dropped is reproducible from the seed (on
# the sim; on a GPU up to measurement noise).
for k in "${kernels[@]}"; do
  out=$(out_of "$k")
  for d in "$out"/*/; do
    case "$d" in */gdivan-s1/) ;; *) rm -rf "$d/best" "$d/paths.json" ;; esac
  done
  find "$out" -name paths.json -size +3M -delete
done
