// gcd_steps: Euclid's greatest common divisor, one pair of unsigned 32-bit
// integers per thread, with the number of remainder steps it took.
//
// What it computes: thread i reads its pair (a[i], b[i]) and runs the
// remainder loop
//     while (b != 0) { t = a % b; a = b; b = t; ++steps; }
// then writes the gcd (the last a) to g[i] and the step count to steps[i].
//
// Launch: one thread per pair, 1-D grid, 64 blocks of 256 threads (2^14
// threads); n = number of pairs.  a and b are in [1, 2^32 - 1] (a pair of
// positive integers; b = 0 would be legal but trivial: 0 steps).
//
// Where the time is data-dependent: only the trip count of the remainder
// loop, per thread.  A warp runs as long as its slowest lane.  By Lame's
// theorem the count is at most about log_phi(b) + 1; for u32 operands the
// longest is 46 steps.  Random pairs take about (12 ln 2 / pi^2) ln(b),
// about 19 steps on average, and a warp of 32 random pairs about 26 at
// its slowest lane (22 to 32 over 512 sampled warps).  The `%` is one
// rem.u32 in PTX (on the GPU a fixed sequence, a reciprocal estimate and
// predicated fix-ups, as nvcc compiles a 32-bit remainder: its time does
// not depend on the values), so the time is the steps, nothing else.
//
// Worst input an expert would build: consecutive Fibonacci numbers, for
// which every quotient is 1 and the remainders shrink as slowly as they
// can (Lame).  The largest pair that fits in u32 is F(47) = 2971215073,
// F(46) = 1836311903: (a, b) = (F47, F46) takes 45 steps.  Giving the pair
// the wrong way round, a < b, adds one more step (the first remainder is
// a itself: a swap), so (a, b) = (F46, F47) takes 46, the most any u32
// pair can take.  Every lane of every warp gets it: no divergence, and the
// longest loop everywhere.  Candidates and sim cycles: gcd_steps.worst.sh.
//
// What the spec could not state: nothing that matters; the range
// [1, 2^32 - 1] for both operands is the user's choice of "realistic"
// pairs (any u32 pair is a valid input; b = 0 is left out as trivial).
// Not a spec limit but worth knowing: the symbolic stage cuts loops at
// symbolic.max_iter (default 16) while the worst takes 46 trips, and each
// trip nests one more bvurem in the path formula, so its paths stay short
// (the smoke hunt's stage saturated at 15 + 48 paths for X = 2, 3) and its
// atoms cannot reach the Fibonacci pairs; the search must climb there.
extern "C" __global__ void gcd_steps(const unsigned* __restrict__ a_in,
                                     const unsigned* __restrict__ b_in,
                                     unsigned* __restrict__ g_out,
                                     int* __restrict__ steps_out,
                                     int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    unsigned a = a_in[i];
    unsigned b = b_in[i];
    int steps = 0;
    while (b != 0u) {
        unsigned t = a % b;
        a = b;
        b = t;
        ++steps;
    }
    g_out[i] = a;
    steps_out[i] = steps;
}
