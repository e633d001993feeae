/* atomics_shared: integer atomics on shared memory, then one thread per block copies
 * the results out.  out[b*8 + k] for block b: sum, min, max, or, and, xor, count of
 * odd values (atomicInc), final CAS ticket (== number of threads i < n in the block). */

extern "C" __global__ void atomics_shared(const int *in, int *out, int n)
{
    __shared__ int s[8];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;

    if (t == 0) {
        s[0] = 0; s[1] = 0x7fffffff; s[2] = (int)0x80000000; s[3] = 0;
        s[4] = -1; s[5] = 0; s[6] = 0; s[7] = 0;
    }
    __syncthreads();

    if (i < n) {
        int v = in[i];
        atomicAdd(&s[0], v);
        atomicMin(&s[1], v);
        atomicMax(&s[2], v);
        atomicOr(&s[3], v);
        atomicAnd(&s[4], v);
        atomicXor(&s[5], v);
        if (v & 1)
            atomicInc((unsigned *)&s[6], 0xffffffffu);
        int ticket = s[7];
        int prev;
        while ((prev = atomicCAS(&s[7], ticket, ticket + 1)) != ticket)
            ticket = prev;
    }
    __syncthreads();

    if (t < 8)
        out[blockIdx.x * 8 + t] = s[t];
}
