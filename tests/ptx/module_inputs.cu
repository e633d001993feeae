/* module_inputs: loop bounds and terms that live in module variables, not parameters, as in
 * Parboil's JDS SpMV (jds_ptr_int and sh_zcnt_int are __constant__ arrays the host fills with
 * cudaMemcpyToSymbol).  A spec's "globals" fill them.  Thread i adds trips[threadIdx.x % 32]
 * terms of weights (so its time is the constant array's data), writes the sum to out[i] and
 * adds it to total; thread 0 counts itself in hits, which starts at 7 in every launch. */

__constant__ int trips[32];
__device__ int weights[64];
__device__ unsigned long long total;
__device__ int hits = 7;

extern "C" __global__ void module_inputs(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int t = trips[threadIdx.x & 31];
    int acc = 0;
    for (int k = 0; k < t; k++)
        acc += weights[(i + k) & 63];
    out[i] = acc;
    atomicAdd(&total, (unsigned long long)(unsigned)acc);
    if (i == 0)
        atomicAdd(&hits, 1);
}
