/* index_2d: matrix transpose with a 2-D grid of 2-D blocks (naive, no shared memory).
 * out[x*rows + y] = in[y*cols + x] for x < cols, y < rows. */

extern "C" __global__ void index_2d(const float *in, float *out, int rows, int cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows)
        out[x * rows + y] = in[y * cols + x];
}
