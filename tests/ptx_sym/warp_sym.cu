/* warp_sym: branches on warp collectives (shfl, ballot, all) so that path
 * formulas tie the threads' inputs together.  Compiled by hand to
 * warp_sym.ptx (nvcc -ptx -arch=sm_80 -lineinfo).  out has 4 ints per
 * thread. */

extern "C" __global__ void warp_sym(const int *in, int *out)
{
    int t = threadIdx.x;
    int v = in[t];
    int s = __shfl_xor_sync(0xffffffffu, v, 1);
    unsigned b = __ballot_sync(0xffffffffu, v > 10);
    int *o = out + 4 * t;
    if (s > v) {
        o[0] = s;
        o[1] = v;
        atomicAdd(&out[0], 1);
    }
    if (__popc(b) == 2) {
        o[2] = (int)b;
        atomicAdd(&out[1], 1);
    }
    if (__all_sync(0xffffffffu, v != 0)) {
        o[3] = 7;
        atomicAdd(&out[2], 1);
    }
}
