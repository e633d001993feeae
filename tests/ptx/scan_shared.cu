/* scan_shared: inclusive prefix sum of each block's slice (Hillis-Steele, double-buffered
 * static shared memory, blockDim.x <= 512).  out[i] = in[b*B] + ... + in[i] within block b. */

#define MAXB 512

extern "C" __global__ void scan_shared(const int *in, int *out, int n)
{
    __shared__ int buf[2][MAXB];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    int cur = 0;

    buf[0][t] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (int off = 1; off < (int)blockDim.x; off <<= 1) {
        int v = buf[cur][t];
        if (t >= off)
            v += buf[cur][t - off];
        buf[1 - cur][t] = v;
        cur = 1 - cur;
        __syncthreads();
    }
    if (i < n)
        out[i] = buf[cur][t];
}
