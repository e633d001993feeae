/*
 * binary_search (corpus, searching): each thread looks up one query in a
 * sorted array of keys by textbook binary search with an early exit on
 * equality (Knuth's Algorithm B; the per-thread search of many GPU codes,
 * e.g. Rodinia's b+tree leaf search and SHOC-style bulk searches),
 * writing the index found or -1.
 *
 * Launch: grid 64 x block 256 = 16384 threads (1-D), one query each; the
 * array holds N = 2^16 - 1 keys (a perfect search tree: 16 levels).
 *
 * Inputs: queries (any i32, one per thread) and keys (any sorted i32
 * array: "structure": "sorted").  Output: found (the index).
 *
 * Where the time depends on the data: the loop runs once per level walked
 * until the query's key is met: 1 iteration for the root's key
 * (keys[32767]), 16 for the 2^15 leaves (the even indices); a warp issues
 * its deepest lane, and every iteration's load keys[mid] touches one
 * 32-byte sector per distinct sector among the active lanes (all lanes on
 * one address at the root, up to 2^(s-1) distinct nodes at level s).
 *
 * Known worst (expert): the first guess, every query a leaf (16
 * iterations for every lane) with the lanes of a warp in distinct
 * subtrees, is not the sim's worst: a warp whose lanes leave the loop at
 * different iterations pays for every divergent exit of the early-exit
 * branch, like the staircase of spmv_scalar.  The reference,
 * "staircase-spread": lane l of a warp queries a node at depth
 * 16 - (l mod 16) (so at least one lane walks all 16 levels and a lane
 * leaves at every iteration), its path bits putting lane l in subtree l of
 * level 6 and neighbouring warps far apart (bit-reversed warp number).
 * The hand-built inputs place the queries in the perfect search tree of
 * keys[i] = i.  Measured on the sim (bench_corpus --inputs-only):
 * staircase-spread 7344 cycles; the same depths with random paths 7116;
 * random leaves 6922; leaves with the spread paths 6438; every lane on
 * one path (every query 0, the leftmost leaf) 6072; the longest of 5
 * random inputs 7076 (random sorted keys over the i32 range, random
 * queries: nearly all miss, after 16 iterations; until session 26, with
 * the keys fixed to iota and the queries in [0, N - 1], 7048, as random
 * queries mix depths).
 * Known best: every query the root's key (one iteration, one address):
 * 1658 cycles.
 *
 * Spec gap: none (since session 26; before, the spec could not say
 * "sorted", so the keys were fixed to iota and the queries kept in
 * [0, N - 1]).  The symbolic stage does not assume the order of 65535 keys
 * (more than SX_STRUCTURE_MAX): its atoms may break it, and every input
 * the search measures is sorted.
 */
extern "C" __global__ void binary_search(const int *queries, const int *keys, int *found, int n)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int q = queries[tid];
    int lo = 0, hi = n - 1, at = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int k = keys[mid];
        if (k == q) {
            at = mid;
            break;
        }
        if (k < q)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    found[tid] = at;
}
