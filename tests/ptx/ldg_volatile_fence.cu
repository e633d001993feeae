/* ldg_volatile_fence: the "last block done" reduction: each block sums __ldg(in[]) into partial[b],
 * __threadfence(), counts itself done with atomicInc; the last block adds the partials (volatile loads)
 * into *total.  *counter starts at 0 and wraps back to 0; blockDim.x == 128. */

extern "C" __global__ void ldg_volatile_fence(const int *__restrict__ in, int *partial,
                                              unsigned *counter, int *total, int n)
{
    __shared__ int s[128];
    __shared__ bool last;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;

    s[t] = (i < n) ? __ldg(&in[i]) : 0;
    __syncthreads();
    for (int k = 64; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        unsigned ticket = atomicInc(counter, gridDim.x - 1);
        last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (last && t == 0) {
        volatile int *vp = partial;
        int sum = 0;
        for (unsigned b = 0; b < gridDim.x; b++)
            sum += vp[b];
        *total = sum;
        __threadfence_block();
    }
}
