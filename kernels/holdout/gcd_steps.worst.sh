#!/bin/sh
# gcd_steps.worst.sh WARPHUNT OUTDIR -- the hand-made expert worst input
# of kernels/holdout/gcd_steps.json (run from the repository root).
#
# Every thread gets the consecutive Fibonacci pair (a, b) = (F46, F47) =
# (1836311903, 2971215073), the largest that fits in u32, given the small
# one first: the first step only swaps them (a % b = a), then every
# quotient is 1 and the remainders fall through F45, F44, ... 1, 0 (Lame's
# worst case).  46 steps, the most any pair of u32 can take, on every lane
# of every warp: no divergence.
#
# Candidates measured on the sim (cycles, default launch 64 x 256, --reps 1;
# steps = trip count of the remainder loop on every lane):
#   (F46, F47): 46 steps, small first (this script)            5098  <- kept
#   (F46, F47) on lane 0 of each warp, (1, 1) on the others    5098
#   (F47, F46): 45 steps                                       5026
#   (F45, F46): 45 steps (44 + the swap)                       5026
#   (F30, F31) = (832040, 1346269): 30 steps                   3946
#   (2^32-1, 2^32-2): the largest values, 2 steps              1930
#   (1, 1): 1 step, the known best                             1850
#   random --random 1/2/3                        4066 / 4025 / 4007
# About 72 cycles a step (the rem.u32's latency chain); random pairs take
# about 19 steps on average and their warps' slowest lane about 26-32.
# The sim's cost of a warp instruction does not depend on how many lanes
# are active, so one Fibonacci lane per warp ties 32 of them.
set -e
WH=${1:?usage: gcd_steps.worst.sh WARPHUNT OUTDIR}
OUT=${2:?usage: gcd_steps.worst.sh WARPHUNT OUTDIR}
"$WH" input import kernels/holdout/gcd_steps.json -o "$OUT" \
    --set a_in=1836311903 --set b_in=2971215073
