/* unsorted_pair: thread t loops from a[t + 1] up to a[t], so a pair out
 * of order costs as many iterations as its gap, a sorted one none.  With
 * "structure": "sorted" on `a` the loop's legs are infeasible: the
 * symbolic stage must not cover them, and every atom and every input the
 * search builds must be sorted (tests/test_structure.c).  Compiled by hand
 * to unsorted_pair.ptx (nvcc -ptx -arch=sm_80 -lineinfo). */

extern "C" __global__ void unsorted_pair(const int *a, int *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t + 1 >= n)
        return;
    int acc = 0;
    for (int k = a[t + 1]; k < a[t]; k++)
        acc ^= k * k + t;
    out[t] = acc;
}
