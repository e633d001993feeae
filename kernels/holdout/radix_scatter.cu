/*
 * radix_scatter (holdout): one pass of an LSD radix sort on 32-bit keys,
 * the scatter pass of an atomic-counter ("bucketed") radix sort.
 *
 * What it computes: every key's 4-bit digit d = (key >> shift) & 15.
 *   1. Per-block digit counts: each thread bumps s_hist[d] in shared memory
 *      with a shared atomicAdd for each of its ITEMS keys; after a barrier
 *      the block writes its 16 counts to block_hist[blockIdx.x*16 + d]
 *      (what the next pass's scan would read).
 *   2. Scatter: each key takes its slot in digit d's bucket with a global
 *      atomicAdd on the per-digit counter digit_count[d] and is written to
 *      out[d * bucket_cap + slot].  A bucket holds up to bucket_cap = n
 *      keys, so no input can overflow it (a host step would later
 *      concatenate the 16 buckets: that is not part of this kernel).
 *
 * Launch: 1-D grid G x 256 threads; each thread owns ITEMS = 4 keys of its
 * block's tile of 4*256, read block-stride (thread i of block b reads
 * b*1024 + i + j*256, j < 4: coalesced).  n = 4 * threads, shift one of
 * 0, 4, ..., 28 (any 0..28 is safe).
 *
 * Where the time depends on the data:
 *   - shared atomics of a warp are serialised over the lanes hitting the
 *     same s_hist word (keys of one digit);
 *   - the global atomicAdds of a warp on digit_count: lanes with the same
 *     digit hit the same address (same-address serialisation), and every
 *     warp of the grid hits the same 16 words;
 *   - the scatter's stores: lanes of one digit get consecutive slots (if
 *     the atomic unit serves a warp's lanes in order), lanes of different
 *     digits write to up to 16 buckets far apart (16 sectors instead of 4).
 * So the two effects pull against each other: one digit everywhere means
 * maximal atomic contention but coalesced scatter; 16 digits per warp mean
 * little contention but scattered stores.
 *
 * Expert worst (built by radix_scatter.worst.sh): every key of the grid has
 * the same digit at `shift` (keys = 0): 32-way conflicts on one shared word
 * and one global counter for every atomic of every warp, the whole grid
 * serialised on one counter.  Candidates and their sim cycles are listed in
 * radix_scatter.worst.sh.
 *
 * What the spec could not state at first: that shift is a multiple of 4
 * (a searched scalar of range [0, 28]; the in-between values are safe,
 * just not what a sort passes).  Session 42 added "step" beside a range:
 * the spec now says "step": 4.  Otherwise none: any u32 key is valid.
 */
#define RADIX 16
#define ITEMS 4

extern "C" __global__ void radix_scatter(const unsigned *keys, unsigned *out,
                                         unsigned *digit_count,
                                         unsigned *block_hist, int n,
                                         int shift, int bucket_cap)
{
    __shared__ unsigned s_hist[RADIX];
    const int tid = threadIdx.x;
    const int tile = blockIdx.x * blockDim.x * ITEMS;

    if (tid < RADIX)
        s_hist[tid] = 0;
    __syncthreads();

    unsigned k[ITEMS];
    unsigned d[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        int i = tile + tid + j * blockDim.x;
        if (i < n) {
            k[j] = keys[i];
            d[j] = (k[j] >> shift) & (RADIX - 1);
            atomicAdd(&s_hist[d[j]], 1u);
        }
    }
    __syncthreads();
    if (tid < RADIX)
        block_hist[blockIdx.x * RADIX + tid] = s_hist[tid];

#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        int i = tile + tid + j * blockDim.x;
        if (i < n) {
            unsigned slot = atomicAdd(&digit_count[d[j]], 1u);
            out[d[j] * (unsigned)bucket_cap + slot] = k[j];
        }
    }
}
