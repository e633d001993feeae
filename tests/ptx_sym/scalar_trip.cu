/* scalar_trip: every thread loops n times, n a kernel argument.  With n a
 * searched scalar ("range" instead of "value") the symbolic stage reads it
 * as a symbol (one path per trip count it reaches) and the search sets it:
 * the longest runs have n at the top of its range (tests/test_structure.c).
 * Compiled by hand to scalar_trip.ptx (nvcc -ptx -arch=sm_80 -lineinfo). */

extern "C" __global__ void scalar_trip(const int *in, int *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = in[t];
    for (int k = 0; k < n; k++)
        acc = acc * 31 + (k ^ t);
    out[t] = acc;
}
