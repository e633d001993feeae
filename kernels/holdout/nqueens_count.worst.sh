#!/bin/sh
# nqueens_count.worst.sh WARPHUNT OUTDIR -- hand-made worst input (run from /work/main).
# n = 10, k = 4 (fixed by the spec).  Of the 10^4 prefixes, 1400 are valid; the
# backtracking loop below them runs 1..147 iterations (counted offline by a C
# copy of the loop).  The lanes of a warp run the loop in lock step, one event
# (pop / solution / push) per lane per iteration, so a warp costs its longest
# lane's iterations times the union of the branch sides its lanes take.  Kept:
# every thread t takes the (t mod 8)-th of the 8 longest prefixes (147, 147,
# 132, 132, 130, 130, 126, 126 iterations), whose push/pop sequences differ, so
# both sides run in almost every iteration while the loop lasts 147.
# Candidates measured (sim, --reps 1), thread t takes entry t mod M of a list:
#   8 longest (kept)                          38710 cycles (same reversed)
#   10 / 12 / 16 / 32 / 64 longest            38634 / 38540 / 38414 / 38461 / 38566
#   4 / 6 longest                             36428 / 37973
#   32 lanes picked greedily by a lock-step
#   side-coverage model (first 9 / 4 / 32)    38666 / 37132 / 38462
#   8 longest, each 4 lanes in a row          37571
#   the 2 longest (mirror pair) alternating   31292
#   the single longest (5 3 8 0) everywhere   25052 (no divergence: below random!)
#   random prefixes (--random 1/2/3)          30413 / 30537 / 29395
set -e
W=${1:?usage: $0 WARPHUNT OUTDIR}
OUT=${2:?usage: $0 WARPHUNT OUTDIR}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# threads = 32 blocks x 128 = 4096, k = 4 columns each
awk 'BEGIN {
  L[0] = "5 3 8 0"; L[1] = "4 6 1 9"; L[2] = "5 7 2 0"; L[3] = "4 2 7 9"
  L[4] = "5 8 2 0"; L[5] = "4 1 7 9"; L[6] = "7 4 1 8"; L[7] = "7 3 8 0"
  for (t = 0; t < 4096; t++) { split(L[t % 8], a, " "); for (r = 1; r <= 4; r++) print a[r] }
}' > "$TMP/prefix.csv"
"$W" input import kernels/holdout/nqueens_count.json -o "$OUT" --from prefix="$TMP/prefix.csv"
