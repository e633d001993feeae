#!/bin/sh
# edit_distance.worst.sh WARPHUNT OUTDIR -- hand-made worst input (run from /work/main).
# Full DP for every lane: qlen = band = threshold = lengths = MAXLEN (16), so no
# length filter, no band clipping, no early exit (a row minimum is <= 16); every
# cell a mismatch (query all 0, candidates all 1), so the 3-way-min side of the
# per-cell branch runs everywhere.
# Candidates measured (sim, --reps 1), all with qlen=band=threshold=lengths=16:
#   cands all 1 (all mismatch)                    87489 cycles  <- kept
#   lanes alternate 0/1 ((i/16)%2), skewed pattern,
#   lane%4 symbols, query 3 + cands 1             87489 (the branch is an if
#                                                 without else: divergence costs
#                                                 nothing beyond all-mismatch)
#   random symbols (--random 5)                   87489
#   cands = i%2 (per-position alternate)          85057
#   cands all 0 (all match)                       82625
#   all mismatch with band 8                      69793; lengths 15: 82656;
#   threshold 0 (early exit at row 1)              6806
set -e
W=${1:?usage: $0 WARPHUNT OUTDIR}
OUT=${2:?usage: $0 WARPHUNT OUTDIR}
"$W" input import kernels/holdout/edit_distance.json -o "$OUT" \
  --set qlen=16 --set band=16 --set threshold=16 \
  --set lengths=16 --set query=0 --set cands=1
