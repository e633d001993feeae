/*
 * mem.c — memory spaces of the sim backend: address resolution with
 * bounds and alignment checks, loads, stores, atomics and reductions,
 * cvta / isspacep, and cp.async (performed synchronously).
 *
 * Every access of every lane is checked before any lane's access is
 * performed: an address outside every buffer (global), outside the
 * block's shared memory, the thread's local memory, the const bank or the
 * param space, or not aligned to the access size, stops the run with
 * status fault and a message naming the thread, the block, the PTX line,
 * the address and the nearest buffer.  Atomics of a warp are performed in
 * lane order.  The host must be little-endian, as the GPU is.
 */
#include "harness/sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the sim backend needs a little-endian host");

typedef enum { K_GLOBAL, K_SHARED, K_LOCAL, K_CONST, K_PARAM } mkind;

static const char *kind_name(mkind k)
{
    switch (k) {
    case K_GLOBAL: return "global";
    case K_SHARED: return "shared";
    case K_LOCAL: return "local";
    case K_CONST: return "const";
    default: return "param";
    }
}

static const char *access_name(int acc)
{
    return acc == 0 ? "load" : acc == 1 ? "store" : "atomic";
}

/* "buffer 'x' [0x..., +N): K bytes past its end" for a global address. */
static void describe_global(const sim_run *R, uint64_t addr, uint32_t bytes, char *buf, size_t size)
{
    const sim_prog *P = R->prog;
    int best = -1;
    uint64_t bestd = UINT64_MAX;
    for (int r = 0; r < P->nregions; r++) {
        uint64_t lo = P->regions[r].base, hi = lo + R->regions[r].size;
        uint64_t d = addr < lo ? lo - addr : (addr + bytes > hi ? addr + bytes - hi : 0);
        if (d < bestd) {
            bestd = d;
            best = r;
        }
    }
    if (best < 0) {
        snprintf(buf, size, "there are no global buffers");
        return;
    }
    uint64_t lo = P->regions[best].base, sz = R->regions[best].size;
    const char *name = P->regions[best].name;
    if (addr < lo)
        snprintf(buf, size, "%llu bytes before the start of buffer '%s' (%llu bytes at 0x%llx)",
                 (unsigned long long)(lo - addr), name, (unsigned long long)sz, (unsigned long long)lo);
    else if (addr < lo + sz)
        snprintf(buf, size, "offset %llu of buffer '%s' (%llu bytes at 0x%llx): the access ends %llu bytes "
                 "past its end", (unsigned long long)(addr - lo), name, (unsigned long long)sz,
                 (unsigned long long)lo, (unsigned long long)(addr + bytes - (lo + sz)));
    else if (addr == lo + sz)
        snprintf(buf, size, "offset %llu of buffer '%s' (%llu bytes at 0x%llx): just past its end",
                 (unsigned long long)(addr - lo), name, (unsigned long long)sz, (unsigned long long)lo);
    else
        snprintf(buf, size, "offset %llu of buffer '%s' (%llu bytes at 0x%llx): %llu bytes past its end",
                 (unsigned long long)(addr - lo), name, (unsigned long long)sz, (unsigned long long)lo,
                 (unsigned long long)(addr - (lo + sz)));
}

static bool fault(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t lane, mkind k, int acc,
                  uint64_t addr, uint32_t bytes, const char *why)
{
    char thr[128], where[256];
    sim_thread_desc(R, w, (int)lane, thr, sizeof thr);
    sim_where(R, w, in, where, sizeof where);
    sim_stop(R, HARNESS_FAULT, "%s %s %s of %u bytes at address 0x%llx by thread %s at %s: %s",
             strncmp(why, "misaligned", 10) ? "out-of-bounds" : "misaligned", kind_name(k),
             access_name(acc), bytes, (unsigned long long)addr, thr, where, why);
    return false;
}

/* Host pointer of `bytes` at `addr` in state space `space` for one lane,
 * or NULL after stopping the run.  *kind receives the space resolved. */
static uint8_t *resolve(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t lane, int space,
                        uint64_t addr, uint32_t bytes, int acc, mkind *kind)
{
    char why[512];
    uint64_t off = addr;
    mkind k;
    bool kernel_param = false;   /* a generic address of a kernel parameter (cvta.param) */
    switch (space) {
    case PTX_SPACE_GENERIC:
        switch (ptx_generic_space(addr)) {
        case PTX_SPACE_SHARED: k = K_SHARED; off = addr - PTX_ADDR_SHARED; break;
        case PTX_SPACE_LOCAL: k = K_LOCAL; off = addr - PTX_ADDR_LOCAL; break;
        case PTX_SPACE_CONST: k = K_CONST; off = addr - PTX_ADDR_CONST; break;
        case PTX_SPACE_PARAM: k = K_PARAM; off = addr - PTX_ADDR_PARAM; kernel_param = true; break;
        default: k = K_GLOBAL; break;
        }
        break;
    case PTX_SPACE_GLOBAL: k = K_GLOBAL; break;
    case PTX_SPACE_SHARED: case PTX_SPACE_SHARED_CLUSTER: k = K_SHARED; break;
    case PTX_SPACE_LOCAL: k = K_LOCAL; break;
    case PTX_SPACE_CONST: k = K_CONST; break;
    case PTX_SPACE_PARAM: k = K_PARAM; break;
    default:
        snprintf(why, sizeof why, "state space '%s' is not emulated", ptx_space_name((ptx_space)space));
        fault(R, w, in, lane, K_GLOBAL, acc, addr, bytes, why);
        return NULL;
    }
    *kind = k;
    uint32_t align = bytes > 16 ? 16 : bytes;
    if (align & (align - 1))
        align = 1;
    if (off & (align - 1)) {
        snprintf(why, sizeof why, "misaligned: a %u-byte access needs %u-byte alignment", bytes, align);
        fault(R, w, in, lane, k, acc, addr, bytes, why);
        return NULL;
    }
    switch (k) {
    case K_GLOBAL: {
        const sim_prog *P = R->prog;
        if (addr >= PTX_ADDR_GLOBAL) {
            uint64_t r = (addr - PTX_ADDR_GLOBAL) >> PTX_ADDR_REGION_SHIFT;
            if (r < (uint64_t)P->nregions) {
                uint64_t o = addr - P->regions[r].base;
                if (o + bytes <= R->regions[r].size)
                    return R->regions[r].data + o;
            }
        }
        describe_global(R, addr, bytes, why, sizeof why);
        fault(R, w, in, lane, k, acc, addr, bytes, why);
        return NULL;
    }
    case K_SHARED:
        if (off + bytes <= w->blk->shared_size && off + bytes >= off)
            return w->blk->shared + off;
        snprintf(why, sizeof why, "the block's shared memory is %llu bytes (static %llu + dynamic %llu)",
                 (unsigned long long)w->blk->shared_size, (unsigned long long)R->prog->dyn_shared_off,
                 (unsigned long long)R->img->shared_bytes);
        break;
    case K_LOCAL:
        if (off + bytes <= R->local_size && off + bytes >= off)
            return w->local + (size_t)lane * R->local_size + off;
        snprintf(why, sizeof why, "the thread's local memory is %llu bytes",
                 (unsigned long long)R->local_size);
        break;
    case K_CONST:
        if (acc != 0) {
            snprintf(why, sizeof why, "const memory is read-only");
            break;
        }
        if (off + bytes <= R->prog->cbank_size && off + bytes >= off)
            return (uint8_t *)R->cbank + off;   /* read-only: acc is 0 */
        snprintf(why, sizeof why, "the const bank is %llu bytes", (unsigned long long)R->prog->cbank_size);
        break;
    case K_PARAM: {
        const sim_frame *fr = &w->frames[w->nframes - 1];
        const sim_func *F = fr->fn;
        if ((w->nframes == 1 || kernel_param) && off + bytes <= R->prog->kparam_bytes) {
            if (acc != 0) {
                snprintf(why, sizeof why, "kernel parameters are read-only");
                break;
            }
            return R->kparam + off;
        }
        if (!kernel_param && off >= (w->nframes == 1 ? R->prog->kparam_bytes : 0) && off + bytes <= F->area_bytes)
            return fr->area + (size_t)lane * F->area_bytes + off;
        snprintf(why, sizeof why, "the param space of '%s' is %u bytes", F->pf->name, F->area_bytes);
        break;
    }
    }
    fault(R, w, in, lane, k, acc, addr, bytes, why);
    return NULL;
}

/* The common cases of resolve() without the bookkeeping; falls back to it. */
static inline uint8_t *resolve_fast(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t lane, int space,
                                    uint64_t addr, uint32_t bytes, int acc, mkind *kind)
{
    uint32_t align = bytes > 16 ? 16 : bytes;
    if ((align & (align - 1)) == 0 && (addr & (align - 1)) == 0) {
        if ((space == PTX_SPACE_GLOBAL || space == PTX_SPACE_GENERIC) && addr >= PTX_ADDR_GLOBAL) {
            uint64_t r = (addr - PTX_ADDR_GLOBAL) >> PTX_ADDR_REGION_SHIFT;
            if (r < (uint64_t)R->prog->nregions) {
                uint64_t o = addr - R->prog->regions[r].base;
                if (o + bytes <= R->regions[r].size) {
                    *kind = K_GLOBAL;
                    return R->regions[r].data + o;
                }
            }
        } else if (space == PTX_SPACE_SHARED && addr + bytes <= w->blk->shared_size) {
            *kind = K_SHARED;
            return w->blk->shared + addr;
        }
    }
    return resolve(R, w, in, lane, space, addr, bytes, acc, kind);
}

static inline uint64_t load_bits(const uint8_t *p, uint32_t size, bool sg)
{
    uint64_t v = 0;
    memcpy(&v, p, size);
    if (sg && size < 8) {
        uint64_t s = 1ULL << (8 * size - 1);
        v = (v ^ s) - s;
    }
    return v;
}

static inline uint64_t lane_addr(const sim_warp *w, const sim_instr *in, uint32_t l)
{
    uint64_t a = in->addr.off;
    if (in->addr.base >= 0)
        a += w->r[(size_t)in->addr.base * SIM_WARP + l];
    if (in->addr.local_rel)
        a += w->frames[w->nframes - 1].local_base;
    return a;
}

/* Timing of the accesses gathered for one instruction. */
static double access_cost(sim_run *R, sim_sm *sm, const sim_instr *in, mkind k, double t, const uint64_t *addr,
                          const uint32_t *bytes, const uint8_t *lanes, int n)
{
    if (n == 0)
        return t;
    switch (k) {
    case K_GLOBAL: return sim_cost_global(R, sm, t, addr, bytes, n, in->l1);
    case K_SHARED: return sim_cost_shared(R, sm, t, addr, bytes, n);
    case K_LOCAL: return sim_cost_local(R, sm, t, addr, bytes, lanes, n);
    default: return sim_cost_const(R, sm, t, addr, n);
    }
}

static bool exec_ld_st(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in, uint32_t m, double t,
                       double *done)
{
    bool st = in->op == PTX_OP_ST;
    uint32_t es = in->size, nv = in->vec;
    uint32_t bytes = es * nv;
    bool sg = ptx_type_is_signed((ptx_type)in->ty);
    uint64_t addrs[SIM_WARP];
    uint32_t sizes[SIM_WARP];
    uint8_t lanes[SIM_WARP];
    uint8_t *ptr[SIM_WARP];
    int n = 0;
    mkind k = K_GLOBAL, k0 = K_GLOBAL;
    if (in->addr.base < 0 && !in->addr.local_rel) {
        /* one address for every lane ([sym], [imm]): resolved once, unless
         * the space is per thread (local, a callee's params) */
        uint32_t l0 = (uint32_t)__builtin_ctz(m);
        uint64_t a = lane_addr(w, in, l0);
        uint8_t *p = resolve(R, w, in, l0, in->space, a, bytes, st ? 1 : 0, &k);
        if (!p)
            return false;
        bool per_lane = k == K_LOCAL ||
                        (k == K_PARAM && !(p >= R->kparam && p < R->kparam + R->prog->kparam_bytes));
        if (!per_lane) {
            if (st) {
                uint32_t last = 31u - (uint32_t)__builtin_clz(m);
                for (uint32_t e = 0; e < nv; e++) {
                    sim_src s = sim_operand(R, w, in, (int)e);
                    uint64_t v = SIM_V(s, last);
                    memcpy(p + e * es, &v, es);
                }
            } else {
                for (uint32_t e = 0; e < nv; e++) {
                    uint64_t v = load_bits(p + e * es, es, sg);
                    uint64_t *d = sim_dst(R, w, in, (int)e);
                    SIM_LANES(m, l) d[l] = v;
                }
            }
            addrs[0] = in->space == PTX_SPACE_GENERIC && k != K_GLOBAL ? a & (PTX_ADDR_WINDOW - 1) : a;
            sizes[0] = bytes;
            lanes[0] = (uint8_t)l0;
            *done = access_cost(R, sm, in, k, t, addrs, sizes, lanes, 1);
            return true;
        }
    }
    SIM_LANES(m, l) {
        uint64_t a = lane_addr(w, in, l);
        uint8_t *p = resolve_fast(R, w, in, l, in->space, a, bytes, st ? 1 : 0, &k);
        if (!p)
            return false;
        if (n == 0)
            k0 = k;
        ptr[l] = p;
        addrs[n] = (k == K_SHARED || k == K_LOCAL || k == K_CONST) && in->space == PTX_SPACE_GENERIC
                       ? a & (PTX_ADDR_WINDOW - 1) : a;
        sizes[n] = bytes;
        lanes[n] = (uint8_t)l;
        n++;
    }
    if (st) {
        for (uint32_t e = 0; e < nv; e++) {
            sim_src s = sim_operand(R, w, in, (int)e);
            uint32_t off = e * es;
            switch (es) {
            case 1: SIM_LANES(m, l) ptr[l][off] = (uint8_t)SIM_V(s, l); break;
            case 2: SIM_LANES(m, l) { uint16_t v = (uint16_t)SIM_V(s, l); memcpy(ptr[l] + off, &v, 2); } break;
            case 4: SIM_LANES(m, l) { uint32_t v = (uint32_t)SIM_V(s, l); memcpy(ptr[l] + off, &v, 4); } break;
            default: SIM_LANES(m, l) { uint64_t v = SIM_V(s, l); memcpy(ptr[l] + off, &v, 8); } break;
            }
        }
    } else {
        for (uint32_t e = 0; e < nv; e++) {
            uint64_t *d = sim_dst(R, w, in, (int)e);
            uint32_t off = e * es;
            if (es == 4 && !sg) {
                SIM_LANES(m, l) { uint32_t v; memcpy(&v, ptr[l] + off, 4); d[l] = v; }
            } else if (es == 8) {
                SIM_LANES(m, l) { uint64_t v; memcpy(&v, ptr[l] + off, 8); d[l] = v; }
            } else {
                SIM_LANES(m, l) d[l] = load_bits(ptr[l] + off, es, sg);
            }
        }
    }
    *done = access_cost(R, sm, in, k0, t, addrs, sizes, lanes, n);
    return true;
}

/* One atomic operation on memory at p; returns the old value. */
static uint64_t atomic_apply(const sim_instr *in, uint8_t *p, uint64_t b, uint64_t c)
{
    uint32_t es = in->size;
    ptx_type t = (ptx_type)in->ty;
    bool sg = ptx_type_is_signed(t);
    uint64_t old = load_bits(p, es, false);
    uint64_t nv = old;
    uint64_t mask = es >= 8 ? ~0ULL : ((1ULL << (8 * es)) - 1);
    if (ptx_type_is_float(t) && in->aop != PTX_AOP_EXCH && in->aop != PTX_AOP_CAS) {
        double x = sim_float_get(t, old), y = sim_float_get(t, b), r = x;
        switch (in->aop) {
        case PTX_AOP_ADD: r = x + y; break;
        case PTX_AOP_MIN: r = (isnan(x) || y < x) ? y : x; break;
        case PTX_AOP_MAX: r = (isnan(x) || y > x) ? y : x; break;
        default: break;
        }
        if (in->aop == PTX_AOP_ADD && isnan(r)) {
            /* an addition's NaN is the contract's, like any arithmetic */
            nv = t == PTX_T_F32 ? PTX_NAN_F32 : t == PTX_T_F64 ? PTX_NAN_F64 : t == PTX_T_BF16 ? PTX_NAN_BF16
                                                                                               : PTX_NAN_F16;
        } else if (t == PTX_T_F32) {
            float f = (float)(in->aop == PTX_AOP_ADD ? (double)((float)x + (float)y) : r);
            uint32_t u;
            memcpy(&u, &f, 4);
            nv = u;
        } else if (t == PTX_T_F64) {
            memcpy(&nv, &r, 8);
        } else {
            nv = sim_float_imm(r, t);
        }
    } else {
        uint64_t x = old & mask, y = b & mask;
        int bits = 8 * (int)es;
        int64_t xs = bits >= 64 ? (int64_t)x : (int64_t)((x ^ (1ULL << (bits - 1))) - (1ULL << (bits - 1)));
        int64_t ys = bits >= 64 ? (int64_t)y : (int64_t)((y ^ (1ULL << (bits - 1))) - (1ULL << (bits - 1)));
        switch (in->aop) {
        case PTX_AOP_ADD: nv = x + y; break;
        case PTX_AOP_AND: nv = x & y; break;
        case PTX_AOP_OR: nv = x | y; break;
        case PTX_AOP_XOR: nv = x ^ y; break;
        case PTX_AOP_EXCH: nv = y; break;
        case PTX_AOP_CAS: nv = (x == y) ? (c & mask) : x; break;
        case PTX_AOP_MIN: nv = sg ? (xs < ys ? x : y) : (x < y ? x : y); break;
        case PTX_AOP_MAX: nv = sg ? (xs > ys ? x : y) : (x > y ? x : y); break;
        case PTX_AOP_INC: nv = x >= y ? 0 : x + 1; break;
        case PTX_AOP_DEC: nv = (x == 0 || x > y) ? y : x - 1; break;
        default: break;
        }
    }
    nv &= mask;
    memcpy(p, &nv, es);
    if (sg && es < 8) {
        uint64_t s = 1ULL << (8 * es - 1);
        old = (old ^ s) - s;
    }
    return old;
}

static bool exec_atom(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in, uint32_t m, double t,
                      double *done)
{
    bool red = in->op == PTX_OP_RED;
    int si = 0;
    sim_src b = sim_operand(R, w, in, si);
    sim_src c = in->nsrc > 1 ? sim_operand(R, w, in, si + 1) : b;
    uint64_t *d = red ? NULL : sim_dst(R, w, in, 0);
    uint64_t addrs[SIM_WARP];
    uint8_t *ptr[SIM_WARP];
    int n = 0;
    mkind k = K_GLOBAL, k0 = K_GLOBAL;
    SIM_LANES(m, l) {
        uint64_t a = lane_addr(w, in, l);
        uint8_t *p = resolve_fast(R, w, in, l, in->space, a, in->size, 2, &k);
        if (!p)
            return false;
        if (k != K_GLOBAL && k != K_SHARED) {
            char why[128];
            snprintf(why, sizeof why, "atomics on %s memory are not allowed", kind_name(k));
            return fault(R, w, in, l, k, 2, a, in->size, why);
        }
        if (n == 0)
            k0 = k;
        ptr[l] = p;
        addrs[n++] = (k == K_SHARED && in->space == PTX_SPACE_GENERIC) ? a - PTX_ADDR_SHARED : a;
    }
    if (in->size == 4 && in->aop == PTX_AOP_ADD && !ptx_type_is_float((ptx_type)in->ty)) {
        /* the histogram's atomicAdd, without atomic_apply's type dispatch per lane */
        bool sg = ptx_type_is_signed((ptx_type)in->ty);
        SIM_LANES(m, l) {
            uint32_t old, nv;
            memcpy(&old, ptr[l], 4);
            nv = old + (uint32_t)SIM_V(b, l);
            memcpy(ptr[l], &nv, 4);
            if (d)
                d[l] = sg ? (uint64_t)(int64_t)(int32_t)old : old;
        }
    } else {
        SIM_LANES(m, l) {
            uint64_t old = atomic_apply(in, ptr[l], SIM_V(b, l), SIM_V(c, l));
            if (d)
                d[l] = old;
        }
    }
    *done = sim_cost_atomic(R, sm, t, addrs, n, k0 == K_SHARED);
    return true;
}

static bool exec_cvta(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0);
    uint64_t *d = sim_dst(R, w, in, 0);
    uint64_t win;
    switch (in->space) {
    case PTX_SPACE_SHARED: case PTX_SPACE_SHARED_CLUSTER: win = PTX_ADDR_SHARED; break;
    case PTX_SPACE_LOCAL: win = PTX_ADDR_LOCAL; break;
    case PTX_SPACE_CONST: win = PTX_ADDR_CONST; break;
    case PTX_SPACE_PARAM: win = PTX_ADDR_PARAM; break;
    case PTX_SPACE_GLOBAL: win = 0; break;
    default: {
        char where[256];
        sim_where(R, w, in, where, sizeof where);
        sim_stop(R, HARNESS_UNSUPPORTED, "unsupported PTX instruction 'cvta.%s' at %s (generic "
                 "addresses of the %s space are not emulated)", ptx_space_name((ptx_space)in->space),
                 where, ptx_space_name((ptx_space)in->space));
        return false;
    }
    }
    bool to = in->flags & PTX_F_TO;
    bool narrow = ptx_type_bits((ptx_type)in->ty) == 32;
    SIM_LANES(m, l) {
        uint64_t v = to ? SIM_V(a, l) - win : SIM_V(a, l) + win;
        d[l] = narrow ? (uint32_t)v : v;
    }
    return true;
}

static bool exec_isspacep(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src a = sim_operand(R, w, in, 0);
    uint32_t res = 0;
    SIM_LANES(m, l) {
        uint64_t v = SIM_V(a, l);
        ptx_space sp = ptx_generic_space(v), want = in->space;
        bool r = sp == want || (want == PTX_SPACE_SHARED_CLUSTER && sp == PTX_SPACE_SHARED);
        if (r)
            res |= 1u << l;
    }
    sim_write_pred(w, in->dst[0], m, res);
    return true;
}

/* cp.async.ca/cg.shared.global [dst], [src], cp-size{, src-size}: copied
 * at issue; the data is ready for cp.async.wait_* at the returned time. */
/* The cost of moving `size` bytes at `a` (global when global, else shared)
 * from time t: in pieces of as many sectors as one access prices; the
 * copy engine does not go through the L1. */
static double bulk_cost(sim_run *R, sim_sm *sm, double t, uint64_t a, uint32_t size, bool global)
{
    enum { PIECE = 32 * 256 };
    double done = t;
    for (uint32_t o = 0; o < size; o += PIECE) {
        uint64_t at = a + o;
        uint32_t n = size - o < PIECE ? size - o : PIECE;
        done = global ? sim_cost_global(R, sm, done, &at, &n, 1, false) : sim_cost_shared(R, sm, done, &at, &n, 1);
    }
    return done;
}

/* Source k's value as an address in lane l: an address operand decoded
 * as a source (a register plus an offset, or an offset). */
static uint64_t src_addr(const sim_warp *w, const sim_instr *in, int k, uint32_t l)
{
    const sim_opd *o = &in->src[k];
    return o->imm + (o->kind == SIM_OPD_REG ? w->r[(size_t)o->slot * SIM_WARP + l] : 0);
}

/* Lane l's copy into shared memory completes `bytes` on the mbarrier at
 * shared address a (which may complete its phase); false after stopping
 * the run. */
static bool complete_tx(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t l, uint64_t a, uint64_t bytes)
{
    mkind k = K_SHARED;
    uint64_t obj, next;
    uint8_t *pb = resolve(R, w, in, l, PTX_SPACE_SHARED, a, 8, 2, &k);
    if (!pb)
        return false;
    bool completed;
    memcpy(&obj, pb, 8);
    const char *why = ptx_mbar_apply(PTX_MBAR_COMPLETE_TX, 0, obj, bytes, &next, &completed);
    if (why)
        return fault(R, w, in, l, k, 2, a, 8, why);
    memcpy(pb, &next, 8);
    return true;
}

/* cp.async.bulk: each lane's copy of `size` bytes (a multiple of 16, both
 * addresses 16-byte aligned) runs at issue, as cp.async's do; a copy into
 * shared memory then completes its bytes on the mbarrier (which may
 * complete its phase).  The warp pays both sides of every copy. */
static bool exec_cp_bulk(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in, uint32_t m, double t,
                         double *done)
{
    int dsp = ptx_cp_bulk_source(in->mode) == PTX_SPACE_GLOBAL ? PTX_SPACE_SHARED : in->space;
    int ssp = ptx_cp_bulk_source(in->mode);
    bool tx = ptx_cp_bulk_completes_tx(in->mode);
    sim_src sizes = sim_operand(R, w, in, 1);
    *done = t;
    SIM_LANES(m, l) {
        uint64_t dst = lane_addr(w, in, l), src = src_addr(w, in, 0, l);
        uint32_t size = (uint32_t)SIM_V(sizes, l);
        mkind k = K_GLOBAL;
        if (size % 16 || dst % 16 || src % 16)
            return fault(R, w, in, l, k, 1, size % 16 ? dst : dst % 16 ? dst : src, size,
                         "misaligned: a bulk copy moves a multiple of 16 bytes between 16-byte aligned addresses");
        uint8_t *ps = size ? resolve(R, w, in, l, ssp, src, size, 0, &k) : NULL;
        uint8_t *pd = size && ps ? resolve(R, w, in, l, dsp, dst, size, 1, &k) : NULL;
        if (size && !pd)
            return false;
        if (size)
            memmove(pd, ps, size);
        if (tx && !complete_tx(R, w, in, l, src_addr(w, in, 2, l), size))
            return false;
        double read = bulk_cost(R, sm, t, src, size, ssp == PTX_SPACE_GLOBAL);
        *done = sim_dmax(*done, bulk_cost(R, sm, read, dst, size, dsp == PTX_SPACE_GLOBAL));
    }
    return true;
}

/* The tensor map at generic address a (lane l's operand): a tensor map
 * parameter of the spec, by its address (cvta.param); NULL after stopping
 * the run (a map in global or shared memory is not modelled). */
static const ptx_tensor_map *tmap_of(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t l, uint64_t a,
                                     int *param)
{
    const sim_prog *P = R->prog;
    const wh_spec *S = P->spec;
    for (int i = 0; R->tmap && i < S->nkparams && a >= PTX_ADDR_PARAM; i++)
        if (R->tmap[i].rank && P->kparam_off[i] == a - PTX_ADDR_PARAM) {
            *param = i;
            return &R->tmap[i];
        }
    char thr[128], where[256];
    sim_thread_desc(R, w, (int)l, thr, sizeof thr);
    sim_where(R, w, in, where, sizeof where);
    sim_stop(R, HARNESS_UNSUPPORTED, "unsupported tensor map at %s, %s: address 0x%llx is no tensor map parameter "
             "of the spec (a __grid_constant__ CUtensorMap parameter of \"kind\": \"tensor_map\"; maps in global "
             "or shared memory are not modelled)", where, thr, (unsigned long long)a);
    return NULL;
}

/* Lane l's tensor copy coordinates (cargs, s32). */
static void tensor_coords(const sim_warp *w, const sim_instr *in, uint32_t l, int32_t *c)
{
    for (int d = 0; d < WH_TMAP_MAX_RANK; d++) {
        const sim_opd *o = d < in->ncargs ? &in->cargs[d] : NULL;
        c[d] = !o ? 0 : (int32_t)(o->kind == SIM_OPD_REG ? w->r[(size_t)o->slot * SIM_WARP + l] : o->imm);
    }
}

/* One lane's tensor copy between the box at shared offset `box` and the
 * tensor (global region g at gbase): a load fills elements outside the tensor, a
 * store skips them.  The global sectors touched go to addrs/sizes (one
 * entry per box row of dimension 0 inside the tensor, at most `cap`). */
static int tensor_move(const ptx_tensor_map *tm, const int32_t *c, uint8_t *shared, uint64_t box, sim_region *g,
                       uint64_t gbase, bool load, uint64_t *addrs, uint32_t *sizes, int cap)
{
    uint32_t n = ptx_tmap_box_elems(tm), es = (uint32_t)tm->elem_bytes;
    uint8_t fill[8];
    ptx_tmap_fill(tm, fill);
    int rows = 0;
    for (uint32_t k = 0; k < n; k++) {
        int64_t e = ptx_tmap_elem(tm, c, k);
        uint8_t *s = shared + ptx_tmap_smem(tm, box, k);
        if (e >= 0 && load)
            memcpy(s, g->data + (uint64_t)e * es, es);
        else if (e >= 0)
            memcpy(g->data + (uint64_t)e * es, s, es);
        else if (load)
            memcpy(s, fill, es);
        if (e < 0)
            continue;
        uint64_t at = gbase + (uint64_t)e * es;
        if (rows > 0 && addrs[rows - 1] + sizes[rows - 1] == at)
            sizes[rows - 1] += es;
        else if (rows < cap) {
            addrs[rows] = at;
            sizes[rows++] = es;
        }
    }
    return rows;
}

/* cp.async.bulk.tensor (tiled): each lane's box moves at issue, as the
 * bulk copies do, between shared memory (128-byte aligned, inside the
 * block's) and the tensor its map names (ptx/tensor_map.c); a load then
 * completes the whole box's bytes on the mbarrier.  Priced as the bulk
 * copies: the global sectors of the box's rows inside the tensor, then
 * the shared bytes. */
static bool exec_cp_tensor(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in, uint32_t m, double t,
                           double *done)
{
    bool load = in->mode == PTX_CP_TENSOR_TO_SHARED;
    *done = t;
    SIM_LANES(m, l) {
        int p = -1;
        const ptx_tensor_map *tm = tmap_of(R, w, in, l, src_addr(w, in, 0, l), &p);
        if (!tm)
            return false;
        uint64_t box = lane_addr(w, in, l);
        uint32_t bytes = ptx_tmap_box_bytes(tm);
        mkind k = K_SHARED;
        if (box % PTX_TMAP_SMEM_ALIGN)
            return fault(R, w, in, l, k, load, box, bytes, "misaligned: a tensor copy's box in shared memory "
                         "needs 128-byte alignment");
        /* a swizzled box's rows move within their 128 bytes */
        uint32_t span = tm->swizzle ? (bytes + 127) / 128 * 128 : bytes;
        uint8_t *ps = resolve(R, w, in, l, PTX_SPACE_SHARED, box, span, load, &k);
        if (!ps)
            return false;
        int32_t c[WH_TMAP_MAX_RANK];
        tensor_coords(w, in, l, c);
        int rg = R->prog->region_of_param[p];
        enum { ROWS = 256 };
        uint64_t addrs[ROWS];
        uint32_t sizes[ROWS];
        uint8_t *shared = ps - box;   /* the box's offsets are the block's shared offsets */
        int rows = tensor_move(tm, c, shared, box, &R->regions[rg], R->prog->regions[rg].base, load, addrs, sizes,
                               ROWS);
        if (load && !complete_tx(R, w, in, l, src_addr(w, in, 1, l), bytes))
            return false;
        double moved = t;
        for (int r = 0; r < rows; r++)
            moved = sim_dmax(moved, bulk_cost(R, sm, t, addrs[r], sizes[r], true));
        *done = sim_dmax(*done, bulk_cost(R, sm, moved, box, bytes, false));
    }
    return true;
}

static bool exec_cp_async(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in, uint32_t m, double t,
                          double *done)
{
    if (ptx_cp_is_bulk_copy(in->mode))
        return exec_cp_bulk(R, sm, w, in, m, t, done);
    if (ptx_cp_is_tensor_copy(in->mode))
        return exec_cp_tensor(R, sm, w, in, m, t, done);
    if (in->mode != PTX_CP_COPY) {
        *done = t;
        return true;
    }
    sim_src cps = sim_operand(R, w, in, 1);
    sim_src srcs = in->nsrc > 2 ? sim_operand(R, w, in, 2) : cps;
    uint64_t ga[SIM_WARP], sa[SIM_WARP];
    uint32_t gb[SIM_WARP];
    int n = 0;
    mkind k;
    SIM_LANES(m, l) {
        uint32_t cp = (uint32_t)SIM_V(cps, l), sz = (uint32_t)SIM_V(srcs, l);
        if (sz > cp)
            sz = cp;
        uint64_t dst = lane_addr(w, in, l);
        uint64_t src = src_addr(w, in, 0, l);
        uint8_t *pd = resolve(R, w, in, l, PTX_SPACE_SHARED, dst, cp, 1, &k);
        if (!pd)
            return false;
        if (sz) {
            uint8_t *ps = resolve(R, w, in, l, PTX_SPACE_GLOBAL, src, sz, 0, &k);
            if (!ps)
                return false;
            memcpy(pd, ps, sz);
        }
        memset(pd + sz, 0, cp - sz);
        ga[n] = src;
        gb[n] = sz ? sz : 1;
        sa[n] = dst;
        n++;
    }
    double g = sim_cost_global(R, sm, t, ga, gb, n, false);
    double s = sim_cost_shared(R, sm, g, sa, gb, n);
    *done = s;
    return true;
}

/* The texture (tex, tld4, txq) or surface (suld, sust, suq) lane l's handle
 * names, or NULL after stopping the run: a texture or surface parameter of
 * the spec, as the instruction needs, whose geometry is the access's. */
static const ptx_texture *tex_of(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t l, uint64_t h)
{
    const wh_spec *S = R->prog->spec;
    bool surface = in->op == PTX_OP_SULD || in->op == PTX_OP_SUST || in->op == PTX_OP_SURED || in->op == PTX_OP_SUQ;
    int geom = in->op == PTX_OP_TXQ || in->op == PTX_OP_SUQ ? 0 : in->mode % PTX_TLD4_COMP;
    uint64_t p = h - PTX_ADDR_TEXTURE;
    const char *why = NULL;
    char thr[128], where[256];
    if (h < PTX_ADDR_TEXTURE || p >= (uint64_t)S->nkparams || !R->tex || !R->tex[p].ndims)
        why = surface ? "is no surface object parameter of the spec" : "is no texture object parameter of the spec";
    else if (R->tex[p].surface != surface)
        why = surface ? "names a texture, not a surface" : "names a surface, not a texture";
    else if (geom && ptx_tex_geometry(&R->tex[p]) != geom)
        why = surface ? "names a surface of another geometry" : "names a texture of another geometry";
    else if (in->op == PTX_OP_TLD4 && !R->tex[p].gather)
        why = "names a texture whose spec does not say \"gather\": true (tld4 reads a CUDA array made for "
              "tex2Dgather)";
    if (!why)
        return &R->tex[p];
    sim_thread_desc(R, w, (int)l, thr, sizeof thr);
    sim_where(R, w, in, where, sizeof where);
    sim_stop(R, HARNESS_FAULT, "%s with handle 0x%llx by thread %s at %s: the handle %s%s%s%s",
             ptx_opcode_name((ptx_opcode)in->op), (unsigned long long)h, thr, where, why,
             p < (uint64_t)S->nkparams ? " ('" : "", p < (uint64_t)S->nkparams ? S->params[p].name : "",
             p < (uint64_t)S->nkparams ? "')" : "");
    return NULL;
}

/* How many of an access's sources are coordinates (sured's value is the
 * last source). */
static int coord_sources(const sim_instr *in)
{
    return in->op == PTX_OP_SURED ? in->nsrc - 1 : in->nsrc;
}

/* tex, tld4, suld, sust, sured, txq, suq: the coordinates of every lane. */
static void access_operands(sim_run *R, sim_warp *w, const sim_instr *in, sim_src ops[4])
{
    for (int k = 0; k < coord_sources(in) && k < 4; k++)
        ops[k] = sim_operand(R, w, in, k);
}

/* The texture or surface lane l accesses (*p: its spec parameter) and the
 * lane's coordinates; NULL after stopping the run. */
static const ptx_texture *lane_access(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t l, const sim_src *ops,
                                      uint64_t *p, uint32_t coord[4])
{
    uint64_t h = w->r[(size_t)in->addr.base * SIM_WARP + l];
    const ptx_texture *tx = tex_of(R, w, in, l, h);
    *p = h - PTX_ADDR_TEXTURE;
    coord[0] = coord[1] = coord[2] = coord[3] = 0;
    for (int k = 0; k < coord_sources(in) && k < 4; k++)
        coord[k] = (uint32_t)SIM_V(ops[k], l);
    return tx;
}

/* A surface access of lane l that cannot be made: stops the run (fault). */
static void surf_fault(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t l, const ptx_texture *tx, uint64_t p,
                       const uint32_t ucoord[4], const char *what, uint32_t bytes)
{
    char thr[128], where[256];
    sim_thread_desc(R, w, (int)l, thr, sizeof thr);
    sim_where(R, w, in, where, sizeof where);
    bool st = in->op == PTX_OP_SUST || in->op == PTX_OP_SURED;
    sim_stop(R, HARNESS_FAULT, "%s %s of %u bytes at (%d, %d, %d)%s of surface '%s' by thread %s at %s", what,
             st ? "store" : "load", bytes, (int32_t)ucoord[0], (int32_t)ucoord[1], (int32_t)ucoord[2],
             tx->layers || tx->cube ? " (layer, x, y)" : "", R->prog->spec->params[p].name, thr, where);
}

/* sust.p: lane l's values as the texel the surface's format makes. */
static void store_formatted(sim_warp *w, const sim_instr *in, uint32_t l, uint32_t nv, const ptx_texture *tx,
                            uint8_t *at)
{
    uint32_t v[4];
    for (uint32_t e = 0; e < nv && e < 4; e++)
        v[e] = (uint32_t)w->r[(size_t)in->dst[e] * SIM_WARP + l];
    ptx_surf_format_texel(tx, v, (int)nv, at);
}

/* suld.b / sust.b / sured.b: each lane's access at (x bytes, y, z) of the
 * surface its handle names (ptx/texture.c places it), priced as a global
 * access; sured's, in lane order, as an atomic.  The formatted sust.p and
 * sured.p: x counts texels, a store writes one texel in the surface's
 * format, a reduction runs in the type its samples say. */
static bool exec_surf(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in, uint32_t m, double t,
                      double *done)
{
    const sim_prog *P = R->prog;
    bool red = in->op == PTX_OP_SURED, st = in->op == PTX_OP_SUST || red;
    bool fmt = (in->flags & PTX_F_FORMATTED) != 0, clamp = (in->flags & PTX_F_CLAMP) != 0;
    uint32_t es = (uint32_t)ptx_type_size((ptx_type)in->ty), nv = in->vec ? in->vec : 1;
    uint64_t addrs[SIM_WARP];
    uint32_t sizes[SIM_WARP];
    int n = 0;
    sim_src ops[4], val = red ? sim_operand(R, w, in, in->nsrc - 1) : (sim_src){ 0 };
    sim_instr red_as = *in;   /* sured.p: the reduction in its samples' type */
    access_operands(R, w, in, ops);
    SIM_LANES(m, l) {
        uint64_t p;
        uint32_t ucoord[4];
        const ptx_texture *tx = lane_access(R, w, in, l, ops, &p, ucoord);
        if (!tx)
            return false;
        int r = P->region_of_param[p];
        uint32_t bytes = fmt ? (uint32_t)tx->texel_bytes : es * nv;
        uint64_t off = 0;
        ptx_surf_place place = fmt ? ptx_surf_sample_offset(tx, ucoord, clamp, &off)
                                   : ptx_surf_offset(tx, ucoord, (int)bytes, clamp, &off);
        if (place == PTX_SURF_IN && off + bytes > R->regions[r].size)
            place = PTX_SURF_OUT;   /* an image smaller than the dimensions: refused on load, never here */
        if (place != PTX_SURF_IN && (place == PTX_SURF_MISALIGNED || !(in->flags & PTX_F_ZERO))) {
            surf_fault(R, w, in, l, tx, p, ucoord,
                       place == PTX_SURF_MISALIGNED ? "misaligned" : "out-of-bounds (.trap)", bytes);
            return false;
        }
        if (red && fmt) {
            red_as.ty = (uint8_t)ptx_surf_reduce_type(tx, (ptx_type)in->ty);
            red_as.size = 4;
            if (red_as.ty == PTX_T_NONE) {
                surf_fault(R, w, in, l, tx, p, ucoord,
                           "formatted reduction (sured.p) whose type its samples do not hold (one 32-bit integer)",
                           es);
                return false;
            }
        }
        uint8_t *at = place == PTX_SURF_IN ? R->regions[r].data + off : NULL;
        if (red && at)
            atomic_apply(&red_as, at, SIM_V(val, l), 0);
        if (fmt && !red && at)
            store_formatted(w, in, l, nv, tx, at);
        for (uint32_t e = 0; !red && !fmt && e < nv; e++) {
            if (st && at) {
                uint64_t v = w->r[(size_t)in->dst[e] * SIM_WARP + l];
                memcpy(at + e * es, &v, es);
            } else if (!st) {
                sim_dst(R, w, in, (int)e)[l] = at ? load_bits(at + e * es, es, false) : 0;   /* .zero outside */
            }
        }
        if (at) {
            addrs[n] = P->regions[r].base + off;
            sizes[n++] = bytes;
        }
    }
    if (red)
        *done = n ? sim_cost_atomic(R, sm, t, addrs, n, false) : t + R->prof->cls[SIM_C_ATOM].latency;
    else
        *done = n ? sim_cost_global(R, sm, t, addrs, sizes, n, !st) : t + R->prof->cls[SIM_C_GLOBAL].latency;
    return true;
}

/* Lane l's level of detail: tex.level's operand (one carg: an f32, or an
 * s32 with .s32 coordinates), tex.grad's from its gradients (ddx's
 * elements, then ddy's), 0 for a plain tex. */
static float lane_lod(const sim_warp *w, const sim_instr *in, const ptx_texture *tx, uint32_t l)
{
    float v[8] = { 0 };
    int n = in->ncargs < 8 ? in->ncargs : 8;
    for (int i = 0; i < n; i++) {
        const sim_opd *o = &in->cargs[i];
        uint32_t bits = (uint32_t)(o->kind == SIM_OPD_REG ? w->r[(size_t)o->slot * SIM_WARP + l] : o->imm);
        if (n == 1 && in->ty2 == PTX_T_S32)
            v[i] = (float)(int32_t)bits;
        else
            memcpy(&v[i], &bits, sizeof bits);
    }
    return ptx_tex_lod(tx, v, n);
}

/* tex: each lane's fetch (ptx/texture.c), priced as a global load of the
 * texels it reads through the L1 (the texture cache is the L1). */
static bool exec_tex(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in, uint32_t m, double t,
                     double *done)
{
    const sim_prog *P = R->prog;
    uint64_t addrs[SIM_WARP * PTX_TEX_MAX_TAPS];
    uint32_t sizes[SIM_WARP * PTX_TEX_MAX_TAPS];
    int n = 0;
    bool int_coords = in->ty2 == PTX_T_S32, gather = in->op == PTX_OP_TLD4;
    sim_src ops[4];
    access_operands(R, w, in, ops);
    SIM_LANES(m, l) {
        uint64_t p;
        uint32_t coord[4];
        const ptx_texture *tx = lane_access(R, w, in, l, ops, &p, coord);
        if (!tx)
            return false;
        const sim_region *g = &R->regions[P->region_of_param[p]];
        uint64_t base = P->regions[P->region_of_param[p]].base;
        ptx_tex_tap taps[PTX_TEX_MAX_TAPS];
        int nt = 4;
        if (gather)
            ptx_tex_gather_taps(tx, coord, taps);
        else
            nt = ptx_tex_taps_lod(tx, int_coords, coord, lane_lod(w, in, tx, l), taps);
        for (int k = 0; k < nt; k++) {
            uint64_t end = (uint64_t)(taps[k].index + 1) * (uint64_t)tx->texel_bytes;
            if (taps[k].index >= 0 && end > g->size) {
                sim_stop(R, HARNESS_FAULT, "texture '%s' has %llu bytes, fewer than its dimensions need",
                         P->spec->params[p].name, (unsigned long long)g->size);
                return false;
            }
            if (taps[k].index >= 0) {
                addrs[n] = base + (uint64_t)taps[k].index * (uint64_t)tx->texel_bytes;
                sizes[n++] = (uint32_t)tx->texel_bytes;
            }
        }
        uint32_t out[4];
        if (gather)
            ptx_tex_gather(tx, g->data, taps, in->mode / PTX_TLD4_COMP, out);
        else
            ptx_tex_fetch(tx, g->data, taps, nt, out);
        for (int e = 0; e < 4; e++)
            sim_dst(R, w, in, e)[l] = out[e];
    }
    *done = n ? sim_cost_global(R, sm, t, addrs, sizes, n, true) : t + R->prof->cls[SIM_C_GLOBAL].latency;
    return true;
}

/* txq, suq: each lane's answer about the texture or surface its handle
 * names (ptx/texture.c), at the latency of the instruction's class. */
static bool exec_query(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m, double t, double *done)
{
    sim_src ops[4];
    access_operands(R, w, in, ops);
    SIM_LANES(m, l) {
        uint64_t p;
        uint32_t coord[4];
        const ptx_texture *tx = lane_access(R, w, in, l, ops, &p, coord);
        if (!tx)
            return false;
        sim_dst(R, w, in, 0)[l] = ptx_tex_query_value(tx, in->mode);
    }
    *done = t + R->prof->cls[in->cls].latency;
    return true;
}

/* mbarrier.init / inval / arrive / arrive_drop / expect_tx / complete_tx /
 * test_wait / try_wait / pending_count, lane by lane in lane order, priced
 * as shared atomics; the object's bytes and transitions are
 * ptx/mbarrier.c's.  try_wait answers at once, as test_wait does (a GPU
 * may hold the thread a while first: the spin loops around both see the
 * same answers). */
static bool exec_mbarrier(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in, uint32_t m, double t,
                          double *done)
{
    sim_src v = in->nsrc ? sim_operand(R, w, in, 0) : (sim_src){ 0 };
    if (in->mode == PTX_MBAR_PENDING_COUNT) {
        uint64_t *d = sim_dst(R, w, in, 0);
        SIM_LANES(m, l) d[l] = ptx_mbar_pending(SIM_V(v, l));
        return true;
    }
    bool wait = in->mode == PTX_MBAR_TEST_WAIT || in->mode == PTX_MBAR_TRY_WAIT;
    uint64_t addrs[SIM_WARP];
    uint32_t passed = 0;
    int n = 0;
    SIM_LANES(m, l) {
        mkind k = K_SHARED;
        uint64_t a = lane_addr(w, in, l);
        uint8_t *p = resolve_fast(R, w, in, l, in->space, a, 8, 2, &k);
        if (!p)
            return false;
        if (k != K_SHARED)
            return fault(R, w, in, l, k, 2, a, 8, "an mbarrier object lives in shared memory");
        addrs[n++] = in->space == PTX_SPACE_GENERIC ? a - PTX_ADDR_SHARED : a;
        uint64_t obj, next;
        bool completed;
        memcpy(&obj, p, 8);
        switch (in->mode) {
        case PTX_MBAR_INIT:
            obj = ptx_mbar_init(SIM_V(v, l));
            memcpy(p, &obj, 8);
            break;
        case PTX_MBAR_INVAL:
            memset(p, 0, 8);
            break;
        case PTX_MBAR_TEST_WAIT: case PTX_MBAR_TRY_WAIT:
            if (ptx_mbar_phase_done(in->flags, obj, SIM_V(v, l)))
                passed |= 1u << l;
            break;
        default: {   /* arrive, arrive_drop (a count, or .expect_tx's bytes), expect_tx, complete_tx */
            const char *why = ptx_mbar_apply(in->mode, in->flags, obj, in->nsrc ? SIM_V(v, l) : 1, &next, &completed);
            if (why)
                return fault(R, w, in, l, k, 2, a, 8, why);
            memcpy(p, &next, 8);
            if (in->mode == PTX_MBAR_ARRIVE || in->mode == PTX_MBAR_ARRIVE_DROP)
                sim_dst(R, w, in, 0)[l] = obj;   /* the state token */
            break;
        }
        }
    }
    if (wait)
        sim_write_pred(w, in->dst[0], m, passed);
    *done = sim_cost_atomic(R, sm, t, addrs, n, true);
    return true;
}

bool sim_exec_mem(sim_run *R, sim_sm *sm, sim_warp *w, const sim_instr *in, uint32_t m, double t,
                  double *done)
{
    *done = t;
    switch (in->op) {
    case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_ST:
        return exec_ld_st(R, sm, w, in, m, t, done);
    case PTX_OP_ATOM: case PTX_OP_RED:
        return exec_atom(R, sm, w, in, m, t, done);
    case PTX_OP_CVTA:
        return exec_cvta(R, w, in, m);
    case PTX_OP_ISSPACEP:
        return exec_isspacep(R, w, in, m);
    case PTX_OP_CP_ASYNC:
        return exec_cp_async(R, sm, w, in, m, t, done);
    case PTX_OP_TEX: case PTX_OP_TLD4:
        return exec_tex(R, sm, w, in, m, t, done);
    case PTX_OP_TXQ: case PTX_OP_SUQ:
        return exec_query(R, w, in, m, t, done);
    case PTX_OP_SULD: case PTX_OP_SUST: case PTX_OP_SURED:
        return exec_surf(R, sm, w, in, m, t, done);
    case PTX_OP_MBARRIER:
        return exec_mbarrier(R, sm, w, in, m, t, done);
    default:
        return true;
    }
}
