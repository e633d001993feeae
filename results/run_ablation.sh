#!/bin/bash
# Ablation of gdivan's two departures from the paper, on the sim backend:
# stride tiling (--tiling) and segment mutations (--segment).
#
#   results/run_ablation.sh [KERNEL ...]   (default: the kernels whose worst
#                                           case is a relation between threads)
#
# For each kernel, gdivan runs with the four combinations, 3 seeds and 1000
# evaluations each (early stopping off), into results/ablation/<kernel>/;
# results/ablation/README.md gets the table (mean best over the seeds, with
# min-max, and the evaluations to reach it).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x ./warphunt ] || make warphunt ptx
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(gt_paths32 gt_gather gt_hash)
configs=("plain 0" "plain 0.5" "stride 0" "stride 0.5")
for k in "${kernels[@]}"; do
  rm -rf "results/ablation/$k"
  for c in "${configs[@]}"; do
    read -r tiling segment <<<"$c"
    for seed in 1 2 3; do
      out="results/ablation/$k/$tiling-seg$segment-s$seed"
      echo "== $k: --tiling $tiling --segment $segment --seed $seed" >&2
      ./warphunt hunt "kernels/$k.json" --backend sim --quiet --evals 1000 --patience 0 --final-reps 1 \
        --tiling "$tiling" --segment "$segment" --seed "$seed" -o "$out" --explore-time 60 > /dev/null
      rm -rf "$out/best" "$out/paths.json" "$out/checkpoint.bin" "$out/pool.bin" "$out"/plot.*
    done
  done
done
python3 - "${kernels[@]}" <<'EOF'
import json, sys, glob, os
rows = ["| kernel | plain, one-gene (the paper's) | plain, segments | stride, one-gene | stride, segments (default) |",
        "|---|---|---|---|---|"]
for k in sys.argv[1:]:
    cells = []
    for c in ("plain-seg0", "plain-seg0.5", "stride-seg0", "stride-seg0.5"):
        runs = [json.load(open(f)) for f in sorted(glob.glob(f"results/ablation/{k}/{c}-s*/run.json"))]
        best = [r["best"]["fitness"] for r in runs]
        ev = [r["best"]["eval"] for r in runs]
        cells.append(f"{sum(best)/len(best):.0f} ({min(best):.0f}-{max(best):.0f}; {sum(ev)/len(ev):.0f} ev)")
    rows.append(f"| `{k}` | " + " | ".join(cells) + " |")
os.makedirs("results/ablation", exist_ok=True)
with open("results/ablation/table.md", "w") as f:
    f.write("\n".join(rows) + "\n")
print("\n".join(rows))
EOF
