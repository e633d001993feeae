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
 * nvcc cannot fold or reorder it; chains use `mad`/`fma` with operands the
 * compiler cannot know, which no assembler shortens.  ptxas, though,
 * schedules a read of %clock64 like any instruction without operands: on
 * sm_90 it put every clock read of the global chase before its first load
 * (sections of 2 cycles).  So where memory is timed, a section's first
 * address depends on the clock read before it (after_clk: the clock's sign
 * bit, 0, which no compiler can know) and the read after it follows a
 * volatile shared store of the section's last value (clk_after), which
 * waits for the value and which ptxas does not move a clock read above.
 * Both cost the same in every section, so they cancel in the differences.
 *
 * Launches (kernels/calib/NAME.json): one thread for the chains and the
 * pointer chases, one warp for throughput, bank conflicts, atomics,
 * barriers and divergence, whole grids streaming memory for the
 * bandwidths (timed by the harness, as is the empty kernel for the launch
 * overhead).
 */

#define X8(S) S S S S S S S S
#define X32(S) X8(S) X8(S) X8(S) X8(S)

static __device__ __forceinline__ long long clk(void)
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
    return t;
}

/* 0, from the clock read t: added to a section's first operand, it keeps
 * the section after the read. */
static __device__ __forceinline__ unsigned after_clk(long long t)
{
    return (unsigned)((unsigned long long)t >> 63);
}

/* The clock, read once v is known: v goes to a volatile shared store
 * first, which waits for it, and ptxas keeps a clock read after a store
 * (it hoists one above loads, or above a predicate on v: checked on the
 * SASS of sm_90). */
static __device__ __forceinline__ long long clk_after(unsigned v)
{
    __shared__ unsigned sink;
    long long t;
    asm volatile("st.volatile.shared.u32 [%1], %2;\n\tmov.u64 %0, %%clock64;"
                 : "=l"(t) : "r"((unsigned)__cvta_generic_to_shared(&sink)), "r"(v) : "memory");
    return t;
}

/* One step of a dependent chain per instruction class (the sim's classes:
 * alu, fma, fp64, sfu, idiv, fdiv, ddiv); the values stay finite. */
#define STEP_ALU "mad.lo.u32 %0, %0, %1, %2;\n\t"
#define STEP_FMA "fma.rn.f32 %0, %0, %1, %2;\n\t"
#define STEP_FP64 "fma.rn.f64 %0, %0, %1, %2;\n\t"
#define STEP_SFU "rsqrt.approx.ftz.f32 %0, %0;\n\t"
#define STEP_IDIV "div.u32 %0, %0, %1;\n\t"
#define STEP_FDIV "div.rn.f32 %0, %1, %0;\n\t"
#define STEP_DDIV "div.rn.f64 %0, %1, %0;\n\t"

/* Class i's chain: one untimed step (its operand ready), then 32 steps
 * and 64 steps, timed: out[2i], out[2i + 1].  The operands follow S. */
#define TIME_CHAIN(i, S, ...) \
    do { \
        asm volatile(S : __VA_ARGS__); \
        long long c0_ = clk(); \
        asm volatile(X32(S) : __VA_ARGS__); \
        long long c1_ = clk(); \
        asm volatile(X32(S) X32(S) : __VA_ARGS__); \
        long long c2_ = clk(); \
        out[2 * (i)] = c1_ - c0_; \
        out[2 * (i) + 1] = c2_ - c1_; \
    } while (0)

/* Latency: a dependent chain of each class, 32 and 64 long.  One thread. */
extern "C" __global__ void calib_chain(long long *out, unsigned a, unsigned b, float fa, float fb)
{
    unsigned x = a ^ b, q = a | 1, three = 3;
    float f = fa + fb, r = fa + 1, h = fb + 2;
    double g = fa, da = fa + 0.5, db = fb, k = fb + 3;
    TIME_CHAIN(0, STEP_ALU, "+r"(x) : "r"(a), "r"(b));
    TIME_CHAIN(1, STEP_FMA, "+f"(f) : "f"(fa), "f"(fb));
    TIME_CHAIN(2, STEP_FP64, "+d"(g) : "d"(da), "d"(db));
    TIME_CHAIN(3, STEP_SFU, "+f"(r));
    TIME_CHAIN(4, STEP_IDIV, "+r"(q) : "r"(three));
    TIME_CHAIN(5, STEP_FDIV, "+f"(h) : "f"(fa));
    TIME_CHAIN(6, STEP_DDIV, "+d"(k) : "d"(da));
    out[14] = (long long)x + q + __float_as_int(f + r + h) + __double_as_longlong(g + k);
}

/* Issue: eight independent chains of one class in one warp, 8 x 8 and
 * 8 x 16 instructions: the class's pipe, not its latency, sets the pace.
 * I_*(k) is chain k's step (operands %0..%7 the chains, %8 and %9 inputs). */
#define I_ALU(k) "mad.lo.u32 %" #k ", %" #k ", %8, %9;\n\t"
#define I_FMA(k) "fma.rn.f32 %" #k ", %" #k ", %8, %9;\n\t"
#define I_FP64(k) "fma.rn.f64 %" #k ", %" #k ", %8, %9;\n\t"
#define I_SFU(k) "rsqrt.approx.ftz.f32 %" #k ", %" #k ";\n\t"
#define I_IDIV(k) "div.u32 %" #k ", %" #k ", %8;\n\t"
#define I_FDIV(k) "div.rn.f32 %" #k ", %8, %" #k ";\n\t"
#define I_DDIV(k) "div.rn.f64 %" #k ", %8, %" #k ";\n\t"
#define ROUND(I) I(0) I(1) I(2) I(3) I(4) I(5) I(6) I(7)
#define CHAINS8(c, v) "+" c(v##0), "+" c(v##1), "+" c(v##2), "+" c(v##3), "+" c(v##4), "+" c(v##5), \
                      "+" c(v##6), "+" c(v##7)

/* Class i's issue sections, timed: out[2i], out[2i + 1]. */
#define TIME_ISSUE(i, I, ...) \
    do { \
        asm volatile(ROUND(I) : __VA_ARGS__); \
        long long c0_ = clk(); \
        asm volatile(X8(ROUND(I)) : __VA_ARGS__); \
        long long c1_ = clk(); \
        asm volatile(X8(ROUND(I)) X8(ROUND(I)) : __VA_ARGS__); \
        long long c2_ = clk(); \
        if (threadIdx.x == 0) { \
            out[2 * (i)] = c1_ - c0_; \
            out[2 * (i) + 1] = c2_ - c1_; \
        } \
    } while (0)

#define DECL8(T, v, init) T v##0 = (init), v##1 = (init) + 1, v##2 = (init) + 2, v##3 = (init) + 3, \
                          v##4 = (init) + 4, v##5 = (init) + 5, v##6 = (init) + 6, v##7 = (init) + 7
#define SUM8(v) (v##0 + v##1 + v##2 + v##3 + v##4 + v##5 + v##6 + v##7)

extern "C" __global__ void calib_issue(long long *out, unsigned a, unsigned b, float fa, float fb)
{
    DECL8(unsigned, x, a);
    DECL8(float, f, fa);
    DECL8(double, g, (double)fa);
    DECL8(float, r, fb + 1);
    DECL8(unsigned, q, a | 1);
    DECL8(float, h, fb + 2);
    DECL8(double, k, (double)fb + 3);
    unsigned three = 3;
    double da = fa + 0.5, db = fb;
    TIME_ISSUE(0, I_ALU, CHAINS8("r", x) : "r"(a), "r"(b));
    TIME_ISSUE(1, I_FMA, CHAINS8("f", f) : "f"(fa), "f"(fb));
    TIME_ISSUE(2, I_FP64, CHAINS8("d", g) : "d"(da), "d"(db));
    TIME_ISSUE(3, I_SFU, CHAINS8("f", r));
    TIME_ISSUE(4, I_IDIV, CHAINS8("r", q) : "r"(three));
    TIME_ISSUE(5, I_FDIV, CHAINS8("f", h) : "f"(fa));
    TIME_ISSUE(6, I_DDIV, CHAINS8("d", k) : "d"(da));
    if (threadIdx.x == 0)
        out[14] = (long long)SUM8(x) + SUM8(q) + __float_as_int(SUM8(f) + SUM8(r) + SUM8(h)) +
                  __double_as_longlong(SUM8(g) + SUM8(k));
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
        asm volatile("mov.u64 %1, %2;\n\t" HOP32_GLOBAL : "+r"(v), "=&l"(p) : "l"(base + after_clk(t[4 * pass])));
        t[4 * pass + 1] = clk_after(v);
        asm volatile("add.u64 %1, %2, 4096;\n\t" HOP32_GLOBAL HOP32_GLOBAL
                     : "+r"(v), "=&l"(p) : "l"(base + after_clk(t[4 * pass + 1])));
        t[4 * pass + 3] = clk_after(v);
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
 * the seven before it.  The caller uses every value after the section:
 * ptxas drops a load whose value is never used, inline asm or not (on
 * sm_90 it kept 2 of the 8). */
#define LOADS8(O1, O2, O3, O4, O5, O6, O7) \
    "ld.shared.u32 %0, [%8];\n\t" "ld.shared.u32 %1, [%8+" #O1 "];\n\t" \
    "ld.shared.u32 %2, [%8+" #O2 "];\n\t" "ld.shared.u32 %3, [%8+" #O3 "];\n\t" \
    "ld.shared.u32 %4, [%8+" #O4 "];\n\t" "ld.shared.u32 %5, [%8+" #O5 "];\n\t" \
    "ld.shared.u32 %6, [%8+" #O6 "];\n\t" "ld.shared.u32 %7, [%8+" #O7 "];\n\t" \
    "add.u32 %0, %0, %7;\n\t"
#define OUT8(a) "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]), "=r"(a[4]), "=r"(a[5]), "=r"(a[6]), "=r"(a[7])

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
        asm volatile("mov.u32 %1, %2;\n\t" HOP32_SHARED : "+r"(v), "=&r"(p) : "r"(base + after_clk(t0)));
        t1 = clk_after(v);
        asm volatile("mov.u32 %1, %2;\n\t" HOP32_SHARED HOP32_SHARED : "+r"(v), "=&r"(p) : "r"(base + after_clk(t1)));
        t3 = clk_after(v);
    }
    __syncwarp();
    /* each section's values summed after the last clock read, not between */
    unsigned f[8], x[8];
    unsigned flat = base + threadIdx.x * 4, conflict = base + threadIdx.x * 128;
    long long t4 = clk_after(v);   /* not hoisted above lane 0's chase */
    asm volatile(LOADS8(128, 256, 384, 512, 640, 768, 896) : OUT8(f) : "r"(flat + after_clk(t4)));
    long long t5 = clk_after(f[0]);
    asm volatile(LOADS8(4, 8, 12, 16, 20, 24, 28) : OUT8(x) : "r"(conflict + after_clk(t5)));
    long long t6 = clk_after(x[0]);
    unsigned sum = 0;
    for (int k = 0; k < 8; k++)
        sum += f[k] + x[k];
    if (threadIdx.x == 0) {
        out[0] = t1 - t0;   /* chase, 32 hops */
        out[1] = t3 - t1;   /* chase, 64 hops */
        out[2] = t5 - t4;   /* eight loads, one wavefront each */
        out[3] = t6 - t5;   /* eight loads, 32 wavefronts each */
        out[4] = v + sum;
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
    asm volatile(RED8 ATOM_LAST : "=r"(r) : "l"(cell + after_clk(t0)) : "memory");
    long long t1 = clk_after(r);
    sum += r;
    asm volatile(RED8 RED8 ATOM_LAST : "=r"(r) : "l"(cell + after_clk(t1)) : "memory");
    long long t2 = clk_after(r);
    if (threadIdx.x == 0) {
        out[0] = t1 - t0;
        out[1] = t2 - t1;
        out[4] = sum + r;
    }
}

/* The chase of calib_global with a plain ld.global, which the L1 may
 * serve, and a wrap of `mask` elements (%3). */
#define HOP_L1 \
    "ld.global.u32 %0, [%1];\n\t" \
    "add.u32 %0, %0, 32;\n\t" \
    "and.b32 %0, %0, %3;\n\t" \
    "mul.wide.u32 %1, %0, 4;\n\t" \
    "add.u64 %1, %1, %2;\n\t"
#define HOP8_L1 HOP_L1 HOP_L1 HOP_L1 HOP_L1 HOP_L1 HOP_L1 HOP_L1 HOP_L1
#define HOP32_L1 HOP8_L1 HOP8_L1 HOP8_L1 HOP8_L1

/* The L1: its hit latency (chases of 32 and 64 hops within 8 KB, warm),
 * and its size: chases over footprints of 8 KB << i (i = 0..7, up to 1 MB)
 * a line a hop, a first pass to fill, a second timed (out[2 + i]: the
 * second pass's cycles; footprint / 128 hops).  One thread; next has
 * 262144 elements (iota). */
extern "C" __global__ void calib_l1(long long *out, const unsigned *next)
{
    unsigned long long base = (unsigned long long)next, p;
    unsigned v = 0, small = 2047;
    asm volatile("mov.u64 %1, %2;\n\t" HOP32_L1 HOP32_L1 : "+r"(v), "=&l"(p) : "l"(base), "r"(small));
    long long t0 = clk();
    asm volatile("mov.u64 %1, %2;\n\t" HOP32_L1 : "+r"(v), "=&l"(p) : "l"(base + after_clk(t0)), "r"(small));
    long long t1 = clk_after(v);
    asm volatile("mov.u64 %1, %2;\n\t" HOP32_L1 HOP32_L1 : "+r"(v), "=&l"(p) : "l"(base + after_clk(t1)), "r"(small));
    long long t2 = clk_after(v);
    out[0] = t1 - t0;
    out[1] = t2 - t1;
    for (int i = 0; i < 8; i++) {
        unsigned mask = (2048u << i) - 1, hops = (8192u << i) / 128;
        long long ts = 0;
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1)
                ts = clk();
            asm volatile("mov.u64 %1, %2;" : "+r"(v), "=&l"(p) : "l"(base + after_clk(ts)), "r"(mask));
            for (unsigned h = 0; h < hops; h += 8)
                asm volatile(HOP8_L1 : "+r"(v), "+l"(p) : "l"(base), "r"(mask));
        }
        out[2 + i] = clk_after(v) - ts;
    }
    out[10] = v + (long long)p;
}

/* Sixteen independent global loads by the 32 lanes, each lane 32 bytes
 * from the next (32 sectors a load), 1 KB between loads; then one add of
 * the first and the K-th loaded value, which waits for the K-th (every
 * value is used after the section, as with LOADS8). */
#define GL(k, off) "ld.global.cg.u32 %" #k ", [%16+" #off "];\n\t"
#define GLOADS8 GL(0, 0) GL(1, 1024) GL(2, 2048) GL(3, 3072) GL(4, 4096) GL(5, 5120) GL(6, 6144) GL(7, 7168)
#define GLOADS16 GLOADS8 GL(8, 8192) GL(9, 9216) GL(10, 10240) GL(11, 11264) GL(12, 12288) GL(13, 13312) \
    GL(14, 14336) GL(15, 15360)
#define OUT16(a) OUT8(a), "=r"(a[8]), "=r"(a[9]), "=r"(a[10]), "=r"(a[11]), "=r"(a[12]), "=r"(a[13]), \
    "=r"(a[14]), "=r"(a[15])

/* A chase through the constant bank: each hop's address is the loaded
 * value (0) plus the lane's offset (%3: 128 bytes a lane, 32 addresses a
 * warp, or 0, one address for all) plus the bank's base. */
#define HOP_CONST "ld.const.u32 %0, [%1];\n\t" "add.u32 %0, %0, %3;\n\t" "cvt.u64.u32 %1, %0;\n\t" \
    "add.u64 %1, %1, %2;\n\t"
#define HOP8_CONST HOP_CONST HOP_CONST HOP_CONST HOP_CONST HOP_CONST HOP_CONST HOP_CONST HOP_CONST

#define SRED1 "red.shared.add.u32 [%1], 1;\n\t"
#define SRED8 SRED1 SRED1 SRED1 SRED1 SRED1 SRED1 SRED1 SRED1
#define SATOM_LAST "atom.shared.add.u32 %0, [%1], 1;\n\t" "add.u32 %0, %0, 1;\n\t"

__constant__ unsigned calib_ctab[1024];

/* One warp: the load/store unit's time per sector (8 and 16 loads of 32
 * sectors, the sectors warm in the L2), the constant bank's time per
 * further address (chases of 8 and 16 hops, at one address and at 32: a
 * chase's first hop is at the base for every lane), and a shared atomic's
 * (8 and 16 same-word reductions by the warp). */
extern "C" __global__ void calib_memory(long long *out, const unsigned *buf)
{
    __shared__ unsigned cell;
    unsigned w[16], e[16], r[16];   /* summed after the last clock read, as in calib_shared */
    unsigned long long lanep = (unsigned long long)buf + threadIdx.x * 32;
    asm volatile(GLOADS16 "add.u32 %0, %0, %15;" : OUT16(w) : "l"(lanep) : "memory");   /* warm */
    long long t0 = clk_after(w[0]);
    asm volatile(GLOADS8 "add.u32 %0, %0, %7;" : OUT16(e) : "l"(lanep + after_clk(t0)) : "memory");
    long long t1 = clk_after(e[0]);
    asm volatile(GLOADS16 "add.u32 %0, %0, %15;" : OUT16(r) : "l"(lanep + after_clk(t1)) : "memory");
    long long t2 = clk_after(r[0]);
    unsigned sum = 0;
    for (int k = 0; k < 16; k++)
        sum += w[k] + (k < 8 ? e[k] : 0) + r[k];

    unsigned long long cbase, cp;
    asm volatile("mov.u64 %0, calib_ctab;" : "=l"(cbase));   /* its address in the constant space */
    unsigned v = 0, spread = threadIdx.x * 128, none = 0;
    long long tc[8];
    asm volatile("mov.u64 %1, %2;\n\t" HOP_CONST : "+r"(v), "=&l"(cp) : "l"(cbase), "r"(spread));   /* untimed */
    for (int k = 0; k < 4; k++) {   /* one address, 8 and 16 hops; then 32 addresses */
        unsigned off = k < 2 ? none : spread;
        tc[2 * k] = clk();
        unsigned long long from = cbase + after_clk(tc[2 * k]);
        if (k % 2 == 0)
            asm volatile("mov.u64 %1, %2;\n\t" HOP8_CONST : "+r"(v), "=&l"(cp) : "l"(from), "r"(off));
        else
            asm volatile("mov.u64 %1, %2;\n\t" HOP8_CONST HOP8_CONST : "+r"(v), "=&l"(cp) : "l"(from), "r"(off));
        tc[2 * k + 1] = clk_after(v);
    }

    if (threadIdx.x == 0)
        cell = 0;
    __syncwarp();
    unsigned c = (unsigned)__cvta_generic_to_shared(&cell), a;
    asm volatile(SATOM_LAST : "=r"(a) : "r"(c) : "memory");
    long long t6 = clk_after(a);
    asm volatile(SRED8 SATOM_LAST : "=r"(a) : "r"(c + after_clk(t6)) : "memory");
    long long t7 = clk_after(a);
    asm volatile(SRED8 SRED8 SATOM_LAST : "=r"(a) : "r"(c + after_clk(t7)) : "memory");
    long long t8 = clk_after(a);
    if (threadIdx.x == 0) {
        out[0] = t1 - t0;   /* 8 loads of 32 sectors */
        out[1] = t2 - t1;   /* 16 */
        out[2] = tc[1] - tc[0];   /* const hops, one address: 8 */
        out[3] = tc[3] - tc[2];   /* 16 */
        out[4] = tc[5] - tc[4];   /* const hops, 32 addresses: 8 */
        out[5] = tc[7] - tc[6];   /* 16 */
        out[6] = t7 - t6;         /* 8 shared same-word reductions */
        out[7] = t8 - t7;         /* 16 */
        out[8] = sum + v + a + (long long)cp;
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

/* Bandwidth: the whole grid streams the first n 16-byte vectors of buf,
 * `passes` times (ld.global.cg: through the L2, past the L1).  The
 * harness times the launch; calibrate takes the difference of two sizes
 * (DRAM: the L2 flushed first) and of two pass counts (the L2).  The sum
 * is written only when it takes a value no input has, so no load is dead. */
extern "C" __global__ void calib_stream(long long *out, const uint4 *buf, unsigned n, unsigned passes)
{
    unsigned sum = 0, stride = gridDim.x * blockDim.x;
    for (unsigned p = 0; p < passes; p++)
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            uint4 v;
            asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(buf + i));
            sum += v.x ^ v.y ^ v.z ^ v.w;
        }
    if (sum == 0x9e3779b9u)
        out[0] = sum;
}

/* The L2's atomic unit under contention: every thread of the grid does
 * `ops` reductions on cell[(warp % 32) * spread], spread 0 (every warp on
 * word 0) or 1 (warp w on word w % 32: 32 words of one 128-byte line).
 * The harness times the launch; calibrate takes the difference of two
 * `ops` for the service time of one operation (calib_atomic times one
 * warp's issue, which an H200 does at 0.17 cycles an operation where the
 * grid's atomics on one word take 1.45), and compares the line with the
 * word: a line served as one unit takes as long as the word. */
extern "C" __global__ void calib_contend(unsigned *cell, unsigned spread, unsigned ops)
{
    unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    unsigned *at = cell + (warp % 32) * spread;
    for (unsigned i = 0; i < ops; i++)
        asm volatile("red.global.add.u32 [%0], 1;" : : "l"(at) : "memory");
}

/* n iterations of an if on (lane & mask) == 0 around 32 dependent
 * mads, then one more: with mask 0 every lane takes the if, with mask 1
 * half of them (a divergent branch and its reconvergence each iteration),
 * the warp issuing the same instructions either way. */
static __device__ __forceinline__ long long diverge_loop(unsigned n, unsigned mask, unsigned a, unsigned b,
                                                         unsigned *x)
{
    long long t0 = clk();
    for (unsigned i = 0; i < n; i++) {
        /* x != b (all but never false) puts the branch behind the chain,
         * so that what the divergence costs is not hidden by its latency;
         * 32 mads, because ptxas for sm_90 if-converts an if around 8 into
         * predicated ones (no branch: nothing diverges), and around 32 keeps
         * the branch (BSSY, BRA, BSYNC in ptxas 13.0's SASS) */
        if ((threadIdx.x & mask) == 0 && *x != b)
            asm volatile(X32(STEP_ALU) : "+r"(*x) : "r"(a), "r"(b));
        asm volatile(STEP_ALU : "+r"(*x) : "r"(a), "r"(b));
    }
    return clk() - t0;
}

/* Divergence: one warp, 16 and 32 iterations, uniform (mask0 = 0) and
 * divergent (mask1 = 1). */
extern "C" __global__ void calib_diverge(long long *out, unsigned a, unsigned b, unsigned mask0, unsigned mask1)
{
    unsigned x = a ^ threadIdx.x;
    diverge_loop(4, mask0, a, b, &x);   /* untimed */
    long long u16 = diverge_loop(16, mask0, a, b, &x), u32 = diverge_loop(32, mask0, a, b, &x);
    long long d16 = diverge_loop(16, mask1, a, b, &x), d32 = diverge_loop(32, mask1, a, b, &x);
    if (threadIdx.x == 0) {
        out[0] = u16;
        out[1] = u32;
        out[2] = d16;
        out[3] = d32;
        out[4] = x;
    }
}

/* Launch overhead: a kernel that does nothing; its whole time is the
 * launch's. */
extern "C" __global__ void calib_empty(long long *out)
{
    (void)out;
}
