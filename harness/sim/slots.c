/*
 * slots.c — register slots of a function.
 *
 * PTX from nvcc names a fresh virtual register for almost every value
 * (thousands in large kernels), while few are live at once.  Slots are
 * given in two steps: sim_assign_slots numbers every register densely
 * (values and predicates apart) so that instructions can be decoded; then
 * sim_compact_slots computes liveness over the CFG (backward dataflow on
 * blocks; a guarded write does not kill) and the live range of each
 * register as the hull [first, last] of the instruction positions where it
 * is live or referenced, and lets registers with disjoint ranges share a
 * slot (linear scan).  Registers are per lane and a lane only writes its
 * own registers when active, so thread-level liveness is exact for SIMT
 * execution too.  Smaller register files mean less memory per resident
 * warp and better cache behaviour of the interpreter.
 */
#include "harness/sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sim_assign_slots(sim_func *F)
{
    const ptx_function *f = F->pf;
    F->slot = wh_xcalloc((size_t)(f->nregs > 0 ? f->nregs : 1), sizeof *F->slot);
    F->nslots = 0;
    F->npreds = 0;
    for (int r = 0; r < f->nregs; r++) {
        if (f->regs[r].type == PTX_T_PRED)
            F->slot[r] = F->npreds++;
        else
            F->slot[r] = F->nslots++;
    }
}

/* ---- references of a decoded instruction ----------------------------------- */

typedef void (*ref_fn)(void *ctx, int idx, bool def);

/* Combined index: value slot v -> v, pred slot p -> nslots + p. */
static void refs(const sim_func *F, const sim_instr *in, ref_fn fn, void *ctx)
{
    int V = F->nslots;
    if (in->guard >= 0)
        fn(ctx, V + in->guard, false);
    for (int i = 0; i < in->nsrc && i < 4; i++) {
        const sim_opd *o = &in->src[i];
        if (o->kind == SIM_OPD_REG && o->slot >= 0)
            fn(ctx, o->slot, false);
        else if (o->kind == SIM_OPD_PRED && o->slot >= 0)
            fn(ctx, V + o->slot, false);
    }
    if (in->addr.base >= 0)
        fn(ctx, in->addr.base, false);
    for (int i = 0; i < in->ncargs + in->ncrets; i++) {
        const sim_opd *o = &in->cargs[i];
        if (o->kind == SIM_OPD_REG && o->slot >= 0)
            fn(ctx, o->slot, i >= in->ncargs);
    }
    for (int i = 0; i < in->ndst && i < 4; i++)
        if (in->dst[i] >= 0)
            fn(ctx, in->dst_pred[i] ? V + in->dst[i] : in->dst[i], true);
    for (int i = 0; in->op == PTX_OP_SUST && i < in->vec && i < 4; i++)
        if (in->dst[i] >= 0)
            fn(ctx, in->dst[i], false);   /* sust's values ride in dst (sim.h): uses */
    if (in->dstp >= 0)
        fn(ctx, V + in->dstp, true);
}

typedef struct {
    uint64_t *use, *def;   /* one block's sets */
    int *lo, *hi;
    int pos;
    bool guarded;
    int phase;             /* 0: use/def sets, 1: intervals */
} walk;

static inline bool bit_get(const uint64_t *s, int i)
{
    return (s[i >> 6] >> (i & 63)) & 1;
}

static inline void bit_set(uint64_t *s, int i)
{
    s[i >> 6] |= 1ULL << (i & 63);
}

static void on_ref(void *ctx, int idx, bool def)
{
    walk *k = ctx;
    if (k->phase == 0) {
        if (def) {
            if (!k->guarded)
                bit_set(k->def, idx);
        } else if (!bit_get(k->def, idx)) {
            bit_set(k->use, idx);
        }
        return;
    }
    if (k->pos < k->lo[idx])
        k->lo[idx] = k->pos;
    if (k->pos > k->hi[idx])
        k->hi[idx] = k->pos;
}

static void extend(int *lo, int *hi, int idx, int pos)
{
    if (pos < lo[idx])
        lo[idx] = pos;
    if (pos > hi[idx])
        hi[idx] = pos;
}

typedef struct {
    int idx, lo, hi;
} interval;

static int cmp_lo(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->idx - y->idx;
}

/* Linear scan over intervals of one class; returns the slots used. */
static int scan(interval *iv, int n, int *newslot)
{
    qsort(iv, (size_t)n, sizeof *iv, cmp_lo);
    int *slot_end = wh_xcalloc((size_t)n + 1, sizeof *slot_end);   /* per slot: hi of its last interval */
    int nslots = 0;
    for (int i = 0; i < n; i++) {
        int s = -1;
        for (int k = 0; k < nslots; k++)
            if (slot_end[k] < iv[i].lo) {
                s = k;
                break;
            }
        if (s < 0)
            s = nslots++;
        slot_end[s] = iv[i].hi;
        newslot[iv[i].idx] = s;
    }
    free(slot_end);
    return nslots;
}

static void remap_opd(sim_opd *o, const int *map, int V)
{
    if (o->kind == SIM_OPD_REG && o->slot >= 0)
        o->slot = map[o->slot];
    else if (o->kind == SIM_OPD_PRED && o->slot >= 0)
        o->slot = map[V + o->slot];
}

void sim_compact_slots(sim_func *F)
{
    const ptx_function *f = F->pf;
    int V = F->nslots, Q = F->npreds, N = V + Q;
    if (N == 0 || f->nblocks == 0)
        return;
    int nb = f->nblocks;
    size_t W = ((size_t)N + 63) / 64;
    uint64_t *use = wh_xcalloc((size_t)nb * W, sizeof *use);
    uint64_t *def = wh_xcalloc((size_t)nb * W, sizeof *def);
    uint64_t *lin = wh_xcalloc((size_t)nb * W, sizeof *lin);
    uint64_t *lout = wh_xcalloc((size_t)nb * W, sizeof *lout);
    int *lo = wh_xcalloc((size_t)N, sizeof *lo), *hi = wh_xcalloc((size_t)N, sizeof *hi);
    for (int i = 0; i < N; i++) {
        lo[i] = 0x7fffffff;
        hi[i] = -1;
    }
    walk k = { 0 };
    k.lo = lo;
    k.hi = hi;
    for (int b = 0; b < nb; b++) {
        const ptx_block *B = &f->blocks[b];
        k.use = use + (size_t)b * W;
        k.def = def + (size_t)b * W;
        k.phase = 0;
        for (int i = B->first; i < B->first + B->count && i < F->ncode; i++) {
            k.guarded = F->code[i].guard >= 0;
            refs(F, &F->code[i], on_ref, &k);
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int b = nb - 1; b >= 0; b--) {
            const ptx_block *B = &f->blocks[b];
            uint64_t *out = lout + (size_t)b * W, *in = lin + (size_t)b * W;
            for (int s = 0; s < B->nsucc; s++) {
                if (B->succ[s] < 0)
                    continue;
                const uint64_t *sin = lin + (size_t)B->succ[s] * W;
                for (size_t j = 0; j < W; j++)
                    out[j] |= sin[j];
            }
            const uint64_t *u = use + (size_t)b * W, *d = def + (size_t)b * W;
            for (size_t j = 0; j < W; j++) {
                uint64_t v = u[j] | (out[j] & ~d[j]);
                if (v != in[j]) {
                    in[j] = v;
                    changed = true;
                }
            }
        }
    }
    for (int b = 0; b < nb; b++) {
        const ptx_block *B = &f->blocks[b];
        const uint64_t *in = lin + (size_t)b * W, *out = lout + (size_t)b * W;
        int last = B->first + B->count - 1;
        for (size_t j = 0; j < W; j++) {
            for (uint64_t m = in[j]; m; m &= m - 1)
                extend(lo, hi, (int)(j * 64) + __builtin_ctzll(m), B->first);
            for (uint64_t m = out[j]; m; m &= m - 1)
                extend(lo, hi, (int)(j * 64) + __builtin_ctzll(m), last);
        }
    }
    k.phase = 1;
    for (int i = 0; i < F->ncode; i++) {
        k.pos = i;
        refs(F, &F->code[i], on_ref, &k);
    }
    /* registers bound to .reg parameters or results live throughout */
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i].space == PTX_SPACE_REG && f->params[i].reg >= 0) {
            int r = f->params[i].reg, idx = f->regs[r].type == PTX_T_PRED ? V + F->slot[r] : F->slot[r];
            extend(lo, hi, idx, 0);
            extend(lo, hi, idx, F->ncode);
        }
    for (int i = 0; i < f->nrets; i++)
        if (f->rets[i].space == PTX_SPACE_REG && f->rets[i].reg >= 0) {
            int r = f->rets[i].reg, idx = f->regs[r].type == PTX_T_PRED ? V + F->slot[r] : F->slot[r];
            extend(lo, hi, idx, 0);
            extend(lo, hi, idx, F->ncode);
        }

    interval *iv = wh_xcalloc((size_t)N, sizeof *iv);
    int *map = wh_xcalloc((size_t)N, sizeof *map);
    int nv = 0, nq = 0;
    for (int i = 0; i < V; i++)
        if (hi[i] >= 0)
            iv[nv++] = (interval){ i, lo[i], hi[i] };
    int newV = scan(iv, nv, map);
    for (int i = V; i < N; i++)
        if (hi[i] >= 0)
            iv[nq++] = (interval){ i, lo[i], hi[i] };
    int newQ = scan(iv, nq, map);
    if (newV == 0)
        newV = 1;
    if (newQ == 0)
        newQ = 1;
    /* unreferenced registers share slot 0 of their class */

    for (int i = 0; i < F->ncode; i++) {
        sim_instr *in = &F->code[i];
        if (in->guard >= 0)
            in->guard = map[V + in->guard];
        for (int s = 0; s < 4; s++)
            remap_opd(&in->src[s], map, V);
        if (in->addr.base >= 0)
            in->addr.base = map[in->addr.base];
        for (int s = 0; s < in->ncargs + in->ncrets; s++)
            remap_opd(&in->cargs[s], map, V);
        for (int s = 0; s < 4; s++)
            if (in->dst[s] >= 0)
                in->dst[s] = in->dst_pred[s] ? map[V + in->dst[s]] : map[in->dst[s]];
        if (in->dstp >= 0)
            in->dstp = map[V + in->dstp];
        for (int s = 0; s < in->ndeps; s++)
            in->deps[s] = in->deps[s] >= V ? newV + map[in->deps[s]] : map[in->deps[s]];
        for (int s = 0; s < in->nouts; s++)
            in->outs[s] = in->outs[s] >= V ? newV + map[in->outs[s]] : map[in->outs[s]];
    }
    for (int r = 0; r < f->nregs; r++) {
        bool pred = f->regs[r].type == PTX_T_PRED;
        F->slot[r] = pred ? map[V + F->slot[r]] : map[F->slot[r]];
    }
    F->nslots = newV;
    F->npreds = newQ;
    free(iv);
    free(map);
    free(use);
    free(def);
    free(lin);
    free(lout);
    free(lo);
    free(hi);
}
