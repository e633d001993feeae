/*
 * sptrsv_level (corpus, sparse): one level of a level-scheduled sparse
 * lower-triangular solve L x = b (the analysis / solve split of
 * cuSPARSE's csrsv, Naumov 2011): the rows of a level depend only on rows
 * of earlier levels, so one thread per row of the level computes
 * x[row] = (b[row] - sum_{j < row} L[row, j] * x[j]) / L[row, row]; the
 * host launches the kernel once per level.
 *
 * Launch: grid 64 x block 256 = 16384 threads (1-D), one row of the level
 * each; the matrix has NR = 2 * 16384 = 32768 rows, at most K = 16
 * off-diagonal nonzeros per row (the diagonal apart, in diag).
 *
 * Inputs: level_rows (the rows of this level, in [0, NR - 1]), row_start,
 * row_len (the row pointer: row_start the running sum of row_len, packed
 * CSR) and cols (column indices, each below its own row); vals, diag and
 * b are fixed (their
 * values do not change the time), x holds the solved entries (fixed,
 * written for the level's rows).
 *
 * Where the time depends on the data: the row loop runs row_len[row]
 * times, so a warp issues max(row_len) iterations over its 32 rows, and
 * nvcc's remainder loop (len % 4) before the loop unrolled by 4 makes a
 * warp whose lanes leave at different iterations pay for every divergent
 * exit (as in spmv_scalar); the reads of row_start, row_len, b, diag and
 * the store of x[row] are coalesced when the level's rows are contiguous
 * and one sector per lane when they are scattered; the gather x[cols[j]]
 * touches one sector per distinct sector among the active lanes.
 *
 * Known worst (expert): level rows scattered (each lane's row in a sector
 * of its own), rows as long as possible with a staircase of lengths in
 * each warp (lane l: K - (l mod (K + 1))), every gather in a sector of
 * its own.  Measured on the sim (bench_corpus --inputs-only, sessions
 * 24-34, columns in the index-based range below) with packed
 * rows (session 24; the rows outside the level full, so that the level's
 * rows stay as far apart as their numbers): every row full with
 * scattered rows and gathers 13588 cycles, the staircase with scattered
 * rows 14814, with scattered rows and random columns 14339, with
 * contiguous rows 15154; but every row's length uniform in [0, K] (the
 * level's and the others', as random testing draws them) with scattered
 * rows and random columns 18413, the reference ("random-lengths"), and
 * the longest of 5 random inputs 18941: the expert's staircase is not the
 * sim's worst once rows are packed.  (With each row in a fixed slot of K
 * entries, before session 24, the staircase with scattered rows and
 * random columns was the reference, 15323, random 15132.)  Why random
 * lengths win under packing is not established here: they also make
 * the rows before each level row random, so the level's rows start at
 * unaligned, uneven places in cols and vals.  The search goes further:
 * gdivan's best inputs (bench/corpus_session24.md) run up to 20664
 * cycles (1.12 of the reference), most with a warp-copy of row_len over
 * the whole buffer (each 32 consecutive rows one length).
 * Known best: contiguous level rows, every row empty: 2708.
 *
 * Structure: a real level is a set of distinct rows, and level_rows is
 * "distinct" (a search that repeats a row has it moved to the next free
 * one).
 *
 * Packed CSR (session 24): row_start is the running sum of row_len
 * ("prefix_sum_of"), as a real row pointer is; before, each row owned a
 * fixed slot of K entries (row_start[r] = r*K, pinned by its range).
 *
 * Lower triangle and levels (session 35): cols is "below_row" with the
 * rows of row_start and the level of level_rows, so every entry of row r
 * names a column below r, and every entry of a row of the level a row
 * outside the level (a level's rows depend only on earlier levels, as the
 * analysis phase builds them); the projection moves a column that breaks
 * either to the nearest one below that fits (README, "Structured
 * inputs").  Row 0, and a level row whose lower rows are all in the
 * level, have no such column: their entries name the row itself.  Before,
 * the range of entry i was [0, max(i / K - 1, 0)]: below its row whatever
 * the rows before it held, but narrower than "any earlier row" when
 * earlier rows were short, and blind to the level (a column could name a
 * row of the same level: a race on x that changes values, not the memory
 * touched).  Measured on the sim (bench_corpus --inputs-only, session 35)
 * with the candidates' columns now chosen below their own row: random
 * lengths 18678 (the reference), staircase with scattered rows 15075,
 * full rows scattered 13309, staircase with random columns 14816,
 * contiguous staircase 14334, the longest of 5 random inputs 18732.
 * Ownership through the level (session 52): thread t reads row
 * level_rows[t], so the rows' lengths and starts are owned through the
 * index ("owner": { "index": "level_rows" }) and the columns by those rows
 * ("owner": { "rows": "row_start", "through": "level_rows" }): the scaler
 * puts an atom thread's row where its full-launch thread's level entry
 * points.  Before, they were owned as slices of the average size
 * (per_thread 2 rows, 32 columns a thread).  The symbolic stage assumes
 * "below_row" (since session 37: each column slot against each row's
 * symbolic bounds).
 */
extern "C" __global__ void sptrsv_level(const int *level_rows, const int *row_start, const int *row_len,
                                        const int *cols, const float *vals, const float *diag,
                                        const float *b, float *x, int level_size)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= level_size)
        return;
    int row = level_rows[t];
    int begin = row_start[row];
    int end = begin + row_len[row];
    float sum = b[row];
    for (int j = begin; j < end; j++)
        sum -= vals[j] * x[cols[j]];
    x[row] = sum / diag[row];
}
