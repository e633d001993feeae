#!/bin/sh
# kd_nearest.worst.sh WARPHUNT OUTDIR: the hand-made worst input of
# kernels/holdout/kd_nearest.json (run from the repository root).
#
# Tree: a chain (a degenerate k-d tree): internal nodes 0, 2, ..., 60, each
# with its leaf as left child (node i+1) and the next internal node as right
# child (node i+2); node 62 is the last leaf.  31 internal nodes, 32 leaves,
# each leaf full (LEAF = 8 points, disjoint ranges covering all 256 points).
# Every split is on x, at 484.5 + level (thresholds 484.5 .. 514.5).
# Queries: x = y = 484 + (t mod 32), so the 32 lanes of a warp fall on 32
# different sides-patterns of the thresholds: each lane takes the leaf
# first at the levels above its x and the chain first below, so at almost
# every step some lanes pop a leaf while others pop an internal node.
# Points: all at (0, 0), far from every query, so the best distance stays
# ~470000 and the plane bounds (< 1000) never prune: every thread visits
# all 63 nodes and tests all 256 points.
#
# Candidates measured (sim, default launch 64 x 128, --reps 1):
#   complete tree, splits 500, all queries (500,500)           141770
#   complete tree, queries alternating 499/500 per lane         141550
#   chain, all queries (500,500)                                141554
#   chain, queries alternating (499,499)/(500,500) per lane     197750
#   chain with dims x/y alternating, 4 query classes per warp   234641
#   chain, random splits/dims in [484,516], queries 484+lane    247353
#   chain, thresholds 484.5+level on x, queries 484+lane        255326  (kept)
#   points in decreasing distance instead of all at (0,0): same cycles
#   (random inputs: 3094, 2670, 4395)
set -e
W=${1:?usage: kd_nearest.worst.sh WARPHUNT OUTDIR}
OUT=${2:?usage: kd_nearest.worst.sh WARPHUNT OUTDIR}
SPEC=kernels/holdout/kd_nearest.json
D=$(mktemp -d "${TMPDIR:-/tmp}/kd_worst.XXXXXX")
trap 'rm -rf "$D"' EXIT
awk 'BEGIN { print "dim,split,left,right,start,count";
  for (i = 0; i < 63; i++) {
    if (i % 2 == 0 && i < 62) print "0," (484 + i / 2 + 0.5) "," (i + 1) "," (i + 2) ",0,0";
    else print "0,500,62,62," (int(i / 2) * 8) ",8" } }' > "$D/nodes.csv"
awk 'BEGIN { print "x,y"; for (j = 0; j < 256; j++) print "0,0" }' > "$D/points.csv"
# one query per thread: threads = 64 blocks x 128 (the spec's default launch)
awk 'BEGIN { print "x,y"; for (t = 0; t < 8192; t++) print (484 + t % 32) "," (484 + t % 32) }' > "$D/queries.csv"
"$W" input import "$SPEC" -o "$OUT" --from "$D/nodes.csv" --from "$D/points.csv" --from "$D/queries.csv"
