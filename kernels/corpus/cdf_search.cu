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
 * sorted, its last entry 1; shared by all threads); arrayX, arrayY
 * (particle positions) are fixed.  Outputs: xj, yj.
 *
 * Where the time depends on the data: the linear scan runs until the first
 * CDF entry >= u, so a warp issues max over its lanes of that index + 1
 * iterations (every lane reads the same CDF[x]: a broadcast, one sector).
 * The index == -1 fix-up runs only for a draw beyond every entry, which a
 * real CDF (ending at 1) never leaves for a draw in [0, 1].
 *
 * Known worst (expert, until session 37): every draw beyond every entry
 * but the last, so every lane scans all NCDF entries ("last-entry-hit":
 * CDF 0 except CDF[N-1] = 1, u = 1).  Candidates: "one-lane-per-warp"
 * (only lane 0 of each warp scans to the end, the others stop at once:
 * the warp still issues the full scan, with 1 active lane) and
 * "sorted-cdf-high-u" (a smooth CDF (x/N)^4 and u = 1: full scan to the
 * last entry).  Measured on the sim (bench_corpus --inputs-only, session
 * 28): all three 122490 cycles (issue count is what counts, not active
 * lanes), and the longest of 5 random inputs 122456.  But the search found
 * 1.10 of that (session 28 on): one warp scanning alone is slower than
 * every warp scanning, since it touches each of the CDF's sectors first
 * by itself (the sim starts a launch with cold caches; when all warps
 * scan, most loads hit lines another warp brought).  So the reference
 * since session 37 is "one-thread-scans" (u = 1 for thread 0 only, 0
 * elsewhere, the last-entry CDF): 135274 cycles.  Whether a GPU agrees
 * (a warm L2 holds the 2 KiB CDF) is for a GPU session.
 * The launch is latency bound (512 warps over 108 SMs, 4-5 per SM), so the
 * kernel time is that of its slowest warp, and of 16384 uniform draws
 * some lie beyond the largest of 511 uniform entries below the last
 * (each with probability about 1/512): some warp scans everything.
 * Until session 28 the spec could not say that a CDF ends at 1, and the
 * reference was "cdf-zero-u-one" (CDF all 0, u = 1: the full scan plus
 * the fix-up, 122505 cycles), an input no real CDF gives.
 * Known best: every entry 1 ("cdf-all-one": every draw stops at the
 * first entry).
 *
 * Structure: the CDF is "sorted" (non-decreasing) with the range
 * ["(i+1)/NCDF", 1.0]: [0, 1] for every entry but the last, which is 1,
 * as a real CDF is; the search and the symbolic stage see only such CDFs.
 * Spec gap: none left for the CDF (its entries need not be the running
 * sum of normalised weights: any non-decreasing CDF ending at 1 is one).
 * The kernel code is Rodinia's.
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
