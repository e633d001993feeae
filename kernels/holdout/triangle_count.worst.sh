#!/bin/sh
# triangle_count.worst.sh WARPHUNT OUTDIR: the hand-made worst input of
# kernels/holdout/triangle_count.json (run from the repository root), for
# the spec's default launch: E = 8192 edges, N = 1024 nodes.
#
# Graph: two hubs (nodes 1022 and 1023) each adjacent to every lower node
# (row 1022 lists 0..1021, row 1023 lists 0..1022: 2045 edges); every other
# node l >= 1 lists the nodes just below it, l-1, l-2, ...: the top 96 of
# them l-8 .. l-1 (8 entries), the rest as many as the remaining edges
# allow (about 6 each).  All rows sorted, distinct, below their row.
# The lane of edge (hub, l) walks the hub's list from 0 up to l-1 before
# its own row's last entry matches it: l iterations, each a dependent pair
# of loads (the hub entry broadcast, the lane's own row entry a sector of
# its own), so the last warps of the hub rows (l ~ 990..1021) run ~1020
# latency-bound iterations, and the kernel's time is theirs.  Each such
# edge closes triangles, so those lanes also atomicAdd to the one counter.
#
# Candidates measured (sim, default launch 64 x 128, --reps 1):
#   random inputs (--random 1, 2, 3)                          19953 19192 19523
#   clique of the top 128 nodes + chain                         37310
#   clique of the bottom 128 nodes + chain                      37784
#   1 hub + rows l-1..l-7                                      260331
#   7 hubs + chain (rows {l-1}, a few {l-2,l-1})               273282
#   7 hubs, no chain (low rows empty but for the extra edges)  273275
#   6 / 4 / 3 hubs + rows l-1..l-k                    274053 275261 276304
#   2 hubs + rows l-1..l-6                                     277323
#   2 hubs, top 96 rows l-8..l-1 (8 entries) (kept)            278781
#   2 hubs, top 96 rows with 16 / 32 entries                   278737 278222
set -e
W=${1:?usage: triangle_count.worst.sh WARPHUNT OUTDIR}
OUT=${2:?usage: triangle_count.worst.sh WARPHUNT OUTDIR}
SPEC=kernels/holdout/triangle_count.json
D=$(mktemp -d "${TMPDIR:-/tmp}/tc_worst.XXXXXX")
trap 'rm -rf "$D"' EXIT
awk -v H=2 -v TOP=8 -v N=1024 -v E=8192 -v dir="$D" 'BEGIN {
  for (r = 0; r < N; r++) len[r] = 0
  m = 0; L = N - H
  for (l = 1; l < L; l++) { c[l, len[l]++] = l - 1; m++ }                 # chain
  for (h = L; h < N; h++) for (x = 0; x < h; x++) { c[h, len[h]++] = x; m++ } # hubs
  for (l = L - 1; l >= L - 96; l--) for (k = 2; k <= TOP && l - k >= 0; k++) { c[l, len[l]++] = l - k; m++ }
  for (k = 2; m < E && k < 64; k++)
    for (l = L - 1; m < E && l >= k; l--) if (len[l] < k) { c[l, len[l]++] = l - k; m++ }
  if (m != E) { print "triangle_count.worst.sh: " m " edges, not " E > "/dev/stderr"; exit 1 }
  s = 0; print "row_ptr" > (dir "/row_ptr.csv"); print "col" > (dir "/col.csv")
  for (r = 0; r < N; r++) {
    for (p = 1; p < len[r]; p++) {            # sort the row (insertion)
      x = c[r, p]; q = p - 1
      while (q >= 0 && c[r, q] > x) { c[r, q + 1] = c[r, q]; q-- }
      c[r, q + 1] = x
    }
    print s > (dir "/row_ptr.csv")
    for (k = 0; k < len[r]; k++) print c[r, k] > (dir "/col.csv")
    s += len[r]
  }
  print s > (dir "/row_ptr.csv")
}'
"$W" input import "$SPEC" -o "$OUT" --from "$D/row_ptr.csv" --from "$D/col.csv"
