/* matmul_tiled: C = A * B for n x n int matrices with 16 x 16 shared-memory tiles
 * (2-D grid of 16 x 16 blocks, any n; out-of-range tile entries are 0). */

#define T 16

extern "C" __global__ void matmul_tiled(const int *A, const int *B, int *C, int n)
{
    __shared__ int as[T][T];
    __shared__ int bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty;
    int col = blockIdx.x * T + tx;
    int acc = 0;

    for (int t0 = 0; t0 < n; t0 += T) {
        as[ty][tx] = (row < n && t0 + tx < n) ? A[row * n + t0 + tx] : 0;
        bs[ty][tx] = (col < n && t0 + ty < n) ? B[(t0 + ty) * n + col] : 0;
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < T; k++)
            acc += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = acc;
}
