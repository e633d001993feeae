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
 * row_len (the row pointer, see the spec gap below) and cols (column
 * indices, each below its own row); vals, diag and b are fixed (their
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
 * its own.  Measured on the sim (bench_corpus --inputs-only): every row
 * full (K) with scattered rows and gathers 13588 cycles, the staircase
 * with contiguous rows 15204, with scattered rows 15309, with scattered
 * rows and random columns 15323 (the reference, "staircase-random"), and
 * the longest of 5 random inputs 15132 (14936 before level_rows were
 * distinct): random testing is within 2 % of the worst known (random
 * lengths diverge within a warp as the staircase does, random rows and
 * columns scatter).
 * Known best: contiguous level rows, every row empty: 2708.
 *
 * Structure: a real level is a set of distinct rows, and level_rows is
 * "distinct" (a search that repeats a row has it moved to the next free
 * one).
 *
 * Spec gaps: real CSR has one row pointer; with "offsets" the spec could
 * say so, but the search would then build row lengths as the gaps between
 * sorted values, which no operator aims at, so each row keeps a fixed
 * slot of K entries (row_start[r] = r*K, pinned by its range) and its
 * length is row_len[r] in [0, K].  A column must name an earlier row: the
 * range of element i (row i / K) is [0, max(i / K - 1, 0)], so row 0 may
 * name itself (its "off-diagonal" entries read x[0]).  The columns of a
 * real level's rows all lie in earlier levels; the spec cannot say "not in
 * this level", so a column may name a row of the same level (a race on x
 * that changes values, not the memory touched or the time).
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
