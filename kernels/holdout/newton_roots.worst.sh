#!/bin/sh
# newton_roots.worst.sh WARPHUNT OUTDIR  (run from the repository root)
#
# Hand-made expert worst input of kernels/holdout/newton_roots.json (32 x 256
# threads, max_iter 64): every thread gets the classic Newton 2-cycle
# p(x) = x^3 - 2x + 2 from x0 = 0 (iterates 0, 1, 0, 1, ...), so every lane
# of every warp runs all 64 iterations of the loop with no early exit and
# no divergence.
#
# Candidates measured on the sim (cycles, --reps 1):
#   x^3 - 2x + 2 from 0 (2-cycle, this script)                     10243
#   x^4 + 1 from 1 (no real root)                                  10243
#   x^2 + 1 from 0.5 (no real root)                                10243
#   0.001 x^4 + 10 from 3 (no real root, slow wandering)           10243
#   x - 1 from 0 (converges in 1 step; a lower bound)               2086
#   random inputs (--random 1, 2, 3)                  10243, 10243, 10243
# Every non-converging candidate ties with random inputs: with coefficients
# and starts in [-10, 10] a random warp already holds at least one lane that
# runs to max_iter, and the sim's cost of a warp instruction does not depend
# on how many lanes are active (random: 12.4 active lanes per instruction,
# this input 32.0, the same cycles).
set -e
W=${1:?usage: newton_roots.worst.sh WARPHUNT OUTDIR}
OUT=${2:?usage: newton_roots.worst.sh WARPHUNT OUTDIR}
N=8192   # threads of the spec's launch: G * 256 = 32 * 256
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# coef: 5 per thread, c0 c1 c2 c3 c4 (p = c0 + c1 x + ... + c4 x^4)
awk -v n=$N 'BEGIN { for (i = 0; i < n; i++) printf "2\n-2\n0\n1\n0\n" }' > "$TMP/coef.csv"
awk -v n=$N 'BEGIN { for (i = 0; i < n; i++) print 0 }' > "$TMP/x0.csv"
"$W" input import kernels/holdout/newton_roots.json -o "$OUT" \
    --from "$TMP/coef.csv" --from "$TMP/x0.csv"
