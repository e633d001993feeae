/* fake_inc: the kernel the fake CUDA driver (tests/fakecuda/fakecuda.c)
 * implements in C, so that the cuda backend runs end to end without a GPU
 * (tests/test_cuda_fake.c; spec tests/specs/cuda_fake_inc.json).
 * For i = blockIdx.x * blockDim.x + threadIdx.x < n, with v = data[i]:
 *   v == 1000001 stores through a null pointer (illegal address),
 *   v == 1000002 spins until data[i] becomes 7 (never: a hang),
 *   v == 1000003 traps,
 *   otherwise data[i] = v + 1 (in place) and out[i] += v + 1, so that a
 *   launch that does not start from the pristine input and a zeroed output
 *   gives another result.
 * fake_inc_smem: the same (without the special values) through a 40 KiB
 * static shared array, so that with dynamic shared memory from the launch
 * a block can need more than the 48 KiB it gets without opting in
 * (blockDim.x <= 10240). */

extern "C" __global__ void fake_inc(unsigned *data, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned v = data[i];
    if (v == 1000001u) {
        *(volatile unsigned *)0 = v;
        return;
    }
    if (v == 1000002u) {
        while (*(volatile unsigned *)&data[i] != 7u) {
        }
        return;
    }
    if (v == 1000003u)
        __trap();
    data[i] = v + 1u;
    out[i] += v + 1u;
}

extern "C" __global__ void fake_inc_smem(unsigned *data, unsigned *out, int n)
{
    __shared__ unsigned stage[10240];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool in = i < n;
    stage[threadIdx.x] = in ? data[i] : 0u;
    __syncthreads();
    if (!in)
        return;
    unsigned v = stage[threadIdx.x];
    data[i] = v + 1u;
    out[i] += v + 1u;
}
