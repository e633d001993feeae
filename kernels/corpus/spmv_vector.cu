/*
 * spmv_vector (corpus, sparse): y = A x, A in compressed sparse rows, one
 * warp per row: the "CSR vector" kernel of Bell & Garland (SC'09) as in
 * SHOC's spmv (spmv_csr_vector_kernel), with the warp-shuffle reduction
 * of its later versions in place of the volatile shared-memory one.
 *
 * Launch: grid 128 x block 256 = 32768 threads (1-D) = 1024 warps, one
 * row each; the matrix is 1024 x 32768 with at most K = 128 nonzeros per
 * row (a lane runs at most K / 32 = 4 iterations).
 *
 * Inputs: row_start, row_len (the row pointer: row_start is the running sum of row_len) and
 * cols (column indices in [0, ncols - 1]); vals and x are fixed (their
 * values do not change the time).  Output: y.
 *
 * Where the time depends on the data: lane l of a row's warp runs
 * ceil((row_len - l) / 32) iterations, so the warp issues
 * ceil(row_len / 32) iterations (the lanes past row_len % 32 idle in the
 * last one); the loads of cols and vals are coalesced (consecutive lanes,
 * consecutive j) whatever the input, the gather x[cols[j]] touches one
 * 32-byte sector per distinct sector among the active lanes.  The
 * shuffle reduction and the store of lane 0 cost the same for every row.
 *
 * Known worst (expert): rows as long as possible and every gather in a
 * sector of its own (the 32 lanes of an iteration in 32 different
 * sectors, no sector read twice by a row).  The first guess, every row
 * full (row_len = K: four iterations, all 32 lanes active), is not the
 * sim's worst: nvcc runs a remainder loop of (trip % 4) iterations, then
 * the loop unrolled by 4, and a lane's trip count is
 * ceil((row_len - l) / 32), so with row_len = K - 1 lanes 0..30 run the
 * unrolled loop (4) and lane 31 the remainder loop (3): the warp issues
 * 7 iteration bodies instead of 4.  Measured on the sim (bench_corpus
 * --inputs-only, packed rows): full rows 5818 cycles, row_len K - 16 (half
 * and half) 8555, K - 1 with scattered gathers 8608 (8603 with the padded
 * layout), K - 1 with random columns 8608 (the reference, "split-random"),
 * and (padded layout, session 13) the longest of 5 random
 * inputs 8520: random testing is within 1 % of the worst known, because
 * a random row_len in [97, 127] (31 of the 129 values) already splits the
 * warp over both loops and the gathers of random columns scatter too.
 * Known best: every row empty (the warp skips the loop): 1966.
 *
 * Packed CSR (session 18): row_start is the running sum of row_len
 * ("prefix_sum_of"), from 0 to at most rows*K entries, as a real row
 * pointer is (before, each row owned a fixed slot of K entries,
 * row_start[r] = r*K pinned by its range); lengths stay in [0, K].
 * Ownership: a warp owns a row.  cols (K per row, K / 32 = 4 per lane)
 * is "owner": "warp_stride" since session 32: lane l of warp w owns
 * w*K + l + 32 m, the elements it reads when every row before w is full
 * (packed shorter rows shift them; before, each thread owned 4
 * neighbours, which no lane reads).  row_start and row_len are "per_warp":
 * 1 since session 33 (warp w owns row w, through its lane 0; before, they
 * were shared buffers, and every row of an input scaled from atoms had
 * the atom's one row length).  Since session 51 cols is owned by rows by warp
 * ("owner": { "rows": "row_start", "by": "warp" }): lane l of warp w owns row
 * w's entries l, l + 32, ..., wherever rows are packed.  For an X-thread
 * symbolic run the launch is one warp of X < 32 lanes: one row, read by
 * lanes 0..X-1 only (the shuffles name the full mask).
 */
extern "C" __global__ void spmv_vector(const int *row_start, const int *row_len, const int *cols,
                                       const float *vals, const float *x, float *y, int nrows)
{
    int t = threadIdx.x;
    int id = t & (warpSize - 1);                 /* lane */
    int warps_per_block = blockDim.x / warpSize;
    int row = blockIdx.x * warps_per_block + t / warpSize;
    if (row < nrows) {
        int warp_start = row_start[row];
        int warp_end = warp_start + row_len[row];
        float sum = 0.0f;
        for (int j = warp_start + id; j < warp_end; j += warpSize)
            sum += vals[j] * x[cols[j]];
        for (int offset = warpSize / 2; offset > 0; offset >>= 1)
            sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (id == 0)
            y[row] = sum;
    }
}
