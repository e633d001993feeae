/*
 * histogram_smem (corpus, atomics): a 256-bin byte histogram with one
 * sub-histogram per block in shared memory, as in the CUDA samples'
 * histogram256 (per-block variant) and Parboil's histo: every thread zeroes
 * its bins, the block syncs, each thread walks the data with a grid-stride
 * loop, splits every 32-bit word into its 4 bytes and bumps the byte's bin
 * with a shared atomicAdd; after a second sync the block adds its 256 bins
 * to the global histogram with global atomicAdd.
 *
 * Launch: grid 64 x block 256 = 16384 threads (1-D); the data is 4 words
 * (16 bytes) per thread, 65536 words in all.
 *
 * Inputs: data (u32 words, every value allowed; each byte is a bin).
 * Output: hist (256 counters, zeroed before the run).
 *
 * Where the time depends on the data: each shared atomicAdd of a warp is
 * serialised over the lanes that hit the same bin (the sim charges 2
 * cycles per lane on the most contended word plus one wavefront per bank
 * conflict degree), so a warp whose 32 lanes hit one bin costs ~65 cycles
 * of the shared pipe per atomic, one with 32 distinct bins in 32 distinct
 * banks ~3.  Everything else (zeroing, the merge: 256 global atomics per
 * block whatever the data) is fixed.
 *
 * Known worst (expert): every byte of every word in one bin ("all-one-bin",
 * data = 0x07070707): all 32 lanes of every atomic on one word.  Other
 * candidates: each warp on a bin of its own ("bin-per-warp", the same cost
 * within a warp), and half the lanes on one word, half on distinct words of
 * the same bank ("half-bank-conflict", 16 x 2 + 17 wavefronts, expected
 * below all-one-bin).  Measured on the sim (bench_corpus --inputs-only):
 * all-one-bin 10130 cycles (the reference), bin-per-warp 10130 (the same:
 * a warp never sees another warp's bins), half-bank-conflict 7442, and
 * the longest of 5 random inputs 3633, just above the best (3511): random
 * words spread the 32 lanes over ~30 bins, so random testing is far from
 * the worst (about 36 % of it).
 * Known best: lane l of every warp on bin l + 32 k for byte k: 32 distinct
 * bins in 32 distinct banks for every atomic.
 *
 * Spec gap: none (every 32-bit word is a valid input).  The grid-stride
 * loop reads word t + j * threads in thread t: the spec says so ("owner":
 * "stride", 4 words per thread; until session 26 data was a shared
 * buffer, from before ownership maps), so a thread's genes and a warp copy
 * move the words that thread reads.
 */
#define HIST_BINS 256

extern "C" __global__ void histogram_smem(unsigned int *d_Histogram, const unsigned int *d_Data,
                                          unsigned int dataCount)
{
    __shared__ unsigned int s_Hist[HIST_BINS];

    for (unsigned int bin = threadIdx.x; bin < HIST_BINS; bin += blockDim.x)
        s_Hist[bin] = 0;
    __syncthreads();

    for (unsigned int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount;
         pos += blockDim.x * gridDim.x) {
        unsigned int data = d_Data[pos];
        atomicAdd(&s_Hist[(data >> 0) & 0xFFU], 1);
        atomicAdd(&s_Hist[(data >> 8) & 0xFFU], 1);
        atomicAdd(&s_Hist[(data >> 16) & 0xFFU], 1);
        atomicAdd(&s_Hist[(data >> 24) & 0xFFU], 1);
    }
    __syncthreads();

    for (unsigned int bin = threadIdx.x; bin < HIST_BINS; bin += blockDim.x)
        atomicAdd(&d_Histogram[bin], s_Hist[bin]);
}
