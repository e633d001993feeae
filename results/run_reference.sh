#!/bin/bash
# Re-run the committed reference comparisons on the sim backend.
#
#   results/run_reference.sh [KERNEL ...]     (default: every bundled kernel)
#
# Each kernel gets `warphunt compare` with the budget below, written to
# results/<kernel>/reference/ (replacing an earlier one).  Every kernel gets
# 5 seeds (the fewest with which the table's rank test can show p < 0.05):
# cheap kernels 1000 evaluations, the expensive ones (a third of a second
# or more per evaluation on the sim) 300, so that the whole set runs in
# about an hour and a half on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x ./warphunt ] || make warphunt ptx
expensive=" gt_bank nsichneu gt_paths32 gt_loop "
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
  for spec in kernels/*.json; do kernels+=("$(basename "$spec" .json)"); done
fi
for k in "${kernels[@]}"; do
  if [[ "$expensive" == *" $k "* ]]; then budget=(--evals 300 --seeds 5); else budget=(--evals 1000 --seeds 5); fi
  out="results/$k/reference"
  rm -rf "$out"
  echo "== $k: ${budget[*]}" >&2
  ./warphunt compare "kernels/$k.json" --backend sim --quiet "${budget[@]}" -o "$out" --explore-time 60
done
# Keep the committed set small: every run's run.json, history.csv and plot;
# paths.json and best/ only for the first gdivan run (and paths.json only
# when under 3 MB).  Everything dropped is reproducible from the seed.
for k in "${kernels[@]}"; do
  for d in results/$k/reference/*/; do
    case "$d" in */gdivan-s1/) ;; *) rm -rf "$d/best" "$d/paths.json" ;; esac
  done
  find "results/$k/reference" -name paths.json -size +3M -delete
done
