#!/bin/sh
# insertion_sort_rows.worst.sh WARPHUNT OUTDIR -- the hand-made worst input
# of kernels/holdout/insertion_sort_rows.json (run from the repository root).
#
# Row t (thread t, lane l = t % 32) with c = l % 12: its first c keys are
# 0, 1, ..., c-1 (increasing, small) and the rest decrease from the top of
# u32 (4294967295 - position).  Element i >= c then has exactly c smaller
# keys before it and shifts i - c places; lanes 0, 12 and 24 of every warp
# hold fully reversed rows (c = 0: 496 shifts, the most), so each warp
# still runs the longest inner loop at every i, while its other lanes
# leave that loop at 12 staggered steps.  The sim charges such divergent
# warps more memory stall on the local loads of the compare chain than it
# charges fully reversed (converged) warps: this beats the expert's first
# guess, reversed rows everywhere, which the sim puts below random rows.
#
# Candidates measured on the sim (cycles, default profile, default launch
# 64 x 256, --reps 1; p = i % 32 the position in the row, l = (i/32) % 32
# the lane; "rank-c" rows are p < c ? p : 4294967295 - p):
#   rank-c, c = l % 12 (this script)                      35169  <- kept
#   rank-c, c = l % 12, large keys 1000 - p instead         35169
#   rank-c, c = l % 10 / % 9 / % 8 / % 20 / % 24          34894 / 34800 / 34688 / 34743 / 34703
#   rank-c, c = l % 11 / % 13 / % 14 / % 15 / % 16        34717 / 34698 / 34654 / 34643 / 34500
#   rank-c, c = l % 2..7                                  34420 34440 34463 34397 34511 34547
#   rank-c, c = l (0..31)                                 34574
#   rank-c, c = 1 + l % 12 (no reversed lane)             34693
#   rank-c, c = (t + t/32) % 12, t the thread (per warp)   34829
#   rank-c, c = t % 12 (the pattern moves 8 lanes a warp)  34760
#   rank-c, c = (t + t/256) % 12 (shifted per block)      34569
#   rank-c, c = 2 * (l % 12)                              34571
#   rank-c, c = (l / 4) % 8 (groups of 4 lanes alike)     34425
#   reversed rows, every lane (31 - p): the expert's guess 34377
#   reversed rows on lane 0 only, other lanes sorted      34407
#   reversed rows on even lanes, odd lanes sorted         34420
#   reversed rows in warp 0 only, all else sorted         31953
#   reversed in pairs ((31 - p) / 2: equal neighbours)    34263
#   LCG pseudo-random rows; with lane 0 reversed          33865; 34519
#   alternating 1,0,1,0 / 0,1,0,1                         16931 / 16172
#   sorted but the smallest key last (31 shifts)          11479
#   sorted rows, or all keys equal: the best              9872
#   random --random 1/2/3                    34385 / 34497 / 34447
# With --profile harness/profiles/nvidia_h200.json: reversed 38890, random
# 38998 / 38952 / 38995, this script's 39040, c = l % 8 or % 10 about 39140.
# The data-dependent part is the inner loop (9872 -> ~34400 cycles), but
# random rows already give each warp nearly the longest shift at every i,
# so the worst is only about 2 % above random.
set -e
WH=${1:?usage: insertion_sort_rows.worst.sh WARPHUNT OUTDIR}
OUT=${2:?usage: insertion_sort_rows.worst.sh WARPHUNT OUTDIR}
"$WH" input import kernels/holdout/insertion_sort_rows.json -o "$OUT" \
    --set 'keys=i%32 < (i/32)%32%12 ? i%32 : 4294967295-i%32'
