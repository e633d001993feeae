/* loop_nested: triangular nested loops.  out[i] = sum over r < rows, c <= r of
 * m[r*cols + (c + i) % cols], for i < cols (cols >= 1, rows <= cols assumed by the caller). */

extern "C" __global__ void loop_nested(const int *m, int *out, int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cols)
        return;
    int s = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c <= r; c++)
            s += m[r * cols + (c + i) % cols];
    out[i] = s;
}
