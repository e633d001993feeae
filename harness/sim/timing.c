/*
 * timing.c — the sim backend's cost model (deterministic).
 *
 * Issue: each SM has `schedulers` warp schedulers; a warp belongs to one.
 * A scheduler dispatches at most one instruction per cycle; the
 * instruction then occupies its pipe (ALU, FMA, FP64, SFU, CTRL) for the
 * class's `issue` cycles, and its result is ready `latency` cycles after
 * issue.  A warp issues in order, one instruction per cycle at most, and
 * an instruction waits for the registers it reads (a scoreboard).
 *
 * Memory: global accesses cost per distinct sector touched by the active
 * lanes: the SM's load/store unit is busy sectors x lsu_cycles_per_sector,
 * the sectors draw on the device's L2 bandwidth, and a sector's first
 * touch in the run also draws on DRAM bandwidth and adds dram_latency (L2
 * is assumed large enough to hold every buffer afterwards).  Local
 * accesses use the word-interleaved layout of the GPU and stay in L1.
 * Const and param loads cost per distinct address.  Shared accesses cost
 * one wavefront per conflict degree: the largest number of distinct words
 * any bank is asked for (same word = broadcast).  Atomics serialise per
 * address: within a warp each lane costs one service time, and across
 * warps each global word is a FIFO whose next free time is kept per word
 * (shared atomics: serialised within the warp).
 */
#include "harness/sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_class_pipe(int cls)
{
    switch (cls) {
    case SIM_C_ALU: case SIM_C_IDIV: return SIM_PIPE_ALU;
    case SIM_C_FMA: case SIM_C_FDIV: return SIM_PIPE_FMA;
    case SIM_C_FP64: case SIM_C_DDIV: return SIM_PIPE_FP64;
    case SIM_C_SFU: return SIM_PIPE_SFU;
    case SIM_C_CTRL: case SIM_C_BAR: case SIM_C_WARP: return SIM_PIPE_CTRL;
    default: return -1;   /* memory: SM-level units, see the cost functions */
    }
}

/* ---- bandwidth bins --------------------------------------------------------- */

void sim_bw_init(sim_bw *b, double bin, double per_cycle)
{
    memset(b, 0, sizeof *b);
    b->bin = bin;
    b->cap = per_cycle * bin;
}

void sim_bw_free(sim_bw *b)
{
    free(b->used);
    memset(b, 0, sizeof *b);
}

/* Move the window's start to bin `base`, dropping the bins before it. */
static void bw_slide(sim_bw *b, size_t base)
{
    size_t drop = base - b->base, kept = drop < b->n ? b->n - drop : 0;
    if (kept)
        memmove(b->used, b->used + drop, kept * sizeof *b->used);
    if (b->n > kept)
        memset(b->used + kept, 0, (b->n - kept) * sizeof *b->used);
    b->base = base;
}

/* The slot of bin i (i >= base): past the window, the window slides so
 * that i lands in its middle; then the array grows as needed. */
static double *bw_slot(sim_bw *b, size_t i)
{
    if (i - b->base >= SIM_BW_MAX_BINS)
        bw_slide(b, i - SIM_BW_MAX_BINS / 2);
    size_t off = i - b->base;
    if (off >= b->n) {
        size_t n = b->n ? b->n : 1024;
        while (n <= off)
            n *= 2;
        b->used = wh_xrealloc(b->used, n * sizeof *b->used);
        memset(b->used + b->n, 0, (n - b->n) * sizeof *b->used);
        b->n = n;
    }
    return &b->used[off];
}

/* Book `amount` sectors from time t on; returns when the last is served. */
double sim_bw_take(sim_bw *b, double t, double amount)
{
    size_t i0 = (size_t)(t / b->bin);
    if (i0 < b->base)
        i0 = b->base; /* older than the window: booked at its start */
    size_t i = i0;
    double need = amount, *slot;
    for (;;) {
        slot = bw_slot(b, i);
        double avail = b->cap - *slot;
        if (avail >= need) {
            *slot += need;
            break;
        }
        if (avail > 0) {
            need -= avail;
            *slot = b->cap;
        }
        i++;
    }
    double rate = b->cap / b->bin;
    if (i == i0)
        return sim_dmax(t, (double)i0 * b->bin) + amount / rate;
    return (double)i * b->bin + *slot / rate;
}

/* ---- distinct values ----------------------------------------------------------- */

/* Sectors, words or addresses one warp instruction touches, at most. */
#define MAX_PARTS (SIM_WARP * 8)

/* Keep the distinct values of v (in first-seen order); returns how many,
 * and in count[i] (when count is not NULL) how often v[i] occurred.  A run
 * of equal or ascending values (a coalesced access, one address for all)
 * takes the fast path; the rest goes through an open-addressing set sized
 * to n (a fixed 1024-slot set cost a kilobyte of memset per access). */
static int distinct_u64(uint64_t *v, int n, int *count)
{
    if (n <= 0)
        return 0;
    int k = 1, i = 1;
    if (count)
        count[0] = 1;
    for (; i < n && v[i] >= v[i - 1]; i++) {
        if (v[i] != v[k - 1]) {
            if (count)
                count[k] = 1;
            v[k++] = v[i];
        } else if (count) {
            count[k - 1]++;
        }
    }
    if (i == n)
        return k;
    /* v[0, k) holds the distinct values of v[0, i): go on with a set */
    int bits = 6;
    if (n > 2 * MAX_PARTS)
        n = 2 * MAX_PARTS;   /* no caller passes more */
    /* a warp's worth of values gets a sparse table: a probe that finds its
     * slot taken is a mispredicted branch, and random addresses made them
     * a fifth of an atomic-heavy kernel's time at half load */
    int load = n <= SIM_WARP ? 8 : 2;
    while ((1 << bits) < load * n)
        bits++;
    int16_t slot[4 * MAX_PARTS];   /* index in v, -1 empty */
    int size = 1 << bits;
    memset(slot, 0xff, (size_t)size * sizeof *slot);
    for (int j = 0; j < n; j++) {
        if (j == k && j < i)
            j = i;   /* past the prefix's distinct values: the rest of v */
        uint64_t x = v[j];
        uint64_t h = (x * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
        while (slot[h] >= 0 && v[slot[h]] != x)
            h = (h + 1) & (uint64_t)(size - 1);
        if (slot[h] >= 0) {
            if (j >= i && count)
                count[slot[h]]++;
            continue;
        }
        if (j >= i) {
            if (count)
                count[k] = 1;
            v[k] = x;
            slot[h] = (int16_t)k++;
        } else {
            slot[h] = (int16_t)j;
        }
    }
    return k;
}

static int unique_u64(uint64_t *v, int n)
{
    return distinct_u64(v, n, NULL);
}


/* First touch of a global sector in this run (DRAM), then L2. */
/* x / d for the sizes of sectors and banks: a shift when d is a power of
 * two (every profile we ship), a division otherwise.  Two 64-bit divisions
 * per lane of every global access were a tenth of the emulator's time on
 * memory-bound kernels (lbm). */
static inline uint64_t div_size(uint64_t x, uint64_t d)
{
    return d & (d - 1) ? x / d : x >> __builtin_ctzll(d);
}

static bool first_touch(sim_run *R, uint64_t sector, int sb)
{
    uint64_t addr = sector * (uint64_t)sb;
    if (addr < PTX_ADDR_GLOBAL)
        return false;
    uint64_t r = (addr - PTX_ADDR_GLOBAL) >> PTX_ADDR_REGION_SHIFT;
    if (r >= (uint64_t)R->prog->nregions || !R->regions[r].touched)
        return false;
    uint64_t s = div_size(addr - R->prog->regions[r].base, (uint64_t)sb);
    uint8_t bit = (uint8_t)(1u << (s & 7));
    uint8_t *byte = &R->regions[r].touched[s >> 3];
    if (*byte & bit)
        return false;
    *byte |= bit;
    return true;
}

/* Does a sector of the L2 miss (go to DRAM)?  With an L2 of the profile's
 * size, its LRU says; without one, only a sector's first touch in the run. */
static bool l2_miss(sim_run *R, uint64_t sector, uint64_t sb)
{
    if (R->l2c)
        return !sim_cache_access(R->l2c, 0, sector);
    return first_touch(R, sector, (int)sb);
}

double sim_cost_global(sim_run *R, sim_sm *sm, double t, const uint64_t *addr, const uint32_t *bytes, int n,
                       bool l1)
{
    const sim_profile *P = R->prof;
    uint64_t sec[MAX_PARTS];
    int k = 0;
    uint64_t sb = (uint64_t)P->sector_bytes;
    for (int i = 0; i < n && k < MAX_PARTS; i++) {
        uint64_t a = addr[i], e = addr[i] + (bytes[i] ? bytes[i] : 1) - 1;
        for (uint64_t s = div_size(a, sb), last = div_size(e, sb); s <= last && k < MAX_PARTS; s++)
            sec[k++] = s;
    }
    int ns = unique_u64(sec, k);
    bool use_l1 = l1 && R->l1;
    int nl2 = 0, nd = 0;   /* sectors past the L1; of them, past the L2 */
    for (int i = 0; i < ns; i++) {
        if (use_l1 && sim_cache_access(R->l1, sm->id, sec[i]))
            continue;
        nl2++;
        nd += l2_miss(R, sec[i], sb);
    }
    R->acc.sectors = ns;
    double t0 = sim_dmax(t, sm->lsu_free);
    double occ = sim_dmax(1.0, ns * P->lsu_cycles_per_sector);
    sm->lsu_free = t0 + occ;
    if (nl2 == 0 && use_l1)
        return t0 + occ + P->l1_latency;   /* every sector in the L1 */
    double done = t0 + occ;
    done = sim_dmax(done, sim_bw_take(&R->l2, t0, nl2));
    if (nd)
        done = sim_dmax(done, sim_bw_take(&R->dram, t0, nd) + P->dram_latency);
    return done + P->cls[SIM_C_GLOBAL].latency;
}

double sim_cost_local(sim_run *R, sim_sm *sm, double t, const uint64_t *addr, const uint32_t *bytes,
                      const uint8_t *lane, int n)
{
    const sim_profile *P = R->prof;
    uint64_t sec[MAX_PARTS];
    int k = 0;
    for (int i = 0; i < n; i++) {
        uint64_t w0 = addr[i] / 4, nw = (bytes[i] + 3) / 4;
        for (uint64_t j = 0; j < nw && k < MAX_PARTS; j++) {
            uint64_t phys = ((w0 + j) << 7) | ((uint64_t)lane[i] << 2);
            sec[k++] = div_size(phys, (uint64_t)P->sector_bytes);
        }
    }
    int ns = unique_u64(sec, k);
    R->acc.local_sectors = ns;
    double t0 = sim_dmax(t, sm->lsu_free);
    double occ = sim_dmax(1.0, ns * P->lsu_cycles_per_sector);
    sm->lsu_free = t0 + occ;
    return t0 + occ + P->cls[SIM_C_LOCAL].latency;
}

double sim_cost_const(sim_run *R, sim_sm *sm, double t, const uint64_t *addr, int n)
{
    (void)sm;
    const sim_profile *P = R->prof;
    uint64_t a[SIM_WARP];
    int k = n < SIM_WARP ? n : SIM_WARP;
    memcpy(a, addr, (size_t)k * sizeof *a);
    int nd = unique_u64(a, k);
    return t + P->cls[SIM_C_CONST].latency + (nd > 1 ? (nd - 1) * P->const_cycles_per_address : 0);
}

/* Wavefronts of a shared access: max over banks of distinct words (words
 * bucketed by bank, then counted per bucket). */
static int wavefronts(const sim_profile *P, const uint64_t *addr, const uint32_t *bytes, int n)
{
    enum { MAXB = 64 };
    uint64_t bb = (uint64_t)P->bank_bytes;
    int nb = P->shared_banks > MAXB ? MAXB : P->shared_banks;
    uint64_t bucket[MAXB][MAX_PARTS / 4 + 1];
    int cnt[MAXB];
    memset(cnt, 0, sizeof cnt);
    int wf = 0;
    for (int i = 0; i < n; i++) {
        uint64_t w0 = div_size(addr[i], bb), w1 = div_size(addr[i] + (bytes[i] ? bytes[i] : 1) - 1, bb);
        for (uint64_t wd = w0; wd <= w1; wd++) {
            int b = (int)(wd - div_size(wd, (uint64_t)nb) * (uint64_t)nb);   /* wd % nb */
            uint64_t *bk = bucket[b];
            int c = cnt[b], j;
            for (j = c - 1; j >= 0; j--)   /* usually hits at once: broadcast or new */
                if (bk[j] == wd)
                    break;
            if (j >= 0 || c >= MAX_PARTS / 4 + 1)
                continue;
            bk[c] = wd;
            cnt[b] = c + 1;
            if (c + 1 > wf)
                wf = c + 1;
        }
    }
    return wf;
}

double sim_cost_shared(sim_run *R, sim_sm *sm, double t, const uint64_t *addr, const uint32_t *bytes, int n)
{
    const sim_profile *P = R->prof;
    int wf = wavefronts(P, addr, bytes, n);
    R->acc.wavefronts = wf;
    double t0 = sim_dmax(t, sm->mio_free);
    double occ = sim_dmax(1, wf) * P->shared_cycles_per_wavefront;
    sm->mio_free = t0 + occ;
    return t0 + occ + P->cls[SIM_C_SHARED].latency;
}

/* ---- per-address FIFO of atomics ---------------------------------------------- */

/* Next free time of the atomic unit for a global word (lazily allocated per
 * buffer, one entry per 4-byte word). */
static double *atomic_slot(sim_run *R, uint64_t addr)
{
    uint64_t r = (addr - PTX_ADDR_GLOBAL) >> PTX_ADDR_REGION_SHIFT;
    sim_region *g = &R->regions[r];
    uint64_t need = (g->size / 4 + 2) * sizeof *g->afree;
    if (!g->afree || g->acap < need) {
        free(g->afree);
        g->afree = wh_xcalloc(1, need);
        g->acap = need;
    }
    return &g->afree[(addr - R->prog->regions[r].base) / 4];
}

/* Lane-cycles that c lanes on one address wait behind other operations
 * on it: each waits `queued` cycles for earlier warps' operations, and the
 * k-th of the warp's own (from 0) for the k before it. */
static double same_address_wait(int c, double queued, double per_op)
{
    return c * queued + per_op * c * (c - 1) / 2.0;
}

double sim_cost_atomic(sim_run *R, sim_sm *sm, double t, const uint64_t *addr, int n, bool shared)
{
    const sim_profile *P = R->prof;
    uint64_t a[SIM_WARP];
    int cnt[SIM_WARP];
    int k = n < SIM_WARP ? n : SIM_WARP;
    memcpy(a, addr, (size_t)k * sizeof *a);
    k = distinct_u64(a, k, cnt);   /* the addresses, each with its operations */
    if (shared) {
        int kmax = 0;
        double wait = 0;
        for (int i = 0; i < k; i++) {
            if (cnt[i] > kmax)
                kmax = cnt[i];
            wait += same_address_wait(cnt[i], 0, P->shared_atomic_cycles_per_op);
        }
        uint32_t four[SIM_WARP];
        for (int i = 0; i < k; i++)
            four[i] = 4;
        int wf = wavefronts(P, a, four, k);
        R->acc.wavefronts = wf;
        R->acc.atomic_wait = wait;
        double t0 = sim_dmax(t, sm->mio_free);
        double occ = wf * P->shared_cycles_per_wavefront + kmax * P->shared_atomic_cycles_per_op;
        sm->mio_free = t0 + occ;
        return t0 + occ + P->cls[SIM_C_SHARED].latency;
    }
    double done = t;
    double t0 = sim_dmax(t, sm->lsu_free);
    uint64_t sb = (uint64_t)P->sector_bytes;
    int ndram = 0;
    double wait = 0;
    for (int i = 0; i < k; i++)
        if (l2_miss(R, div_size(a[i], sb), sb))
            ndram++;
    /* one queue per atomic unit (atomic_unit_bytes): a request's words in
     * one unit are applied together, its operations on one word one by one,
     * and the unit serves requests in turn (an H200 took 1.3 cycles per
     * lane's atomicCAS for hash_insert's one-home keys, whose 32 slots share
     * a 128-byte line, as for gt_atomic's adds on a single word) */
    uint64_t ub = (uint64_t)P->atomic_unit_bytes, unit[SIM_WARP];
    for (int i = 0; i < k; i++)
        unit[i] = div_size(a[i], ub);
    for (int i = 0; i < k; i++) {
        int ops = 0, seen = 0;
        for (int j = 0; j < k; j++)
            if (unit[j] == unit[i]) {
                seen += j < i;
                ops = cnt[j] > ops ? cnt[j] : ops;
            }
        if (seen)
            continue;   /* the unit's first word queued the request */
        double *free_at = atomic_slot(R, unit[i] * ub);
        double start = sim_dmax(t0, *free_at);
        for (int j = i; j < k; j++)
            if (unit[j] == unit[i])
                wait += same_address_wait(cnt[j], start - t0, P->atomic_cycles_per_op);
        *free_at = start + ops * P->atomic_cycles_per_op;
        done = sim_dmax(done, *free_at);
    }
    /* one L2 transaction per distinct sector: the L2's atomic unit applies a
     * request's operations on one sector together (a warp's atomics on 32
     * consecutive words cost 4 transactions, on 32 scattered ones 32: an
     * H200 ran gt_atomic's tid % 1024 keys 4x faster than random ones) */
    uint64_t sec[SIM_WARP];
    for (int i = 0; i < k; i++)
        sec[i] = div_size(a[i], sb);
    int nd = unique_u64(sec, k);
    R->acc.sectors = nd;
    R->acc.atomic_wait = wait;
    double occ = sim_dmax(1.0, nd * P->lsu_cycles_per_sector);
    sm->lsu_free = t0 + occ;
    done = sim_dmax(done, sim_bw_take(&R->l2, t0, nd));
    if (ndram)
        done = sim_dmax(done, sim_bw_take(&R->dram, t0, ndram) + P->dram_latency);
    return done + P->cls[SIM_C_ATOM].latency;
}
