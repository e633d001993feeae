/* float_scatter: each thread adds one to the cell floorf(x[t]) of 64, an address made
 * from a float as a particle-in-cell deposit's is.  Compiled by hand to
 * float_scatter.ptx (nvcc -ptx -arch=sm_80 -lineinfo). */

extern "C" __global__ void float_scatter(const float *x, float *cells)
{
    int t = threadIdx.x;
    int c = (int)floorf(x[t]) & 63;
    atomicAdd(&cells[c], 1.0f);
}
