#!/bin/sh
# radix_scatter.worst.sh WARPHUNT OUTDIR -- the hand-made expert worst input
# of kernels/holdout/radix_scatter.json (run from the repository root).
#
# Every key has digit 0 at every shift (keys = 0, shift = 0): each shared
# atomic of a warp is a 32-way conflict on one word, and the whole grid's
# 65536 global atomicAdds go to one counter (digit_count[0]).
#
# Candidates tried (sim, default launch 64 x 256, shift 0, --reps 1):
#   keys = 0                 69161 cycles   <- kept (one digit, whole grid)
#   keys = (i%16)*16         69161          (digit 0 at shift 0: the same)
#   keys = i%2               36569          (two counters share the grid)
#   keys = (i/256)%16         8848          (a digit per block row of 256)
#   keys = (i/32)%16          8650          (a digit per warp: 16 counters)
#   keys = i%16               8528          (16 digits in every warp)
#   keys = (i/1024)%16        7772          (a digit per block)
#   random --random 1/2/3    8616 / 8580 / 8622
# On the sim the cost is the number of atomics on the most-used counter
# over the whole grid, not the conflicts inside a warp.
set -e
WH=${1:?usage: radix_scatter.worst.sh WARPHUNT OUTDIR}
OUT=${2:?usage: radix_scatter.worst.sh WARPHUNT OUTDIR}
"$WH" input import kernels/holdout/radix_scatter.json -o "$OUT" \
    --set keys=0 --set shift=0
