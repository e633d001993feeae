/*
 * tensor_tiles.cu — a kernel that moves its data with tensor maps (TMA,
 * sm_90): each block loads one 32 x 4 box of `src` (i32, boxes placed 8
 * columns right of and 1 row below the block's tile, so the last boxes
 * hang off the tensor and read zeros there) with cp.async.bulk.tensor into
 * shared memory, completing its bytes on an mbarrier; thread t loops
 * (row 0, column t) & 7 times over the box, writes the sum into row 1 and
 * the block stores the box to `dst` with a tensor copy (elements outside
 * the tensor are not written).  tests/specs/tensor_tiles.json; the PTX is
 * committed (nvcc -arch=sm_90 -ptx -lineinfo), as sm_90 is above the
 * project's default target.
 */
#include <cuda.h>
#include <stdint.h>

#define BOX_W 32
#define BOX_H 4

static __device__ unsigned shared_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

extern "C" __global__ void tensor_tiles(const __grid_constant__ CUtensorMap src,
                                        const __grid_constant__ CUtensorMap dst, int tiles_x)
{
    __shared__ alignas(128) int box[BOX_H][BOX_W];
    __shared__ alignas(8) unsigned long long bar;
    unsigned sbar = shared_addr(&bar), sbox = shared_addr(&box[0][0]);
    int x = (int)(blockIdx.x % tiles_x) * BOX_W + 8, y = (int)(blockIdx.x / tiles_x) * BOX_H + 1;
    int t = threadIdx.x;
    if (t == 0) {
        asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(sbar));
        asm volatile("fence.proxy.async.shared::cta;");
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "r"((unsigned)sizeof box)
                     : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(sbox), "l"((uint64_t)&src), "r"(x), "r"(y), "r"(sbar)
                     : "memory");
    }
    asm volatile("{\n.reg .pred P;\nWAIT_%=:\nmbarrier.try_wait.parity.shared.b64 P, [%0], 0;\n@!P bra WAIT_%=;\n}"
                 ::"r"(sbar) : "memory");
    int acc = 0, v = box[0][t];
    for (int k = 0; k < (v & 7); k++)
        acc += box[k & 3][(t + k) & 31];
    __syncthreads();
    box[1][t] = acc;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"((uint64_t)&dst), "r"(x), "r"(y), "r"(sbox) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}
