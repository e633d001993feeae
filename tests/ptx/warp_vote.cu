/* warp_vote: warp votes on in[i] > 0 (blockDim.x a multiple of 32, all lanes active at the votes).
 * out[i*4 + 0] = __all_sync, +1 = __any_sync, +2 = popc(__ballot_sync), +3 = popc(__activemask()) inside
 * the branch taken by lanes with odd in[i] (in SIMT lock-step: the number of such lanes in the warp), else -1. */

extern "C" __global__ void warp_vote(const int *in, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int pos = v > 0;

    int all = __all_sync(0xffffffffu, pos);
    int any = __any_sync(0xffffffffu, pos);
    unsigned ballot = __ballot_sync(0xffffffffu, pos);

    int act = -1;
    if (v & 1)
        act = __popc(__activemask());

    out[i * 4 + 0] = all;
    out[i * 4 + 1] = any;
    out[i * 4 + 2] = __popc(ballot);
    out[i * 4 + 3] = act;
}
