/*
 * bitonic_sort (corpus, sorting): each block sorts a tile of 1024 u32 keys
 * (with their values) in shared memory by Batcher's bitonic network: the
 * bitonicSortShared kernel of the CUDA samples' sortingNetworks (the first
 * pass of its bitonic sort; later passes merge the tiles).  Every
 * compare-exchange is written as in the samples' Comparator: a branch on
 * (keyA > keyB) == dir that swaps the two key/value pairs.
 *
 * Launch: grid 32 x block 512 = 16384 threads (1-D); a block sorts
 * arrayLength = 2 * blockDim.x = 1024 keys, 32768 keys in all (the tile is
 * 2 * blockDim.x rather than the samples' SHARED_SIZE_LIMIT constant, so
 * that a symbolic run of X threads sorts 2X keys in bounds).  Until
 * session 22 the grid was 4 blocks (2048 threads), when 32 blocks cost
 * the sim ~160 ms an evaluation; now ~80 ms.  The blocks are independent
 * (each sorts its own tile) and fit the profile's SMs in one wave, so the
 * times below are those of 4 blocks within 0.4 %.
 *
 * Inputs: src_key (u32, two per thread); src_val is fixed (iota).  Outputs:
 * dst_key, dst_val (every tile sorted ascending: dir = 1).
 *
 * Where the time depends on the data: only in the compare-exchanges --
 * 55 stages of 512 of them per tile, each after a __syncthreads().  The
 * number of stages, the addresses (pos and pos + stride, a function of
 * threadIdx.x and the stage) and the bank conflicts do not depend on the
 * keys; only whether each pair is swapped does.  nvcc keeps the
 * Comparator's branch (a bra around the four shared stores of the swap),
 * so a warp issues the swap whenever one of its lanes swaps, with the
 * lanes that do not swap masked off (a divergent branch).
 *
 * Known worst: random keys.  At every stage of every warp some lanes swap
 * and some do not (for random keys a warp of 32 comparators almost never
 * agrees), so the swap is issued, divergently, everywhere: no input can
 * issue more.  Measured on the sim (bench_corpus --inputs-only, 32
 * blocks): random keys 18486 cycles (the reference; the longest of 5
 * random inputs gives 18485: the cost saturates), sorted 17129, reversed
 * 16868, alternating 0 / 2^32 - 1 16484 (at 4 blocks: 18430, 17020, 16728,
 * 16375).  Random testing is the worst input
 * here; the spread between best and worst is small (13 %), as a sorting
 * network is nearly oblivious.
 * Known best: all keys equal (16480; 16341 at 4 blocks): (keyA > keyB) == dir is then the
 * same for every lane with the same direction, so a warp either swaps
 * with every lane (ddd = 0) or skips the swap (ddd = 1), never diverging
 * where the direction is uniform over the warp (strides >= 32).
 *
 * Ownership: thread t loads elements t and t + blockDim.x of its block's
 * tile (coalesced halves), and the spec says so ("owner": "block_stride"),
 * so the GA's per-thread genes and crossover move the pair a thread reads
 * (before, per_thread gave thread t the contiguous pair [2t, 2t + 1]: a
 * per-thread mutation changed the keys of two threads).
 *
 * Spec gap: none left for the keys (any u32 is a valid key).
 */
#define SHARED_SIZE_LIMIT 1024u

__device__ inline void Comparator(unsigned &keyA, unsigned &valA, unsigned &keyB, unsigned &valB, unsigned dir)
{
    unsigned t;
    if ((keyA > keyB) == dir) {
        t = keyA;
        keyA = keyB;
        keyB = t;
        t = valA;
        valA = valB;
        valB = t;
    }
}

extern "C" __global__ void bitonic_sort(unsigned *dst_key, unsigned *dst_val, const unsigned *src_key,
                                        const unsigned *src_val, unsigned arrayLength, unsigned dir)
{
    __shared__ unsigned s_key[SHARED_SIZE_LIMIT];
    __shared__ unsigned s_val[SHARED_SIZE_LIMIT];
    unsigned half = blockDim.x;

    src_key += blockIdx.x * arrayLength + threadIdx.x;
    src_val += blockIdx.x * arrayLength + threadIdx.x;
    dst_key += blockIdx.x * arrayLength + threadIdx.x;
    dst_val += blockIdx.x * arrayLength + threadIdx.x;
    s_key[threadIdx.x + 0] = src_key[0];
    s_val[threadIdx.x + 0] = src_val[0];
    s_key[threadIdx.x + half] = src_key[half];
    s_val[threadIdx.x + half] = src_val[half];

    for (unsigned size = 2; size < arrayLength; size <<= 1) {
        /* bitonic merge: alternate directions so that pairs of sorted
         * runs form bitonic sequences */
        unsigned ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
        for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], ddd);
        }
    }
    /* the last merge sorts the whole tile in direction dir */
    for (unsigned stride = arrayLength / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
        Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], dir);
    }

    __syncthreads();
    dst_key[0] = s_key[threadIdx.x + 0];
    dst_val[0] = s_val[threadIdx.x + 0];
    dst_key[half] = s_key[threadIdx.x + half];
    dst_val[half] = s_val[threadIdx.x + half];
}
