/*
 * tensor_pipeline.cu — a double-buffered TMA pipeline (sm_90), the shape
 * Hopper kernels give their main loops: two shared boxes, one mbarrier
 * each; thread 0 issues the copy of tile k + 1 into one buffer while the
 * block reads tile k from the other, waiting on its mbarrier's phase
 * parity (k / 2) & 1, so each object's phases are reused every other tile.
 * Block b reads rows 4b..4b+3 of src, 6 tiles of 32 columns; thread t adds
 * v * (v & 3) over the values v of its column.  tests/specs/
 * tensor_pipeline.json; the PTX is committed (nvcc -arch=sm_90 -ptx
 * -lineinfo).
 */
#include <cuda.h>
#include <stdint.h>
#define BW 32
#define BH 4
static __device__ unsigned sa(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
static __device__ void load(const CUtensorMap *m, unsigned box, unsigned bar, int x, int y)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(BW * BH * 4) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 ::"r"(box), "l"((uint64_t)m), "r"(x), "r"(y), "r"(bar) : "memory");
}
static __device__ void wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n.reg .pred P;\nW_%=:\nmbarrier.try_wait.parity.shared.b64 P, [%0], %1;\n@!P bra W_%=;\n}" ::"r"(bar), "r"(parity) : "memory");
}
extern "C" __global__ void pipeline(const __grid_constant__ CUtensorMap src, int *out, int ktiles)
{
    __shared__ alignas(128) int box[2][BH][BW];
    __shared__ alignas(8) unsigned long long bar[2];
    int t = threadIdx.x, acc = 0;
    if (t == 0) {
        for (int s = 0; s < 2; s++) asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(sa(&bar[s])));
        asm volatile("fence.proxy.async.shared::cta;");
    }
    __syncthreads();
    int y = blockIdx.x * BH;
    if (t == 0) load(&src, sa(&box[0][0][0]), sa(&bar[0]), 0, y);
    for (int k = 0; k < ktiles; k++) {
        int s = k & 1;
        if (t == 0 && k + 1 < ktiles) load(&src, sa(&box[s ^ 1][0][0]), sa(&bar[s ^ 1]), (k + 1) * BW, y);
        wait(sa(&bar[s]), (k >> 1) & 1);
        for (int r = 0; r < BH; r++) {
            int v = box[s][r][t];
            for (int j = 0; j < (v & 3); j++) acc += v;
        }
        __syncthreads();
    }
    out[blockIdx.x * BW + t] = acc;
}
