/* reduce_dynamic_shared: per-block maximum of in[] using extern __shared__ memory sized
 * blockDim.x * 4 bytes at launch (blockDim.x a power of two).  out[blockIdx.x] = max (INT_MIN past n). */

extern "C" __global__ void reduce_dynamic_shared(const int *in, int *out, int n)
{
    extern __shared__ int sdata[];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;

    sdata[t] = (i < n) ? in[i] : (int)0x80000000;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] = max(sdata[t], sdata[t + s]);
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sdata[0];
}
