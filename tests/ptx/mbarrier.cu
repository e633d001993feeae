/* mbarrier: a block-scope cuda::barrier (mbarrier.init / arrive / test_wait in shared memory,
 * with the library's spin loop of %globaltimer reads and nanosleep around test_wait).  Thread t
 * publishes data[i] in shared memory, every thread arrives and waits, then thread t loops
 * (neighbour's value % 8) times over its neighbour's element (t + 1) % blockDim.x: the result is
 * right only if the barrier held every thread until all had published; then a second phase of
 * the same barrier (arrive, then wait on the token) before the store. */
#include <cuda/barrier>

/* the documented way to declare a block-scope barrier; nvcc warns about its constructor */
#pragma nv_diag_suppress static_var_with_dynamic_init

extern "C" __global__ void mbarrier_publish(const int *data, int *out, int n)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int buf[256];
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? data[i] : 0;
    bar.arrive_and_wait();
    int v = buf[(threadIdx.x + 1) % blockDim.x], acc = 0;
    for (int k = 0; k < v % 8; k++)
        acc += k + v;
    auto token = bar.arrive();
    bar.wait(std::move(token));
    if (i < n)
        out[i] = acc;
}
