/*
 * fig1b: the motivational example of Fig. 1(b) in Horga et al. (GDivAn):
 * the slow leg is a global atomic, and the worst case has NO divergence.
 *
 * If input[tid] == CONSTANT (7) the thread does atomicAdd(&acc[0], ...)
 * on one global address shared by the whole launch (time t2, serialized
 * with every other thread on that leg); otherwise it does a few register
 * operations and stores them to out[tid] (time t3, t3 << t2).
 *
 * Launch: grid 128 x block 256 = 32768 threads (1-D).
 * Inputs: input (i32, one per thread, range [0, 255]).
 * Outputs: acc (i32, 1 element), out (i32, one per thread).
 *
 * Known worst case: every input == 7.  All 32768 threads take the atomic
 * leg and serialize on the single address acc[0]; no warp diverges.  A
 * divergent warp is cheaper: it runs the atomic for fewer lanes.  Random
 * inputs hit 7 with probability 1/256 per thread.
 */

#define CONSTANT 7

extern "C" __global__ void fig1b(const int *input, int *acc, int *out)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = input[tid];

    if (v == CONSTANT) {
        atomicAdd(&acc[0], v + tid);
    } else {
        int r = v * 3 + 1;
        r ^= r << 4;
        r += tid;
        out[tid] = r;
    }
}
