/* sorted_rows: thread t walks row nrows-1-t of a CSR adjacency (columns below their
 * row) and counts the neighbours out of order, for "below_row"'s "increasing": with
 * it assumed, the symbolic stage never takes the out-of-order leg. */
extern "C" __global__ void sorted_rows(const int *ptr, const int *cols, int *bad, int nrows)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nrows) return;
    int row = nrows - 1 - t;
    for (int j = ptr[row]; j + 1 < ptr[row + 1]; j++)
        if (cols[j] >= cols[j + 1]) atomicAdd(bad, 1);
}
