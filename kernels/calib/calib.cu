/*
 * calib.cu — the microbenchmarks of `warphunt calibrate` (harness/calibrate.c):
 * each kernel times sections of hand-written PTX with %clock64 and writes
 * the cycle counts to `out`, so that the same kernels measure a GPU (cuda
 * backend) and the sim (whose profile they must then recover).
 *
 * Every quantity is measured as the difference of two sections that differ
 * only in how many times the measured thing repeats (N and 2N), so the
 * cost of reading the clock and of getting into the section cancels.  A
 * section's last instruction feeds the clock read where completion is
 * what is measured (loads, atomics): a GPU issues in order and waits for
 * the operand, and so does the sim.  The PTX is inline `asm volatile`, so
 * neither nvcc nor ptxas can fold or reorder it; chains use `mad`/`fma`
 * with operands the compiler cannot know, which no assembler shortens.
 *
 * Launches (kernels/calib/*.json): one thread for the chains and the
 * pointer chases, one warp for throughput, bank conflicts, atomics and
 * barriers, and an empty kernel for the launch overhead.
 */

#define MAD1 "mad.lo.u32 %0, %0, %1, %2;\n\t"
#define MAD8 MAD1 MAD1 MAD1 MAD1 MAD1 MAD1 MAD1 MAD1
#define MAD32 MAD8 MAD8 MAD8 MAD8
#define FMA1 "fma.rn.f32 %0, %0, %1, %2;\n\t"
#define FMA8 FMA1 FMA1 FMA1 FMA1 FMA1 FMA1 FMA1 FMA1
#define FMA32 FMA8 FMA8 FMA8 FMA8

static __device__ __forceinline__ long long clk(void)
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
    return t;
}

/* Latency: one dependent chain of 64 and of 128 mad.lo.u32 (alu) and
 * fma.rn.f32 (fma).  One thread. */
extern "C" __global__ void calib_chain(long long *out, unsigned a, unsigned b, float fa, float fb)
{
    unsigned x = a ^ b;
    float f = fa + fb;
    asm volatile(MAD1 : "+r"(x) : "r"(a), "r"(b));
    long long t0 = clk();
    asm volatile(MAD32 MAD32 : "+r"(x) : "r"(a), "r"(b));
    long long t1 = clk();
    asm volatile(MAD32 MAD32 MAD32 MAD32 : "+r"(x) : "r"(a), "r"(b));
    long long t2 = clk();
    asm volatile(FMA1 : "+f"(f) : "f"(fa), "f"(fb));
    long long t3 = clk();
    asm volatile(FMA32 FMA32 : "+f"(f) : "f"(fa), "f"(fb));
    long long t4 = clk();
    asm volatile(FMA32 FMA32 FMA32 FMA32 : "+f"(f) : "f"(fa), "f"(fb));
    long long t5 = clk();
    out[0] = t1 - t0;
    out[1] = t2 - t1;
    out[2] = t4 - t3;
    out[3] = t5 - t4;
    out[4] = (long long)x + (long long)__float_as_int(f);
}

/* Issue: eight independent chains, 8 x 8 and 8 x 16 instructions, in one
 * warp: the pipe, not the latency, sets the pace. */
#define ISSUE_ROUND(OP) \
    OP " %0, %0, %8, %9;\n\t" OP " %1, %1, %8, %9;\n\t" OP " %2, %2, %8, %9;\n\t" OP " %3, %3, %8, %9;\n\t" \
    OP " %4, %4, %8, %9;\n\t" OP " %5, %5, %8, %9;\n\t" OP " %6, %6, %8, %9;\n\t" OP " %7, %7, %8, %9;\n\t"
#define ISSUE8(OP) ISSUE_ROUND(OP) ISSUE_ROUND(OP) ISSUE_ROUND(OP) ISSUE_ROUND(OP) \
    ISSUE_ROUND(OP) ISSUE_ROUND(OP) ISSUE_ROUND(OP) ISSUE_ROUND(OP)

extern "C" __global__ void calib_issue(long long *out, unsigned a, unsigned b, float fa, float fb)
{
    unsigned x0 = a, x1 = a + 1, x2 = a + 2, x3 = a + 3, x4 = a + 4, x5 = a + 5, x6 = a + 6, x7 = a + 7;
    float f0 = fa, f1 = fa + 1, f2 = fa + 2, f3 = fa + 3, f4 = fa + 4, f5 = fa + 5, f6 = fa + 6, f7 = fa + 7;
    /* untimed: the chains' operands ready and the pipe busy, as in the sections */
    asm volatile(ISSUE_ROUND("mad.lo.u32")
                 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4), "+r"(x5), "+r"(x6), "+r"(x7)
                 : "r"(a), "r"(b));
    long long t0 = clk();
    asm volatile(ISSUE8("mad.lo.u32")
                 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4), "+r"(x5), "+r"(x6), "+r"(x7)
                 : "r"(a), "r"(b));
    long long t1 = clk();
    asm volatile(ISSUE8("mad.lo.u32") ISSUE8("mad.lo.u32")
                 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3), "+r"(x4), "+r"(x5), "+r"(x6), "+r"(x7)
                 : "r"(a), "r"(b));
    long long t2 = clk();
    asm volatile(ISSUE_ROUND("fma.rn.f32")
                 : "+f"(f0), "+f"(f1), "+f"(f2), "+f"(f3), "+f"(f4), "+f"(f5), "+f"(f6), "+f"(f7)
                 : "f"(fa), "f"(fb));
    long long t2f = clk();
    asm volatile(ISSUE8("fma.rn.f32")
                 : "+f"(f0), "+f"(f1), "+f"(f2), "+f"(f3), "+f"(f4), "+f"(f5), "+f"(f6), "+f"(f7)
                 : "f"(fa), "f"(fb));
    long long t3 = clk();
    asm volatile(ISSUE8("fma.rn.f32") ISSUE8("fma.rn.f32")
                 : "+f"(f0), "+f"(f1), "+f"(f2), "+f"(f3), "+f"(f4), "+f"(f5), "+f"(f6), "+f"(f7)
                 : "f"(fa), "f"(fb));
    long long t4 = clk();
    if (threadIdx.x == 0) {
        out[0] = t1 - t0;
        out[1] = t2 - t1;
        out[2] = t3 - t2f;
        out[3] = t4 - t3;
        out[4] = (long long)(x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7) +
                 __float_as_int(f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7);
    }
}

/* A pointer chase: each hop loads the next index (next[i] = i), adds the
 * stride of 32 elements (128 bytes: a new sector and line every hop),
 * wraps, and forms the address: four ALU instructions and one load. */
#define HOP_GLOBAL \
    "ld.global.cg.u32 %0, [%1];\n\t" \
    "add.u32 %0, %0, 32;\n\t" \
    "and.b32 %0, %0, 4095;\n\t" \
    "mul.wide.u32 %1, %0, 4;\n\t" \
    "add.u64 %1, %1, %2;\n\t"
#define HOP8_GLOBAL HOP_GLOBAL HOP_GLOBAL HOP_GLOBAL HOP_GLOBAL HOP_GLOBAL HOP_GLOBAL HOP_GLOBAL HOP_GLOBAL
#define HOP32_GLOBAL HOP8_GLOBAL HOP8_GLOBAL HOP8_GLOBAL HOP8_GLOBAL

/* Global load latency, cold (each sector's first touch) and warm: 32 hops
 * from element 0 and 64 from element 1024, then the same two chases
 * again.  One thread; next has 4096 elements (iota). */
extern "C" __global__ void calib_global(long long *out, const unsigned *next)
{
    unsigned long long base = (unsigned long long)next, p;
    unsigned v = 0;
    long long t[8];
    /* p starts inside the asm (an early-clobbered output: it must not
     * share base's register) */
    for (int pass = 0; pass < 2; pass++) {
        t[4 * pass] = clk();
        asm volatile("mov.u64 %1, %2;\n\t" HOP32_GLOBAL : "+r"(v), "=&l"(p) : "l"(base));
        t[4 * pass + 1] = clk();
        asm volatile("add.u64 %1, %2, 4096;\n\t" HOP32_GLOBAL HOP32_GLOBAL : "+r"(v), "=&l"(p) : "l"(base));
        t[4 * pass + 3] = clk();
    }
    out[0] = t[1] - t[0];   /* cold, 32 hops */
    out[1] = t[3] - t[1];   /* cold, 64 hops */
    out[2] = t[5] - t[4];   /* warm, 32 hops */
    out[3] = t[7] - t[5];   /* warm, 64 hops */
    out[4] = v;
    out[5] = (long long)p;
}

#define HOP_SHARED \
    "ld.shared.u32 %0, [%1];\n\t" \
    "add.u32 %0, %0, 32;\n\t" \
    "and.b32 %0, %0, 1023;\n\t" \
    "shl.b32 %1, %0, 2;\n\t" \
    "add.u32 %1, %1, %2;\n\t"
#define HOP8_SHARED HOP_SHARED HOP_SHARED HOP_SHARED HOP_SHARED HOP_SHARED HOP_SHARED HOP_SHARED HOP_SHARED
#define HOP32_SHARED HOP8_SHARED HOP8_SHARED HOP8_SHARED HOP8_SHARED

/* Eight independent shared loads by the 32 lanes (addresses in %8, at
 * byte offsets 0, O1, ..., O7), then one add of the first and the last:
 * it waits for the last load, which leaves the shared-memory unit after
 * the seven before it. */
#define LOADS8(O1, O2, O3, O4, O5, O6, O7) \
    "ld.shared.u32 %0, [%8];\n\t" "ld.shared.u32 %1, [%8+" #O1 "];\n\t" \
    "ld.shared.u32 %2, [%8+" #O2 "];\n\t" "ld.shared.u32 %3, [%8+" #O3 "];\n\t" \
    "ld.shared.u32 %4, [%8+" #O4 "];\n\t" "ld.shared.u32 %5, [%8+" #O5 "];\n\t" \
    "ld.shared.u32 %6, [%8+" #O6 "];\n\t" "ld.shared.u32 %7, [%8+" #O7 "];\n\t" \
    "add.u32 %0, %0, %7;\n\t"

/* Shared memory: the latency of a chase (32 and 64 hops, lane 0), and
 * eight loads without a bank conflict (lane l reads word l) and with a
 * 32-way conflict (lane l reads word 32 l: one bank).  One warp. */
extern "C" __global__ void calib_shared(long long *out)
{
    __shared__ unsigned s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x)
        s[i] = i;
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(s), p, v = 0;
    long long t0 = 0, t1 = 0, t3 = 0;
    if (threadIdx.x == 0) {
        t0 = clk();
        asm volatile("mov.u32 %1, %2;\n\t" HOP32_SHARED : "+r"(v), "=&r"(p) : "r"(base));
        t1 = clk();
        asm volatile("mov.u32 %1, %2;\n\t" HOP32_SHARED HOP32_SHARED : "+r"(v), "=&r"(p) : "r"(base));
        t3 = clk();
    }
    __syncwarp();
    unsigned r0, r1, r2, r3, r4, r5, r6, r7;
    unsigned flat = base + threadIdx.x * 4, conflict = base + threadIdx.x * 128;
    long long t4 = clk();
    asm volatile(LOADS8(128, 256, 384, 512, 640, 768, 896) : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3), "=r"(r4), "=r"(r5), "=r"(r6), "=r"(r7)
                 : "r"(flat));
    long long t5 = clk();
    unsigned sum = r0;
    asm volatile(LOADS8(4, 8, 12, 16, 20, 24, 28) : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3), "=r"(r4), "=r"(r5), "=r"(r6), "=r"(r7)
                 : "r"(conflict));
    long long t6 = clk();
    if (threadIdx.x == 0) {
        out[0] = t1 - t0;   /* chase, 32 hops */
        out[1] = t3 - t1;   /* chase, 64 hops */
        out[2] = t5 - t4;   /* eight loads, one wavefront each */
        out[3] = t6 - t5;   /* eight loads, 32 wavefronts each */
        out[4] = v + sum + r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7;
        out[5] = p;
    }
}

#define RED1 "red.global.add.u32 [%1], 1;\n\t"
#define RED8 RED1 RED1 RED1 RED1 RED1 RED1 RED1 RED1
/* after N same-address reductions, an atomic on the same word whose result
 * is used: it is served after them, so the section ends when all are */
#define ATOM_LAST "atom.global.add.u32 %0, [%1], 1;\n\t" "add.u32 %0, %0, 1;\n\t"

/* Same-address atomics: the 32 lanes of a warp add to one word, 8 and 16
 * times (then once more, waited for). */
extern "C" __global__ void calib_atomic(long long *out, unsigned *cell)
{
    unsigned r;
    asm volatile(ATOM_LAST : "=r"(r) : "l"(cell) : "memory");
    unsigned sum = r;
    long long t0 = clk();
    asm volatile(RED8 ATOM_LAST : "=r"(r) : "l"(cell) : "memory");
    long long t1 = clk();
    sum += r;
    asm volatile(RED8 RED8 ATOM_LAST : "=r"(r) : "l"(cell) : "memory");
    long long t2 = clk();
    if (threadIdx.x == 0) {
        out[0] = t1 - t0;
        out[1] = t2 - t1;
        out[4] = sum + r;
    }
}

#define BAR1 "bar.sync 0;\n\t"
#define BAR8 BAR1 BAR1 BAR1 BAR1 BAR1 BAR1 BAR1 BAR1

/* Barriers: 8 and 16 bar.sync in a row by one warp. */
extern "C" __global__ void calib_barrier(long long *out)
{
    long long t0 = clk();
    asm volatile(BAR8 ::: "memory");
    long long t1 = clk();
    asm volatile(BAR8 BAR8 ::: "memory");
    long long t2 = clk();
    if (threadIdx.x == 0) {
        out[0] = t1 - t0;
        out[1] = t2 - t1;
    }
}

/* Launch overhead: a kernel that does nothing; its whole time is the
 * launch's. */
extern "C" __global__ void calib_empty(long long *out)
{
    (void)out;
}
