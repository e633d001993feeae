/* special_regs: every index special register of a 3-D launch plus %laneid / %warpid via inline asm.
 * out[i*14 + k] = tid.xyz, ntid.xyz, ctaid.xyz, nctaid.xyz, laneid (== linear tid % 32), linear tid / 32. */

extern "C" __global__ void special_regs(unsigned *out)
{
    unsigned bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned bs = blockDim.x * blockDim.y * blockDim.z;
    unsigned i = bx * bs + t;
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    unsigned *o = out + i * 14;
    o[0] = threadIdx.x; o[1] = threadIdx.y; o[2] = threadIdx.z;
    o[3] = blockDim.x;  o[4] = blockDim.y;  o[5] = blockDim.z;
    o[6] = blockIdx.x;  o[7] = blockIdx.y;  o[8] = blockIdx.z;
    o[9] = gridDim.x;   o[10] = gridDim.y;  o[11] = gridDim.z;
    o[12] = lane;
    o[13] = t / 32u;
}
