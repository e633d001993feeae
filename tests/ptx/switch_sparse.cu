/* switch_sparse: a sparse switch (cases 3, 17, 100, 1000, 65536, -5) with fall-through.
 * out[i] = class of key[i]: 3 -> 1, 17 -> 2, 100 and 1000 -> 3 (fall-through), 65536 -> 4, -5 -> 5, else 0. */

extern "C" __global__ void switch_sparse(const int *key, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int r = 0;
    switch (key[i]) {
    case 3: r = 1; break;
    case 17: r = 2; break;
    case 100:
    case 1000: r = 3; break;
    case 65536: r = 4; break;
    case -5: r = 5; break;
    default: break;
    }
    out[i] = r;
}
