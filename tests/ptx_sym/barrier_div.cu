/* barrier_div: a thread whose input is large returns before the block's
 * barrier while the others wait at it (barrier divergence), then a second
 * interval.  Compiled by hand to barrier_div.ptx (nvcc -ptx -arch=sm_80
 * -lineinfo). */

extern "C" __global__ void barrier_div(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    int v = in[t];
    if (v > 5)
        return;
    s[t] = v;
    __syncthreads();
    out[t] = s[t ^ 1] + 1;
}
