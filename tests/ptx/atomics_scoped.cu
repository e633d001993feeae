/* atomics_scoped: atomics with block and system scope (atom.*.cta / atom.*.sys) next to the default
 * (gpu) scope.  acc[0] = n (device scope add), acc[1] = n (block-scope add), acc[2] = max of in (system scope). */

extern "C" __global__ void atomics_scoped(const int *in, int *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicAdd(&acc[0], 1);
    atomicAdd_block(&acc[1], 1);
    atomicMax_system(&acc[2], in[i]);
}
