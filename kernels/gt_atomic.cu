/*
 * gt_atomic (ground truth): atomic contention decided by the input.
 *
 * Every thread does atomicAdd(&acc[key[tid]], 1) on a table of 1024
 * counters (a histogram of the keys).
 *
 * Launch: grid 128 x block 256 = 32768 threads (1-D).
 * Inputs: key (i32, one per thread, range [0, 1023]).
 * Output: acc (i32, 1024 counters).
 *
 * Known worst case: all keys equal (any one value in [0, 1023]).  All
 * 32768 atomics then go to one address and serialize: inside a warp the
 * 32 same-address atomics are processed one by one, and every warp of the
 * launch contends for the same L2 line.  Best case: the 32 lanes of each
 * warp on 32 different counters (e.g. key[tid] = tid % 1024).  Random keys
 * put about one lane per counter, close to the best case.
 */

extern "C" __global__ void gt_atomic(const int *key, int *acc)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&acc[key[tid]], 1);
}
