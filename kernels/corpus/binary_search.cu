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
 * Inputs: queries (i32 in [0, N - 1], one per thread); keys is fixed
 * (iota: keys[i] = i, see the spec gap).  Output: found (the index).
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
 * Measured on the sim (bench_corpus --inputs-only): staircase-spread 7344
 * cycles; the same depths with random paths 7116; random leaves 6922;
 * leaves with the spread paths 6438; the longest of 5 random inputs 7048
 * (random queries already mix depths: half are leaves, a quarter one
 * level up, ...): random testing comes within 4 % of the worst known.
 * Known best: every query the root's key (one iteration, one address):
 * 1658 cycles.
 *
 * Spec gap: the real kernel searches any sorted array; the spec cannot
 * state "sorted", so the array is fixed (iota) and only the queries are
 * searched.  Queries outside the keys (misses) are left out of the range:
 * with iota keys a miss lies beyond an end and walks the tree's edge, all
 * lanes on one path, which is cheaper than a leaf.
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
