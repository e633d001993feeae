#!/bin/sh
# collatz_steps.worst.sh WARPHUNT OUTDIR  (run from the repository root)
#
# Hand-made expert worst input of kernels/holdout/collatz_steps.json (64 x 256
# threads, start values in [1, 2^20], max_steps 1000): every thread gets
# n = 837,799, the start with the longest stopping time in [1, 2^20] (524
# steps; computed offline by a memoised Python walk over all 2^20 starts; the
# next are 626,331: 508, 939,497: 506, 704,623: 503; the mean is 131.9).  Every
# lane of every warp runs the loop 524 times; the cap of 1000 is never reached
# in the range, and the loop body is branch-free (nvcc makes the parity test
# a selp), so nothing else in the data changes the time.
#
# Candidates measured on the sim (cycles, --reps 1; a100-like profile):
#   837799 everywhere (524 steps, this script)                      24701
#   837799 in lane 0 of every warp, 1 elsewhere                     24701
#   837799 in every thread of block 0 only, 1 elsewhere             24701
#   the 32 longest starts, lane l of every warp the l-th (441-524)  24701
#   837799 in thread 0 only, 1 elsewhere                            21548
#   626331 everywhere (508 steps)                                   23997
#   1048576 = 2^20 everywhere (20 steps)                             2525
#   1 everywhere (0 steps; the known best)                           1637
#   random inputs (--random 1, 2, 3)                   21305, 20505, 19935
# The time is the longest stopping time in any block (blocks run one per SM,
# all at once; about 44 cycles a step): one lane per warp, or one block, on
# 837799 ties with the whole grid on it, since the sim times a warp
# instruction the same however many lanes are active.  Random inputs reach
# 0.81-0.86 of the worst: 16384 random starts include some of 440-470 steps.
set -e
W=${1:?usage: collatz_steps.worst.sh WARPHUNT OUTDIR}
OUT=${2:?usage: collatz_steps.worst.sh WARPHUNT OUTDIR}
"$W" input import kernels/holdout/collatz_steps.json -o "$OUT" --set n=837799
