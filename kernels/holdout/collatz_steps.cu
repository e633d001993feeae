// collatz_steps: the Collatz (3n+1) total stopping time of one start value
// per thread, with a step cap.
//
// What it computes: thread i reads its start value n[i] (unsigned 32-bit)
// and iterates, in 64-bit arithmetic,
//     x <- x / 2       (x even)
//     x <- 3x + 1      (x odd)
// until x == 1 or max_steps steps have run, and writes the number of steps
// to steps[i] (0 for a start of 1; max_steps for a start of 0, which never
// reaches 1, or for a trajectory longer than the cap).  64 bits are enough
// for every 32-bit start: the highest point any such trajectory reaches is
// about 7.1e15 (from 1,410,123,943), far below 2^64, so there is no overflow
// guard; for starts below 2^20 the peak is below 6e10.
//
// Launch: one thread per start value, 1-D grid of G = 64 blocks of 256
// threads (16384 threads); n = number of start values, max_steps = 1000.
// The start values are realistic for a survey of small numbers: [1, 2^20].
//
// Where the time is data-dependent: the trip count of the loop, the start
// value's stopping time, from 0 (n = 1) to 524 (n = 837,799, the longest
// below 2^20; the cap of 1000 is never reached in that range).  A warp runs
// as long as its slowest lane; the parity test is a branch in the source,
// but nvcc turns it into a select (both sides computed, no divergence), so
// a loop iteration costs the same whatever the lanes' parities.
//
// Worst input an expert would build: the start value with the longest
// stopping time in the range, 837,799 (524 steps), in every lane of every
// warp: every warp runs the loop 524 times.  On the sim (which times a warp
// instruction the same however many lanes are active) one such lane per
// warp (or one whole block: blocks run one per SM, all at once) would do;
// on a GPU all 32 lanes on it also maximise the 64-bit arithmetic issued.
// A random start in [1, 2^20] takes 132 steps on average and a warp of 32
// random starts about 260 at its longest lane, but the kernel lasts as long
// as its slowest block, and 16384 random starts hold some of 440-470 steps:
// random inputs reach 0.81-0.86 of the worst on the sim.  The candidates
// measured and their sim cycles are in collatz_steps.worst.sh.
//
// What the spec cannot state: nothing that matters for the time.  The range
// [1, 2^20] is the user's choice of "realistic" start values (0 would be a
// bad input: it never reaches 1 and runs to the cap); a wider range only
// moves the longest start (e.g. 1,117,065 with 527 steps just past 2^20).
extern "C" __global__ void collatz_steps(const unsigned int* __restrict__ n,
                                         int* __restrict__ steps,
                                         int count, int max_steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;

    unsigned long long x = n[i];
    int s = 0;
    while (x != 1ULL && s < max_steps) {
        if (x & 1ULL)
            x = 3ULL * x + 1ULL;
        else
            x >>= 1;
        ++s;
    }
    steps[i] = s;
}
