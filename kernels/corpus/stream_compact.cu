/*
 * stream_compact (corpus, reduction/compaction): stream compaction with
 * warp-aggregated atomics, the pattern of NVIDIA's "CUDA Pro Tip: Optimized
 * Filtering with Warp-Aggregated Atomics" and of CUB's/Thrust's one-pass
 * select for small inputs: each thread tests its element against a
 * data-dependent predicate (here: positive), the warp ballots the results,
 * the lowest passing lane reserves popc(ballot) slots of the output with
 * one global atomicAdd on the counter, broadcasts the base with a shuffle,
 * and every passing lane stores at base + popc(ballot & lanemask_lt); a
 * kept element is first run through a short mixing loop (its work: v % 16
 * rounds of an integer hash), as a filter that transforms what it keeps.
 *
 * Launch: grid 64 x block 256 = 16384 threads (1-D), one element each.
 *
 * Inputs: src (i32, [-1000, 1000], one per thread).  Outputs: dst (the
 * kept elements, in an order that depends on the order the GPU serves the
 * counter's atomics) and nres (the count).
 *
 * Where the time depends on the data: a warp with no passing lane skips
 * the atomic and the stores; otherwise it pays one atomic on the single
 * counter (every warp of the grid queues on the same word), the shuffle,
 * a store of popc(ballot) consecutive words (1-5 sectors) and the mixing
 * loop, which runs max over the passing lanes of v % 16 rounds.
 *
 * Known worst (expert): every element passes with 15 rounds of work
 * ("all-pass-max-work", v = 991 = 15 + 16 * 61): every warp does the
 * atomic, the loop's 15 rounds and a 4-sector store.  Candidates:
 * "alternating-max-work" (even lanes pass with 15 rounds, odd lanes fail:
 * the same atomic and loop, half the stored sectors, plus the divergence),
 * "one-lane-max-work" (lane 0 alone passes with 15 rounds) and "all-pass"
 * (v = 16: every lane passes with no work).  Measured on the sim
 * (bench_corpus --inputs-only): all-pass-max-work 3159 cycles (the
 * reference), alternating-max-work 3159, one-lane-max-work 3152, all-pass
 * 2495, and the longest of 5 random inputs 3157: random testing ties the
 * worst.  The launch is latency bound (512 warps, ~5 per SM), so the time
 * is that of the slowest warp, and one passing lane with 15 rounds in a
 * warp costs as much as 32 (the loop runs the lanes' maximum; the store of
 * 1 or 4 sectors and the one atomic per warp barely differ).  All-pass is
 * the worst of the pass patterns only through its stores; none-pass is far
 * the cheapest.  Known best: nothing passes (v = -1000): no atomics, no
 * stores.
 *
 * Spec gap: none (the predicate and the work are on the element's value,
 * which the range covers).
 */
extern "C" __global__ void stream_compact(int *dst, int *nres, const int *src, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= n)
        return;
    int v = src[i];
    bool keep = v > 0;

    unsigned int active = __activemask();
    unsigned int ballot = __ballot_sync(active, keep);
    int lane = threadIdx.x & 31;
    int leader = __ffs(ballot) - 1;
    int base = 0;
    if (lane == leader)
        base = atomicAdd(nres, __popc(ballot));
    base = __shfl_sync(active, base, leader < 0 ? 0 : leader);

    if (keep) {
        unsigned int h = (unsigned int)v;
        for (int r = 0; r < v % 16; r++) {
            h ^= h >> 16;
            h *= 0x85ebca6bU;
            h ^= h >> 13;
            h *= 0xc2b2ae35U;
            h ^= h >> 16;
        }
        unsigned int rank = __popc(ballot & ((1U << lane) - 1U));
        dst[base + rank] = (int)h;
    }
}
