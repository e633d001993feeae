/*
 * rle_decode (holdout): run-length decoding, one segment per thread.
 *
 * What it computes: the encoded stream is NRUNS (value, length) pairs in
 * two arrays, values[] and lengths[]; run_out[r] is where run r's output
 * starts (the exclusive prefix sum of lengths, computed by a scan before
 * this kernel, as GPU RLE decoders such as nvcomp's and cuDF's do).  The
 * runs are cut into NSEG = threads segments by seg_start[] (NSEG+1
 * offsets, seg_start[0] = 0, seg_start[NSEG] = NRUNS; a segment is runs
 * seg_start[t] .. seg_start[t+1]-1).  Thread t decodes segment t: for each
 * run, it writes `length` copies of `value` to out[run_out[r] ...].
 *
 * Launch: 1-D grid G x 128 threads, one segment per thread (a thread past
 * nseg does nothing).  Default sizes: NRUNS = 4 runs per segment on
 * average, lengths 1..LMAX = 16, and the output holds OUTCAP = 8 * NRUNS
 * values (the scan's total must fit: a longer stream would be cut into
 * another launch).
 *
 * Where the time depends on the data:
 *   - the outer loop's trip count is the segment's run count (seg_start),
 *     the inner loop's the run's length: a warp runs as long as its
 *     slowest lane, so unequal segments make lanes idle (divergence);
 *   - each run costs three dependent-ish loads (value, length, run_out)
 *     and each element one store; lanes writing far apart cost a sector
 *     each.
 *
 * Expert worst (built by rle_decode.worst.sh): every run in the last
 * thread's segment (seg_start = 0 everywhere but the end), so one thread
 * decodes the whole stream serially while every other thread has nothing,
 * with the lengths spending the whole output budget OUTCAP (the scan's
 * total), spread evenly over the runs (LMAX would run out of budget after
 * OUTCAP/LMAX runs; each run also costs loads).  Candidates and cycles are
 * listed in rle_decode.worst.sh.
 *
 * What the spec cannot state: nothing essential.  seg_start is CSR
 * offsets ("structure": "offsets"), run_out a running sum of lengths
 * ("prefix_sum_of") whose total is bounded by the output's size.  A
 * real encoder never emits two adjacent runs of the same value (it would
 * merge them); the spec cannot say so, but the value does not change the
 * time.
 */
extern "C" __global__ void rle_decode(const int *values, const int *lengths,
                                      const int *run_out,
                                      const int *seg_start, int *out,
                                      int nseg)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nseg)
        return;
    int r0 = seg_start[t];
    int r1 = seg_start[t + 1];
    for (int r = r0; r < r1; r++) {
        int v = values[r];
        int len = lengths[r];
        int pos = run_out[r];
        for (int j = 0; j < len; j++)
            out[pos + j] = v;
    }
}
