/* atomics_float64: float/double/64-bit atomics (sm_60+): facc[0] += x[i], dacc[0] += x[i], acc64[0] += u[i],
 * acc64[1] = min, [2] = max, [3] |= u[i], [4] += u[i] + 1 (CAS loop), [5] = some u[i] (exch);
 * facc[1] = n via shared float atomics.  The caller zeroes everything except acc64[1] = ~0ull. */

extern "C" __global__ void atomics_float64(const float *x, const unsigned long long *u,
                                           float *facc, double *dacc,
                                           unsigned long long *acc64, int n)
{
    __shared__ float sf;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        sf = 0.0f;
    __syncthreads();

    if (i < n) {
        float xv = x[i];
        unsigned long long uv = u[i];
        atomicAdd(&facc[0], xv);
        atomicAdd(&dacc[0], (double)xv);
        atomicAdd(&acc64[0], uv);
        atomicMin(&acc64[1], uv);
        atomicMax(&acc64[2], uv);
        atomicOr(&acc64[3], uv);
        unsigned long long old = acc64[4], assumed;
        do {
            assumed = old;
            old = atomicCAS(&acc64[4], assumed, assumed + uv + 1ull);
        } while (old != assumed);
        atomicExch(&acc64[5], uv);
        atomicAdd(&sf, 1.0f);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(&facc[1], sf);              /* facc[1] == n (as a float) */
}
