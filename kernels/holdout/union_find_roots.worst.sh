#!/bin/sh
# union_find_roots.worst.sh WARPHUNT OUTDIR -- the hand-made worst input of
# kernels/holdout/union_find_roots.json (run from the repository root).
#
# The forest is one chain 0 <- 1 <- 2 <- ... <- N-1 (parent[v] = v - 1,
# node 0 the root): depth N - 1 = 65535, the deepest parent[v] <= v allows.
# Thread 0 queries its tail N-1; every other thread queries the root 0
# (two loads, then done).  Thread 0 walks the chain alone: with path
# halving it takes ceil(65535 / 2) = 32768 trips of two dependent loads and
# a store, and no other walker halves the path ahead of it.
#
# Candidates measured on the sim (cycles, default launch 64 x 256, N = 2^16,
# --reps 1; "chain" = parent[v] = v - 1):
#   chain, thread 0 at the tail N-1, the rest at the root 0 (this script)  16033562  <- kept
#   chain, warp 0 (32 lanes) at N-1, the rest at 0                         16033562
#   chain, block 0 (8 warps) at N-1, the rest at 0                         14252873
#   chain, EVERY query at N-1 (the expert's first guess)                    1455076
#   chain, lane 0 of every warp at N-1, the rest at 0                       1455076
#   chain, lanes at N-1-8*lane (a sector each), every warp                  1405558
#   chain, queries spread: N-1-i                                            1111826
#   chain, queries spread: 4i+3                                                7561
#   chains with stride s (parent[v] = v-s), thread 0 at the tail N-s:
#     s = 2: 9037594   s = 4: 5539610   s = 8: 3790618   s = 16: 1896099
#     (a DRAM miss on every hop from s = 8, but s times shorter)
#   one chain of 128 nodes per warp, the warp's lanes at its tail           33217
#   random forest (--random 1/2), every query at N-1               3797 / 4224
#   random inputs (measure --random 1/2/3)                  5162 / 5111 / 4927
#   every node a root, queries 0 (the best found)                            2079
#   every node a root, queries i                                             2090
# With many walkers on one path the walks leapfrog: one that runs behind
# another finds the path halved, moves 4 levels a trip and overtakes it;
# 512 warps on the tail average about 3400 trips, not 32768.  So the
# longest input has one walker per long path, and one path of all N nodes.
set -e
WH=${1:?usage: union_find_roots.worst.sh WARPHUNT OUTDIR}
OUT=${2:?usage: union_find_roots.worst.sh WARPHUNT OUTDIR}
"$WH" input import kernels/holdout/union_find_roots.json -o "$OUT" \
    --set 'parent=i==0 ? 0 : i-1' --set 'queries=i==0 ? N-1 : 0'
