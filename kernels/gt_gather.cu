/*
 * gt_gather (ground truth): an indirect load whose coalescing depends on
 * the input indices.
 *
 * out[tid] = data[idx[tid]] + 1, with data a fixed table of 8 words per
 * thread (32 bytes = one DRAM/L2 sector per thread) filled with 0, 1, 2...
 *
 * Launch: grid 128 x block 256 = 32768 threads (1-D).
 * Inputs: idx (i32, one per thread, range [0, 8*threads - 1]).
 * Fixed: data (i32, 8*threads elements, iota).
 * Output: out (i32, one per thread).
 *
 * Known worst case: every lane of a warp reads a different 32-byte sector,
 * and no sector is read twice in the whole launch, e.g. idx[tid] = 8*tid
 * (stride 32 bytes): each warp load needs 32 sectors (32 separate
 * transactions, nothing reusable in L1/L2).  Any permutation of those
 * sector-aligned indices is equally bad in the sector count.  Best case:
 * idx[tid] == tid (each warp reads 128 contiguous bytes: 4 sectors).  Note
 * that all indices equal is cheap too (one sector, broadcast).  Random
 * indices already hit about 32 sectors per warp, so random is near the
 * worst here.
 */

extern "C" __global__ void gt_gather(const int *idx, const int *data, int *out)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    out[tid] = data[idx[tid]] + 1;
}
