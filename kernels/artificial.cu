/*
 * artificial: the "Artificial" kernel of Horga et al. (GDivAn), Listing 1.
 *
 * Each thread reads values[tid].  If it equals CONSTANT (7) the thread
 * performs eight atomicAdd()s of that value on result[blockIdx.x] (one
 * address shared by the whole block); otherwise it performs a single
 * atomicAdd(&result[tid], 10) on an address of its own.
 *
 * Launch: grid 128 x block 256 = 2^15 threads (1-D).
 * Inputs: values (i32, one per thread, range [0, 1000]).
 * Output: result (i32, max(threads, blocks) elements).
 *
 * Known worst case: every values[tid] == 7.  Then every thread takes the
 * 8-atomic leg and all 256 threads of a block hammer the same address
 * result[blockIdx.x]: 8 x 256 same-address atomics per block, serialized.
 * No warp diverges: this is the paper's point that the worst case is not
 * the most divergent input.  A divergent warp issues both legs, but its
 * 8-atomic leg then serializes fewer lanes on the shared address, and the
 * other leg costs one conflict-free atomic per lane.
 * Random inputs hit 7 with probability 1/1001 per thread.
 */

#define CONSTANT 7

extern "C" __global__ void artificial(const int *values, int *result)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = values[tid];

    if (v == CONSTANT) {
        atomicAdd(&result[blockIdx.x], v);
        atomicAdd(&result[blockIdx.x], v);
        atomicAdd(&result[blockIdx.x], v);
        atomicAdd(&result[blockIdx.x], v);
        atomicAdd(&result[blockIdx.x], v);
        atomicAdd(&result[blockIdx.x], v);
        atomicAdd(&result[blockIdx.x], v);
        atomicAdd(&result[blockIdx.x], v);
    } else {
        atomicAdd(&result[tid], 10);
    }
}
