/* sync_variants: __syncthreads_count/_and/_or and __syncwarp.  out[b*3 + 0..2] = count / all / any of
 * in[i] > 0 over block b; warp_sum[w] = sum of warp w's 32 values through shared memory + __syncwarp
 * (the launch covers in[] exactly, blockDim.x <= 1024 and a multiple of 32). */

extern "C" __global__ void sync_variants(const int *in, int *out, int *warp_sum)
{
    __shared__ int w[1024];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int v = in[i];
    int pos = v > 0;

    int cnt = __syncthreads_count(pos);
    int all = __syncthreads_and(pos);
    int any = __syncthreads_or(pos);
    if (t == 0) {
        out[blockIdx.x * 3 + 0] = cnt;
        out[blockIdx.x * 3 + 1] = all;
        out[blockIdx.x * 3 + 2] = any;
    }

    /* sum of each warp's 32 values through shared memory, lane 0 writes it */
    w[t] = v;
    __syncwarp();
    if ((t & 31) < 16)
        w[t] += w[t + 16];
    __syncwarp();
    if ((t & 31) < 8)
        w[t] += w[t + 8];
    __syncwarp();
    if ((t & 31) < 4)
        w[t] += w[t + 4];
    __syncwarp();
    if ((t & 31) < 2)
        w[t] += w[t + 2];
    __syncwarp();
    if ((t & 31) == 0)
        warp_sum[i / 32] = w[t] + w[t + 1];
}
