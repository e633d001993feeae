/*
 * gt_loop (ground truth): a loop whose trip count is an input.
 *
 * Thread tid runs n[tid] iterations of a chain of dependent register
 * operations (a multiply, an xor-shift, an add) and stores the result to
 * out[tid].  n is in [0, 64].
 *
 * Launch: grid 128 x block 256 = 32768 threads (1-D).
 * Inputs: n (i32, one per thread, range [0, 64]); seed (scalar).
 * Output: out (u32, one per thread).
 *
 * Known worst case: every n[tid] == 64.  A warp keeps issuing the loop as
 * long as its longest-running lane, so the issue count of a warp is
 * 64 iterations whenever at least one of its lanes has n == 64; the
 * all-64 input reaches that in every warp and also keeps every lane
 * active in every iteration.  The best case is every n == 0.  Random
 * inputs already put some lane near 64 in most warps (the maximum of 32
 * uniform draws), so the gap between random and worst is small: this
 * kernel checks that the search finds the range extreme, not that it beats
 * random testing by much.
 */

extern "C" __global__ void gt_loop(const int *n, unsigned *out, unsigned seed)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int trips = n[tid];
    unsigned x = seed ^ (unsigned)tid;

    #pragma unroll 1
    for (int i = 0; i < trips; i++) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 13;
        x += (unsigned)i;
    }
    out[tid] = x;
}
