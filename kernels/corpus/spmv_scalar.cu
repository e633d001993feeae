/*
 * spmv_scalar (corpus, sparse): y = A x, A in compressed sparse rows, one
 * thread per row: the "CSR scalar" kernel of Bell & Garland (SC'09), as
 * in SHOC's spmv and cuSPARSE's early csrmv.
 *
 * Launch: grid 64 x block 256 = 16384 threads (1-D), one row each; the
 * matrix is 16384 x 16384 with at most K = 16 nonzeros per row.
 *
 * Inputs: row_start, row_len (the row pointer: row_start is the running sum of row_len) and
 * cols (column indices in [0, ncols - 1]); vals and x are fixed (their
 * values do not change the time).  Output: y.
 *
 * Where the time depends on the data: the row loop runs row_len[row]
 * times, so a warp issues max(row_len) iterations over its 32 rows
 * (divergence: short rows idle while the longest runs), and the gather
 * x[cols[j]] touches one 32-byte sector per distinct sector among the
 * active lanes (coalesced when neighbouring rows read neighbouring
 * columns, one sector per lane when they are scattered).
 *
 * Known worst (expert): rows as long as possible and every gather in a
 * sector of its own (cols chosen so that the 32 lanes of a warp never
 * share a sector and successive iterations move to sectors not read
 * before).  The first guess, every row full (row_len = K,
 * "full-scattered"), is not the sim's worst: nvcc runs a remainder loop
 * of row_len % 4 iterations, then a loop unrolled by 4, and a warp whose
 * lanes leave the loops at different iterations pays for every divergent
 * exit.  Measured on the sim (bench_corpus --inputs-only), packed rows:
 * full rows 10624 cycles, lengths K and K - 1 alternating (the reference,
 * "mixed-remainder-scattered") 16344, a staircase of lengths (lane l of a
 * warp: K - (l mod (K + 1)), "staircase-scattered") 13575.  Known best:
 * every row empty.
 *
 * Packed CSR (session 18): row_start is the running sum of row_len
 * ("prefix_sum_of"), from 0 to at most threads*K entries, as a real row
 * pointer is.  Before, each row owned a fixed slot of K entries
 * (row_start[r] = r*K, pinned by its range): there the alternating
 * lengths ran 12565 cycles and the staircase, 13402, was the reference;
 * packing the alternating rows shifts every other row's entries, and the
 * sim's reference moved to them.  Lengths stay in [0, K].  Since session
 * 50 the columns are owned by rows ("owner": { "rows": "row_start" }):
 * thread r owns cols[row_start[r]] .. cols[row_start[r] + row_len[r] - 1],
 * so the scaler puts an atom's columns where its row is read (before, a
 * contiguous slice of K per thread, right only when every earlier row
 * was full).
 */
extern "C" __global__ void spmv_scalar(const int *row_start, const int *row_len, const int *cols,
                                       const float *vals, const float *x, float *y, int nrows)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    int begin = row_start[row];
    int end = begin + row_len[row];
    float sum = 0.0f;
    for (int j = begin; j < end; j++)
        sum += vals[j] * x[cols[j]];
    y[row] = sum;
}
