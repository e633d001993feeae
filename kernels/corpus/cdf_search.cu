/*
 * cdf_search (corpus, searching): the resampling step of Rodinia's
 * particlefilter (find_index_kernel / findIndex): each thread takes its
 * uniform draw u[i] and scans the particles' cumulative distribution
 * function from the start for the first index with CDF[x] >= u[i] (the
 * last particle when there is none), then copies that particle's position.
 *
 * Launch: grid 64 x block 256 = 16384 threads (1-D), one draw each
 * (until session 22 32 blocks, 8192 threads, to keep the sim cheap:
 * random inputs scan nearly the whole CDF in most warps, ~1 M warp
 * instructions, now 0.15-0.25 s of sim an input); the
 * CDF has NCDF = 512 entries (Rodinia uses one entry per particle; here
 * the draws outnumber the particles so that the launch is realistic and
 * one full scan stays cheap on the sim).
 *
 * Inputs: u (one f32 draw per thread, [0, 1]) and CDF (f32, [0, 1],
 * shared by all threads); arrayX, arrayY (particle positions) are fixed.
 * Outputs: xj, yj.
 *
 * Where the time depends on the data: the linear scan runs until the first
 * CDF entry >= u, so a warp issues max over its lanes of that index + 1
 * iterations (every lane reads the same CDF[x]: a broadcast, one sector),
 * plus the index == -1 fix-up when some lane finds nothing.
 *
 * Known worst (expert): every draw beyond every CDF entry, so every lane
 * scans all NCDF entries and takes the fix-up ("cdf-zero-u-one": CDF all
 * 0, u all 1).  Candidates: "last-entry-hit" (CDF 0 except CDF[N-1] = 1,
 * u = 1: the full scan ending in the break), "one-lane-per-warp" (only lane
 * 0 of each warp beyond the CDF, the others stop at once: the warp still
 * issues the full scan, with 1 active lane) and "sorted-cdf-high-u" (a
 * real, sorted CDF (x/N)^4 and u = 1: full scan to the last entry).
 * Measured on the sim (bench_corpus --inputs-only, 64 blocks, the same
 * at 32): cdf-zero-u-one 122505
 * cycles (the reference), one-lane-per-warp 122505 (issue count is what
 * counts, not active lanes), last-entry-hit and sorted-cdf-high-u 122490,
 * and the longest of 5 random inputs 122477 (the same at 32 blocks; 121692 before the CDF was
 * sorted): random testing is within 1 % of the worst.  The launch is
 * latency bound (512 warps over 108 SMs, 4-5 per SM), so the kernel time
 * is that of its slowest warp, and with 16384 uniform draws the largest one
 * lies beyond the largest of 512 uniform CDF entries almost surely: some
 * warp always scans everything.
 * Known best: every entry 1 ("cdf-all-one": every draw stops at the
 * first entry).
 *
 * Structure: the CDF is "sorted" (non-decreasing), as a real one is, so
 * the search and the symbolic stage see only sorted CDFs.  Spec gap left:
 * a real CDF also ends at 1, which the spec does not force (a float
 * buffer can only be "sorted"), so CDFs that never reach u stay in the
 * domain; that is what makes the full scan plus fix-up reachable.  The
 * kernel code is Rodinia's.
 */
extern "C" __global__ void cdf_search(const float *arrayX, const float *arrayY, const float *CDF, const float *u,
                                      float *xj, float *yj, int Nparticles, int lengthCDF)
{
    int block_id = blockIdx.x;
    int i = blockDim.x * block_id + threadIdx.x;
    if (i < Nparticles) {
        int index = -1;
        int x;
        for (x = 0; x < lengthCDF; x++) {
            if (CDF[x] >= u[i]) {
                index = x;
                break;
            }
        }
        if (index == -1)
            index = lengthCDF - 1;
        xj[i] = arrayX[index];
        yj[i] = arrayY[index];
    }
}
