/* warp_match_reduce: sm_70+/sm_80 warp intrinsics (blockDim.x a multiple of 32, full warps).
 * peers[i] = __match_any_sync mask of lanes with the same key, uniform[i] = __match_all_sync predicate,
 * red[i*6 + 0..5] = __reduce_{add,min,max}_sync (unsigned) and __reduce_{and,or,xor}_sync over the warp. */

extern "C" __global__ void warp_match_reduce(const int *key, const unsigned *val,
                                             unsigned *peers, int *uniform, unsigned *red)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = key[i];
    unsigned v = val[i];
    int pred = 0;

    peers[i] = __match_any_sync(0xffffffffu, k);
    (void)__match_all_sync(0xffffffffu, k, &pred);
    uniform[i] = pred;

    red[i * 6 + 0] = __reduce_add_sync(0xffffffffu, v);
    red[i * 6 + 1] = __reduce_min_sync(0xffffffffu, v);
    red[i * 6 + 2] = __reduce_max_sync(0xffffffffu, v);
    red[i * 6 + 3] = __reduce_and_sync(0xffffffffu, v);
    red[i * 6 + 4] = __reduce_or_sync(0xffffffffu, v);
    red[i * 6 + 5] = __reduce_xor_sync(0xffffffffu, v);
}
