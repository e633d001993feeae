/*
 * fig1a: the motivational example of Fig. 1(a) in Horga et al. (GDivAn):
 * "if (input[tid] == CONSTANT) out = a*b;" where divergence is the worst.
 *
 * If input[tid] == CONSTANT (7) the thread runs a chain of 16 dependent
 * multiply-adds on registers (the "a*b" leg, time t1); otherwise a shorter
 * chain of 6 dependent add/xor/shift steps (time t2 < t1).  Both legs only
 * touch registers, then each thread stores one word to out[tid].
 *
 * Launch: grid 128 x block 256 = 32768 threads (1-D).
 * Inputs: input (i32, one per thread, range [0, 255]); a, b (scalars).
 * Output: out (u32, one per thread).
 *
 * Known worst case: every warp diverges, i.e. in each group of 32
 * consecutive threads at least one input == 7 and at least one input != 7.
 * A warp then issues both legs one after the other (t1 + t2), while an
 * all-7 warp issues only t1 and an all-other warp only t2.  Which lanes
 * hold the 7s does not matter.  Random inputs hit 7 with probability 1/256
 * per thread (the paper's "< 0.4 %").
 */

#define CONSTANT 7

extern "C" __global__ void fig1a(const int *input, unsigned *out,
                                 unsigned a, unsigned b)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = input[tid];
    unsigned r;

    if (v == CONSTANT) {
        /* t1: 16 dependent multiplications (a*b, and again, and again) */
        r = a;
        #pragma unroll
        for (int k = 0; k < 16; k++)
            r = r * b + (unsigned)k;
    } else {
        /* t2: cheaper register arithmetic */
        r = (unsigned)v ^ a;
        r = r + (r << 3);
        r = r ^ (r >> 5);
        r = r + b;
        r = r ^ (r << 7);
        r = r + (r >> 11);
    }
    out[tid] = r;
}
