/* repeat_pair: thread t reads its two neighbours list[2t] and list[2t + 1]
 * and does extra work only when they are the same thread.  With
 * "structure": "neighbors" on `list` (a thread's neighbours are distinct
 * other threads) that leg is infeasible: the symbolic stage must not
 * cover it, and every atom must list two distinct other threads
 * (tests/test_structure.c).  Compiled by hand to repeat_pair.ptx
 * (nvcc -ptx -arch=sm_80 -lineinfo). */

extern "C" __global__ void repeat_pair(const int *list, int *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    int a = list[2 * t], b = list[2 * t + 1], acc = a;
    if (a == b)
        for (int k = 0; k < 64; k++)
            acc ^= k * k + t;
    out[t] = acc;
}
