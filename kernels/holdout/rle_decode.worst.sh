#!/bin/sh
# rle_decode.worst.sh WARPHUNT OUTDIR -- the hand-made expert worst input
# of kernels/holdout/rle_decode.json (run from the repository root).
#
# All NRUNS runs in the last thread's segment (seg_start = 0 up to the
# last offset, which is NRUNS): one thread decodes the whole stream
# serially, every other thread exits at once.  Lengths 7, 7, 7, 11, ...
# (average 8, so the scan's total is exactly OUTCAP): nvcc unrolls the
# inner loop by 4 and peels the remainder as a chain of branches, so every
# run ending in a remainder of 3 costs the most per element.  run_out is
# computed from the lengths by `input import` (prefix_sum_of).
#
# Candidates tried (sim, default launch 64 x 128, --reps 1), every run in
# one segment unless said otherwise:
#   lengths 7,7,7,11 (all len%4 = 3)      11736509 cycles  <- kept
#   lengths 2,14 alternating              11703911
#   lengths 1,15 alternating / 3,13       11572839 / 11572847
#   lengths 15 then 1 (halves)            11572661
#   lengths all 7 (budget not spent)      11572669
#   lengths all 8 (last or first segment) 11081351 / 11081347
#   lengths all 3                         10589629
#   lengths all 1                         10261941
#   lengths 8, the runs in lane 0 of every warp (4*32 runs each)  44840
#   lengths 8, 4 runs per segment (uniform)                        4109
#   random --random 1/2/3                 14446 / 13289 / 16897
# The loads of a run (value, length, run_out: ~310 cycles a run on the sim
# for one lone thread) dominate; the lengths add up to ~15 %.
set -e
WH=${1:?usage: rle_decode.worst.sh WARPHUNT OUTDIR}
OUT=${2:?usage: rle_decode.worst.sh WARPHUNT OUTDIR}
"$WH" input import kernels/holdout/rle_decode.json -o "$OUT" \
    --set 'values=i' \
    --set 'lengths=7+4*(1-min(i%4,1))' \
    --set 'seg_start=(i/threads)*NRUNS'
