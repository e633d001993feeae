/* bitonic_sort_shared: each block of 256 threads sorts its 256 ints ascending in shared memory
 * with a bitonic network (blockDim.x == 256, n a multiple of 256).  Reference: qsort per 256-slice. */

#define N 256

extern "C" __global__ void bitonic_sort_shared(int *data)
{
    __shared__ int s[N];
    unsigned t = threadIdx.x;
    int *d = data + blockIdx.x * N;

    s[t] = d[t];
    __syncthreads();
    for (unsigned k = 2; k <= N; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned p = t ^ j;
            if (p > t) {
                int a = s[t], b = s[p];
                bool up = (t & k) == 0;
                if ((a > b) == up) {
                    s[t] = b;
                    s[p] = a;
                }
            }
            __syncthreads();
        }
    }
    d[t] = s[t];
}
