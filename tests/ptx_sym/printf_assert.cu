/* printf_assert: a kernel that prints and asserts, as users' kernels do.
 * printf compiles to a call of the external vprintf and assert to one of
 * __assertfail; the sim and the symbolic stage run the first as a no-op
 * returning 0 and end a thread at the second as a fault (the sim) or an
 * error path (the symbolic stage) (tests/test_symexec.c).  Compiled by hand
 * to printf_assert.ptx (nvcc -ptx -arch=sm_80 -lineinfo). */
#include <cassert>
#include <cstdio>

extern "C" __global__ void printf_assert(const int *in, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t];
    if (v > 50)
        printf("thread %d: large value %d\n", t, v);
    assert(v != 77);
    out[t] = v * 2;
}
