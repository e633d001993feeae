/*
 * gt_bank (ground truth): shared-memory bank conflicts decided by input.
 *
 * Each block has a dynamic shared tile of 32 words per thread (thread t of
 * the block owns row t: words [32t, 32t+32)).  The tile is zeroed
 * cooperatively (conflict-free), then, after a barrier, every thread does
 * ROUNDS read-modify-writes of its own row at column (c + r) & 31 where
 * c = col[tid] & 31, and finally stores its row's word at column c.
 *
 * Word 32t + j lies in bank j (32 banks of 4 bytes), so in round r lane l
 * of a warp hits bank (c_l + r) & 31 at a row of its own: the lanes of a
 * warp that share the same c all hit one bank at different addresses.
 *
 * Launch: grid 128 x block 256 = 32768 threads (1-D);
 *         dynamic shared memory 128 bytes per thread (32 KiB per block).
 * Inputs: col (i32, one per thread, range [0, 31]).
 * Output: out (u32, one per thread).
 *
 * Known worst case: the 32 lanes of every warp have the same col (any
 * value): every shared access after the barrier (a load and a store per
 * round, ROUNDS = 32 rounds, then one final load) is a 32-way bank
 * conflict (32 different addresses in one bank), i.e. 32 serialized
 * shared-memory wavefronts per access.  Best case: 32 distinct
 * cols per warp (e.g. col[tid] = tid % 32), conflict-free.  In general a
 * warp's accesses cost as many wavefronts as the largest number of its
 * lanes sharing one col.  Random cols give about 3-4-way conflicts.
 */

#define ROUNDS 32

extern "C" __global__ void gt_bank(const int *col, unsigned *out)
{
    extern __shared__ unsigned tile[];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned words = blockDim.x * 32u;

    /* Cooperative, conflict-free zeroing: consecutive lanes, consecutive words. */
    for (unsigned k = threadIdx.x; k < words; k += blockDim.x)
        tile[k] = 0u;
    __syncthreads();

    unsigned c = (unsigned)col[tid] & 31u;
    volatile unsigned *row = tile + threadIdx.x * 32u;

    #pragma unroll 1
    for (unsigned r = 0; r < ROUNDS; r++)
        row[(c + r) & 31u] += r + 1u;

    out[tid] = row[c];
}
