#!/bin/sh
# pic_deposit.worst.sh WARPHUNT OUTDIR  (run from the repository root)
#
# Hand-made expert worst input of kernels/holdout/pic_deposit.json (128 x 256
# threads, 64 x 64 grid): every one of the 32768 particles in the same cell,
# so all 4 x 32768 float atomics of the grid go to the same 4 words of rho
# (32-way serialization inside every warp, and every warp contending on the
# same addresses).
#
# Candidates measured on the sim (cycles, --reps 1):
#   all particles on node (5,5)            x=5, y=5 (this script)    34931
#   all in cell (5,5) at (5.5,5.5)                                   34931
#   all in cell (63,63) at (63.5,63.5) (both wraps taken)            34931
#   all in cell (5,5), fractions varying per particle                34931
#   all at x=y=64 (wrapped to node 0), q=0                           34931
#   one column: x=0, y=i%64 (32 rows per warp, 64-way contention)     3628
#   lanes in different rows: x=(i/64)%64, y=i%64                      3338
#   one cell per warp: x=(i/32)%64, y=(i/2048)%64                     2661
#   sorted by cell: x=i%64, y=(i/64)%64                               2538
#   random inputs (--random 1, 2, 3)                          3311, 3327, 3317
set -e
W=${1:?usage: pic_deposit.worst.sh WARPHUNT OUTDIR}
OUT=${2:?usage: pic_deposit.worst.sh WARPHUNT OUTDIR}
"$W" input import kernels/holdout/pic_deposit.json -o "$OUT" \
    --set parts.x=5 --set parts.y=5 --set parts.q=1
