/* atomics_int: every 32-bit integer atomic on global memory.  Thread i (i < n) applies
 * v = in[i] to cell k of its kind; see the per-line comments for the checkable final values.
 * The caller sets acc[0..8] = 0,0,INT_MAX,INT_MIN,0,0,-1,0,INT_MIN and uacc[0..4] = 0,0,0xFFFFFFFF,0,0. */

extern "C" __global__ void atomics_int(const int *in, int *acc, unsigned *uacc,
                                       int *old_exch, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];

    atomicAdd(&acc[0], v);                    /* sum of in */
    atomicSub(&acc[1], v);                    /* -sum of in */
    atomicMin(&acc[2], v);                    /* min of in */
    atomicMax(&acc[3], v);                    /* max of in */
    old_exch[i] = atomicExch(&acc[4], i + 1); /* some i+1; olds form a chain */
    atomicOr(&acc[5], (int)(1u << (i & 31)));         /* bits of i & 31 seen */
    atomicAnd(&acc[6], (int)~(1u << (i & 31)));     /* complement of those bits */
    atomicXor(&acc[7], v);                    /* xor of in */

    /* CAS loop: acc[8] = max over i of (v * 3) computed by hand */
    int old = acc[8], assumed;
    do {
        assumed = old;
        int want = max(assumed, v * 3);
        old = atomicCAS(&acc[8], assumed, want);
    } while (old != assumed);

    /* unsigned flavours */
    atomicAdd(&uacc[0], (unsigned)v);
    atomicInc(&uacc[1], 15u);                 /* counts n modulo 16 */
    atomicMin(&uacc[2], (unsigned)v);
    atomicMax(&uacc[3], (unsigned)v);
    atomicDec(&uacc[4], 9u);                  /* wraps 0 -> 9: (10 - n % 10) % 10 */
}
