/* reduce_shared: per-block sum of in[] with a static shared-memory tree reduction
 * (blockDim.x must be 256).  out[blockIdx.x] = sum of the block's 256 elements (0 past n). */

#define BLOCK 256

extern "C" __global__ void reduce_shared(const int *in, int *out, int n)
{
    __shared__ int buf[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;

    buf[t] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = buf[0];
}
