/* histogram_shared: 64-bin histogram of (v & 63) with per-block shared-memory bins merged
 * into the global bins with atomicAdd (grid-stride over n).  hist[b] = count of values with v & 63 == b. */

#define BINS 64

extern "C" __global__ void histogram_shared(const unsigned *v, unsigned *hist, int n)
{
    __shared__ unsigned bins[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        bins[b] = 0u;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[v[i] & (BINS - 1)], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (bins[b] != 0u)
            atomicAdd(&hist[b], bins[b]);
}
