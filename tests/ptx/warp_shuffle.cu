/* warp_shuffle: __shfl_*_sync (blockDim.x a multiple of 32).  sum[w] = warp sum (shfl_xor butterfly),
 * bcast[i] = value of lane 5, scan[i] = inclusive warp prefix sum (shfl_up), rot[i] = value of
 * lane + 1 (shfl_down; lane 31 keeps its own). */

extern "C" __global__ void warp_shuffle(const int *in, int *sum, int *bcast,
                                        int *scan, int *rot)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];

    int s = v;
    for (int off = 16; off > 0; off >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, off);
    if (lane == 0)
        sum[i / 32] = s;

    bcast[i] = __shfl_sync(0xffffffffu, v, 5);

    int x = v;
    for (int off = 1; off < 32; off <<= 1) {
        int y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off)
            x += y;
    }
    scan[i] = x;

    rot[i] = __shfl_down_sync(0xffffffffu, v, 1);
}
