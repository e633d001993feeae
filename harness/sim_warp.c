/*
 * sim_warp.c — executing one warp instruction: SIMT control flow with a
 * reconvergence stack, calls and returns, warp-wide operations, barriers.
 *
 * SIMT stack (immediate post-dominator reconvergence): each entry is
 * {pc, rpc, mask}; the warp executes the top entry.  At a divergent branch
 * the top entry becomes the reconvergence entry (pc = the branch's
 * reconvergence point, ptx_reconverge_instr) and the two sides are pushed
 * (the fall-through side runs first); an entry whose pc reaches its rpc,
 * or whose mask is empty, is popped.  When the branch reconverges where
 * the top entry already does, no new reconvergence entry is pushed, so
 * loops with divergent exits do not grow the stack.  Optionally (profile
 * control.reconvergence "ipdom+merge") sibling paths also merge where they
 * meet, see sift_top below.
 *
 * Calls push a frame (registers, predicates, scoreboard, per-lane param
 * area, local frame) and a stack entry with no reconvergence point; lanes
 * that execute `ret` leave every entry of the frame, and when the frame's
 * bottom entry is empty the frame returns to the caller with the lanes
 * that returned.  `exit` (and `ret` in the kernel) retires lanes for good.
 *
 * Barriers (bar/barrier .sync/.arrive/.red): a warp's arrival counts for
 * the whole warp; a barrier without a thread count completes when every
 * warp of the block that has not exited has arrived.  A .sync/.red barrier
 * executed by only part of a warp's live lanes (divergence) stops the run
 * with a fault; barriers that can never complete are reported as a
 * deadlock by the scheduler (sim_run.c).
 */
#include "harness/sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ------------------------------------------------------------- */

void sim_stop(sim_run *R, harness_status st, const char *fmt, ...)
{
    if (R->status != HARNESS_OK)
        return;
    R->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(R->message, sizeof R->message, fmt, ap);
    va_end(ap);
}

void sim_thread_desc(const sim_run *R, const sim_warp *w, int lane, char *buf, size_t size)
{
    const sim_block *b = w->blk;
    unsigned i = (unsigned)w->index * SIM_WARP + (unsigned)lane;
    const wh_launch *L = &R->launch;
    snprintf(buf, size, "tid=(%u,%u,%u) ctaid=(%u,%u,%u)", i % L->block[0],
             (i / L->block[0]) % L->block[1], i / (L->block[0] * L->block[1]), b->ctaid[0], b->ctaid[1],
             b->ctaid[2]);
}

void sim_where(const sim_run *R, const sim_warp *w, const sim_instr *in, char *buf, size_t size)
{
    const sim_func *F = w->fn;
    char text[128];
    sim_instr_text(R->prog, F, in, text, sizeof text);
    int line = (in->pidx >= 0 && in->pidx < F->pf->ninstrs) ? F->pf->instrs[in->pidx].line : F->pf->line;
    snprintf(buf, size, "%s:%d ('%s' in %s)", R->prog->file, line, text, F->pf->name);
}

static int first_lane(uint32_t m)
{
    return m ? __builtin_ctz(m) : 0;
}

/* ---- frames ---------------------------------------------------------------- */

static void set_current(sim_warp *w)
{
    sim_frame *f = &w->frames[w->nframes - 1];
    w->fn = f->fn;
    w->code = f->fn->code;
    w->r = f->r;
    w->p = f->p;
    w->ready = f->ready;
}

/* Allocate (or reuse) frame storage for function F, zeroed. */
static sim_frame *push_frame(sim_warp *w, const sim_func *F)
{
    if (w->nframes == w->fcap) {
        int n = w->fcap ? w->fcap * 2 : 4;
        w->frames = sim_xrealloc(w->frames, (size_t)n * sizeof *w->frames);
        memset(w->frames + w->fcap, 0, (size_t)(n - w->fcap) * sizeof *w->frames);
        w->fcap = n;
    }
    sim_frame *f = &w->frames[w->nframes++];
    size_t nr = (size_t)F->nslots * SIM_WARP, np = (size_t)F->npreds, nd = (size_t)(F->nslots + F->npreds);
    size_t na = (size_t)F->area_bytes * SIM_WARP;
    if (nr > f->rcap) {
        f->r = sim_xrealloc(f->r, nr * sizeof *f->r);
        f->rcap = nr;
    }
    if (np > f->pcap) {
        f->p = sim_xrealloc(f->p, np * sizeof *f->p);
        f->pcap = np;
    }
    if (nd > f->dcap) {
        f->ready = sim_xrealloc(f->ready, nd * sizeof *f->ready);
        f->dcap = nd;
    }
    if (na > f->acap) {
        f->area = sim_xrealloc(f->area, na);
        f->acap = na;
    }
    /* a function without registers or predicates (an empty kernel) has no
     * storage yet: memset of NULL is undefined even for 0 bytes */
    if (nr)
        memset(f->r, 0, nr * sizeof *f->r);
    if (np)
        memset(f->p, 0, np * sizeof *f->p);
    for (size_t i = 0; i < nd; i++)
        f->ready[i] = 0;
    if (na)
        memset(f->area, 0, na);
    f->fn = F;
    f->ret_mask = 0;
    return f;
}

static void push_simt(sim_warp *w, int pc, int rpc, uint32_t mask)
{
    if (w->sp == w->scap) {
        int n = w->scap ? w->scap * 2 : 16;
        w->stack = sim_xrealloc(w->stack, (size_t)n * sizeof *w->stack);
        w->scap = n;
    }
    w->stack[w->sp].pc = pc;
    w->stack[w->sp].rpc = rpc;
    w->stack[w->sp].mask = mask;
    w->sp++;
}

bool sim_warp_init(sim_run *R, sim_block *b, sim_warp *w, int index)
{
    const sim_prog *P = R->prog;
    /* a warp from the pool keeps its allocations */
    sim_frame *frames = w->frames;
    int fcap = w->fcap, scap = w->scap;
    sim_simt *stack = w->stack;
    uint8_t *local = w->local;
    memset(w, 0, sizeof *w);
    w->frames = frames;
    w->fcap = fcap;
    w->stack = stack;
    w->scap = scap;
    w->local = local;
    w->blk = b;
    w->index = index;
    unsigned first = (unsigned)index * SIM_WARP;
    unsigned n = b->nthreads - first < SIM_WARP ? b->nthreads - first : SIM_WARP;
    w->live = n >= 32 ? 0xffffffffu : ((1u << n) - 1);
    w->state = SIM_W_READY;
    sim_frame *f = push_frame(w, &P->funcs[P->entry]);
    f->local_base = P->module_local;
    f->stack_base = 0;
    push_simt(w, 0, -1, w->live);
    set_current(w);
    if (R->local_size) {
        size_t bytes = (size_t)R->local_size * SIM_WARP;
        if (w->local && bytes <= 128 * 1024) {
            memset(w->local, 0, bytes);
        } else {
            /* large frames: fresh zero pages, committed only where used */
            free(w->local);
            w->local = calloc(bytes, 1);
        }
        if (!w->local)
            return false;
    }
    w->next_issue = b->start;
    w->bar_id = -1;
    return true;
}

void sim_warp_free(sim_warp *w)
{
    for (int i = 0; i < w->fcap; i++) {
        free(w->frames[i].r);
        free(w->frames[i].p);
        free(w->frames[i].ready);
        free(w->frames[i].area);
    }
    free(w->frames);
    free(w->stack);
    free(w->local);
    memset(w, 0, sizeof *w);
}

/* ---- finishing -------------------------------------------------------------- */

static void warp_done(sim_run *R, sim_warp *w, double t)
{
    if (w->state == SIM_W_DONE)
        return;
    w->state = SIM_W_DONE;
    w->live = 0;
    w->finish = sim_dmax(t + 1, w->mem_done);
    w->next_issue = SIM_INF;
    sim_block *b = w->blk;
    b->live_warps--;
    /* barriers counting "all live warps" may now be complete */
    for (int i = 0; i < SIM_MAX_BARRIERS; i++)
        if (b->bars[i].arrived)
            sim_barrier_check(R, b, i);
}

/* Copy `size` bytes of return value / argument between lanes' areas. */
static uint8_t *area_ptr(const sim_run *R, const sim_frame *f, bool kernel_frame, uint64_t off, uint32_t lane,
                         uint32_t size)
{
    if (kernel_frame && off + size <= R->prog->kparam_bytes)
        return R->kparam + off;
    if (off + size > f->fn->area_bytes)
        return NULL;
    return f->area + (size_t)lane * f->fn->area_bytes + off;
}

/* The frame on top returns: copy results to the caller, pop it. */
static void frame_return(sim_run *R, sim_warp *w)
{
    sim_frame *cf = &w->frames[w->nframes - 1];
    sim_frame *caller = &w->frames[w->nframes - 2];
    const sim_func *F = cf->fn;
    const sim_instr *call = &caller->fn->code[cf->call_pc];
    uint32_t lanes = cf->ret_mask & w->live;
    const ptx_function *pf = F->pf;
    for (int i = 0; i < call->ncrets && i < pf->nrets; i++) {
        const sim_opd *d = &call->cargs[call->ncargs + i];
        const ptx_param *rp = &pf->rets[i];
        uint32_t size = (uint32_t)(rp->size > 8 && d->kind == SIM_OPD_REG ? 8 : rp->size);
        SIM_LANES(lanes, l) {
            uint64_t v = 0;
            const uint8_t *src;
            uint8_t tmp[8];
            if (rp->space == PTX_SPACE_REG && rp->reg >= 0) {
                v = cf->r[(size_t)F->slot[rp->reg] * SIM_WARP + l];
                memcpy(tmp, &v, 8);
                src = tmp;
            } else {
                src = cf->area + (size_t)l * F->area_bytes + F->ret_off + rp->offset;
            }
            if (d->kind == SIM_OPD_REG) {
                memcpy(&v, src, size > 8 ? 8 : size);
                caller->r[(size_t)d->slot * SIM_WARP + l] = v;
            } else {
                uint8_t *dst = area_ptr(R, caller, w->nframes - 2 == 0, d->imm, l, (uint32_t)rp->size);
                if (dst)
                    memcpy(dst, src, (size_t)rp->size);
            }
        }
    }
    w->nframes--;
    set_current(w);
}

/* With control.reconvergence "ipdom+merge" in the profile (the default is
 * plain "ipdom"), the pending paths on top of the stack that share one
 * reconvergence point (siblings of a divergence) run lowest pc first, and
 * paths that arrive at the same pc merge.  With nvcc's block layout this reconverges the paths
 * of a branch inside a loop at the loop latch every iteration, as the GPU's
 * compiler-placed convergence points do, instead of only at the loop exit
 * (the immediate post-dominator) when the loop has a `break`.
 *
 * Invariant: within a sibling group the pcs decrease towards the top of the
 * stack.  After a step only the top entry's pc changes, so sift_top moves
 * it down to its place (or merges it) in O(1) in the common case;
 * sort_siblings restores the order after a divergence pushed entries. */
static void sift_top(sim_warp *w, int base)
{
    int i = w->sp - 1;
    while (i - 1 > base && w->stack[i - 1].rpc == w->stack[i].rpc && w->stack[i - 1].pc <= w->stack[i].pc) {
        if (w->stack[i - 1].pc == w->stack[i].pc) {
            w->stack[i - 1].mask |= w->stack[i].mask;
            for (int k = i; k < w->sp - 1; k++)
                w->stack[k] = w->stack[k + 1];
            w->sp--;
            return;
        }
        sim_simt tmp = w->stack[i - 1];
        w->stack[i - 1] = w->stack[i];
        w->stack[i] = tmp;
        i--;
    }
}

static void sort_siblings(sim_warp *w, int base)
{
    int top = w->sp - 1;
    int rpc = w->stack[top].rpc;
    int first = top;
    while (first - 1 > base && w->stack[first - 1].rpc == rpc)
        first--;
    for (int i = first + 1; i <= top; i++) {   /* insertion sort, pc descending */
        sim_simt x = w->stack[i];
        int j = i - 1;
        while (j >= first && w->stack[j].pc < x.pc) {
            w->stack[j + 1] = w->stack[j];
            j--;
        }
        w->stack[j + 1] = x;
    }
    int k = first;
    for (int i = first + 1; i <= top; i++) {   /* merge equal pcs */
        if (w->stack[i].pc == w->stack[k].pc)
            w->stack[k].mask |= w->stack[i].mask;
        else
            w->stack[++k] = w->stack[i];
    }
    w->sp = k + 1;
}

/* Pop finished entries; return from frames whose lanes all returned. */
static void normalize(sim_run *R, sim_warp *w, double t)
{
    for (;;) {
        if (w->sp == 0) {
            warp_done(R, w, t);
            return;
        }
        sim_simt *top = &w->stack[w->sp - 1];
        sim_frame *f = &w->frames[w->nframes - 1];
        bool bottom = w->sp - 1 == f->stack_base;
        if (top->mask != 0 && !(top->pc == top->rpc && !bottom)) {
            if (R->prof->reconverge_merge && w->sp - 2 > f->stack_base && top[-1].rpc == top->rpc &&
                top[-1].pc <= top->pc)
                sift_top(w, f->stack_base);
            return;
        }
        w->sp--;
        if (bottom) {
            if (w->nframes == 1) {
                warp_done(R, w, t);
                return;
            }
            frame_return(R, w);
        }
    }
}

/* Lanes r leave the current function (ret) or the kernel (exit). */
static void retire_lanes(sim_run *R, sim_warp *w, uint32_t r, bool exit_kernel)
{
    if (!r)
        return;
    if (exit_kernel || w->nframes == 1) {
        w->live &= ~r;
        for (int i = 0; i < w->sp; i++)
            w->stack[i].mask &= ~r;
        for (int i = 0; i < w->nframes; i++)
            w->frames[i].ret_mask &= ~r;
        return;
    }
    sim_frame *f = &w->frames[w->nframes - 1];
    f->ret_mask |= r;
    for (int i = f->stack_base; i < w->sp; i++)
        w->stack[i].mask &= ~r;
    (void)R;
}

static bool do_call(sim_run *R, sim_warp *w, const sim_instr *in, int pc, uint32_t m)
{
    const sim_prog *P = R->prog;
    const sim_func *F = &P->funcs[in->callee];
    sim_frame *caller = &w->frames[w->nframes - 1];
    /* every call takes SIM_CALL_BYTES of the thread's stack besides its
     * locals (the return address and saved registers on a GPU), so the
     * stack bounds recursion as on the GPU and the frames stay bounded */
    uint64_t base = caller->local_base + caller->fn->local_bytes + SIM_CALL_BYTES;
    if (base + F->local_bytes > R->local_size) {
        char thr[128], where[256];
        sim_thread_desc(R, w, first_lane(m), thr, sizeof thr);
        sim_where(R, w, in, where, sizeof where);
        sim_stop(R, HARNESS_FAULT, "local stack overflow calling '%s' by thread %s at %s: the stack "
                 "holds %llu bytes per thread (profile control.stack_bytes; each call takes %d besides its locals)",
                 F->pf->name, thr, where,
                 (unsigned long long)R->local_size, SIM_CALL_BYTES);
        return false;
    }
    bool kernel_caller = w->nframes == 1;
    int stack_base = w->sp;
    sim_frame *f = push_frame(w, F);
    caller = &w->frames[w->nframes - 2];
    f->local_base = base;
    f->call_pc = pc;
    f->stack_base = stack_base;
    const ptx_function *pf = F->pf;
    for (int i = 0; i < in->ncargs && i < pf->nparams; i++) {
        const sim_opd *a = &in->cargs[i];
        const ptx_param *pp = &pf->params[i];
        uint32_t size = (uint32_t)pp->size;
        SIM_LANES(m, l) {
            uint8_t tmp[8];
            const uint8_t *src;
            uint64_t v = 0;
            if (a->kind == SIM_OPD_IMM && a->sreg) {
                src = area_ptr(R, caller, kernel_caller, a->imm, l, size);
                if (!src)
                    continue;
            } else {
                v = a->kind == SIM_OPD_REG ? caller->r[(size_t)a->slot * SIM_WARP + l] : a->imm;
                memcpy(tmp, &v, 8);
                src = tmp;
                if (size > 8)
                    size = 8;
            }
            if (pp->space == PTX_SPACE_REG && pp->reg >= 0) {
                uint64_t x = 0;
                memcpy(&x, src, size > 8 ? 8 : size);
                f->r[(size_t)F->slot[pp->reg] * SIM_WARP + l] = x;
            } else if (pp->offset + size <= F->area_bytes) {
                memcpy(f->area + (size_t)l * F->area_bytes + pp->offset, src, size);
            }
        }
    }
    w->stack[w->sp - 1].pc = pc + 1;
    push_simt(w, 0, -1, m);
    set_current(w);
    return true;
}

/* ---- branches ----------------------------------------------------------------- */

static void trace_branch(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t active, uint32_t taken)
{
    const sim_prog *P = R->prog;
    const ptx_instr *pi = &w->fn->pf->instrs[in->pidx];
    uint64_t base = w->blk->linear * R->bthreads + (uint64_t)w->index * SIM_WARP;
    SIM_LANES(active, l)
        P->on_branch(P->branch_ctx, base + l, w->fn->index, pi->block, (taken >> l) & 1);
}

static void diverge(sim_warp *w, int target, int fall, int rpc, uint32_t t_mask, uint32_t n_mask, bool merge)
{
    sim_simt *top = &w->stack[w->sp - 1];
    if (top->rpc == rpc) {
        top->pc = target;
        top->mask = t_mask;
        push_simt(w, fall, rpc, n_mask);
    } else {
        top->pc = rpc;
        push_simt(w, target, rpc, t_mask);
        push_simt(w, fall, rpc, n_mask);
    }
    if (merge)
        sort_siblings(w, w->frames[w->nframes - 1].stack_base);
}

/* brx.idx: every lane jumps to btargets[index]; distinct targets diverge. */
static bool do_brx(sim_run *R, sim_warp *w, const sim_instr *in, int pc, uint32_t active, uint32_t m,
                   double *extra)
{
    const ptx_function *pf = w->fn->pf;
    const ptx_btargets *bt = &pf->btargets[in->btargets];
    sim_src a = sim_operand(R, w, in, 0);
    int targets[SIM_WARP];
    uint32_t masks[SIM_WARP];
    int nt = 0;
    if (active & ~m) {            /* lanes whose guard is false fall through */
        targets[nt] = pc + 1;
        masks[nt++] = active & ~m;
    }
    SIM_LANES(m, l) {
        uint64_t idx = (uint32_t)SIM_V(a, l);
        if (idx >= (uint64_t)bt->nlabels) {
            char thr[128], where[256];
            sim_thread_desc(R, w, (int)l, thr, sizeof thr);
            sim_where(R, w, in, where, sizeof where);
            sim_stop(R, HARNESS_FAULT, "brx.idx index %llu out of range (%d targets) by thread %s at %s",
                     (unsigned long long)idx, bt->nlabels, thr, where);
            return false;
        }
        int tgt = pf->labels[bt->labels[idx]].instr;
        int k;
        for (k = 0; k < nt; k++)
            if (targets[k] == tgt)
                break;
        if (k == nt) {
            targets[nt] = tgt;
            masks[nt++] = 0;
        }
        masks[k] |= 1u << l;
    }
    if (nt == 0)
        return true;
    if (nt == 1) {
        w->stack[w->sp - 1].pc = targets[0];
        return true;
    }
    sim_simt *top = &w->stack[w->sp - 1];
    if (top->rpc == in->rpc) {
        top->pc = targets[0];
        top->mask = masks[0];
        for (int k = 1; k < nt; k++)
            push_simt(w, targets[k], in->rpc, masks[k]);
    } else {
        top->pc = in->rpc;
        for (int k = nt - 1; k >= 0; k--)
            push_simt(w, targets[k], in->rpc, masks[k]);
    }
    if (R->prof->reconverge_merge)
        sort_siblings(w, w->frames[w->nframes - 1].stack_base);
    *extra = R->prof->divergence_cycles;
    return true;
}

/* ---- warp-wide operations ---------------------------------------------------- */

static void do_shfl(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    const sim_opd *ao = &in->src[0];
    sim_src a = sim_operand(R, w, in, 0), b = sim_operand(R, w, in, 1), c = sim_operand(R, w, in, 2);
    uint64_t *stage = R->tmp[0];
    uint32_t pv = 0;
    SIM_LANES(m, l) {
        bool ok;
        int j = ptx_shfl_source((ptx_shfl_mode)in->mode, (int)l, (uint32_t)SIM_V(b, l), (uint32_t)SIM_V(c, l), &ok);
        stage[l] = ao->kind == SIM_OPD_REG ? w->r[(size_t)ao->slot * SIM_WARP + (size_t)j] : SIM_V(a, j);
        if (ok)
            pv |= 1u << l;
    }
    uint64_t *d = sim_dst(R, w, in, 0);
    SIM_LANES(m, l) d[l] = stage[l];
    sim_write_pred(w, in->dstp, m, pv);
}

static uint32_t member_mask(sim_run *R, sim_warp *w, const sim_instr *in, int i, uint32_t m)
{
    if (!(in->flags & PTX_F_SYNC) || i >= in->nsrc)
        return m;
    sim_src s = sim_operand(R, w, in, i);
    return m & (uint32_t)SIM_V(s, first_lane(m));
}

static void do_vote(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    uint32_t part = member_mask(R, w, in, 1, m);
    uint32_t a = sim_pred_operand(w, in, 0) & part;
    if (in->mode == PTX_VOTE_BALLOT) {
        uint64_t *d = sim_dst(R, w, in, 0);
        SIM_LANES(m, l) d[l] = a;
        return;
    }
    bool r;
    switch (in->mode) {
    case PTX_VOTE_ALL: r = a == part; break;
    case PTX_VOTE_ANY: r = a != 0; break;
    default: r = a == 0 || a == part; break;   /* uni */
    }
    sim_write_pred(w, in->dst[0], m, r ? 0xffffffffu : 0);
}

static void do_match(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    uint32_t part = member_mask(R, w, in, 1, m);
    sim_src a = sim_operand(R, w, in, 0);
    bool wide = ptx_type_bits((ptx_type)in->ty) == 64;
    uint64_t *d = sim_dst(R, w, in, 0);
    uint64_t *stage = R->tmp[0];
    bool all_eq = true;
    uint64_t v0 = 0;
    bool first = true;
    SIM_LANES(part, l) {
        uint64_t v = wide ? SIM_V(a, l) : (uint32_t)SIM_V(a, l);
        if (first) {
            v0 = v;
            first = false;
        } else if (v != v0) {
            all_eq = false;
        }
    }
    SIM_LANES(m, l) {
        uint64_t v = wide ? SIM_V(a, l) : (uint32_t)SIM_V(a, l);
        uint32_t mk = 0;
        if (in->mode == PTX_MATCH_ANY) {
            for (uint32_t k = 0; k < SIM_WARP; k++)
                if ((part >> k) & 1) {
                    uint64_t u = wide ? SIM_V(a, k) : (uint32_t)SIM_V(a, k);
                    if (u == v)
                        mk |= 1u << k;
                }
        } else {
            mk = all_eq ? part : 0;
        }
        stage[l] = mk;
    }
    SIM_LANES(m, l) d[l] = stage[l];
    sim_write_pred(w, in->dstp, m, all_eq ? 0xffffffffu : 0);
}

static void do_redux(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    uint32_t part = member_mask(R, w, in, 1, m);
    sim_src a = sim_operand(R, w, in, 0);
    bool sg = ptx_type_is_signed((ptx_type)in->ty);
    uint64_t acc = 0;
    bool first = true;
    SIM_LANES(part, l) {
        uint32_t v = (uint32_t)SIM_V(a, l);
        if (first) {
            acc = v;
            first = false;
            continue;
        }
        switch (in->aop) {
        case PTX_AOP_ADD: acc = (uint32_t)(acc + v); break;
        case PTX_AOP_AND: acc &= v; break;
        case PTX_AOP_OR: acc |= v; break;
        case PTX_AOP_XOR: acc ^= v; break;
        case PTX_AOP_MIN:
            acc = sg ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc);
            break;
        case PTX_AOP_MAX:
            acc = sg ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc);
            break;
        default: break;
        }
    }
    uint64_t *d = sim_dst(R, w, in, 0);
    SIM_LANES(m, l) d[l] = acc;
}

static void do_elect(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    sim_src s = sim_operand(R, w, in, 0);
    uint32_t part = m & (uint32_t)SIM_V(s, first_lane(m));
    uint32_t leader = (uint32_t)first_lane(part);
    uint64_t *d = sim_dst(R, w, in, 0);
    SIM_LANES(m, l) d[l] = leader;
    sim_write_pred(w, in->dstp, m, part ? (1u << leader) : 0);
}

/* ---- barriers ---------------------------------------------------------------- */

void sim_barrier_check(sim_run *R, sim_block *b, int id)
{
    sim_barrier *bar = &b->bars[id];
    if (!bar->arrived)
        return;
    int expected = bar->expected ? bar->expected : b->live_warps;
    if (bar->arrived < expected)
        return;
    double rel = bar->tmax + R->prof->cls[SIM_C_BAR].latency;
    for (int i = 0; i < b->nwarps; i++) {
        sim_warp *w = &b->warps[i];
        if (w->state != SIM_W_BARRIER || w->bar_id != id)
            continue;
        w->state = SIM_W_READY;
        w->bar_id = -1;
        if (bar->aop && w->bar_dst >= 0) {
            uint32_t m = w->bar_mask;
            if (w->bar_dst_pred) {
                bool r = bar->aop == PTX_AOP_AND ? bar->all : bar->any != 0;
                sim_write_pred(w, w->bar_dst, m, r ? 0xffffffffu : 0);
            } else {
                uint64_t *d = &w->r[(size_t)w->bar_dst * SIM_WARP];
                SIM_LANES(m, l) d[l] = bar->popc;
            }
            w->ready[w->bar_dst + (w->bar_dst_pred ? w->fn->nslots : 0)] = rel;
        }
        sim_warp_ready_next(R, w, rel);
    }
    memset(bar, 0, sizeof *bar);
    sim_sm *sm = &R->sms[b->sm];
    for (int k = 0; k < R->prof->schedulers; k++)
        sm->sched[k].dirty = true;
}

static bool do_bar(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m, double t)
{
    bool red = in->mode == PTX_BAR_RED;
    int fl = first_lane(m);
    int id = 0, count = 0;
    if (in->nsrc >= 1) {
        sim_src a = sim_operand(R, w, in, 0);
        id = (int)(uint32_t)SIM_V(a, fl);
    }
    int ncount = red ? in->nsrc - 2 : in->nsrc - 1;
    if (ncount >= 1) {
        sim_src b = sim_operand(R, w, in, 1);
        count = (int)(uint32_t)SIM_V(b, fl);
    }
    char where[256], thr[128];
    if (id < 0 || id >= SIM_MAX_BARRIERS) {
        sim_where(R, w, in, where, sizeof where);
        sim_stop(R, HARNESS_FAULT, "barrier id %d out of range [0, 15] at %s", id, where);
        return false;
    }
    if (in->mode != PTX_BAR_ARRIVE && m != w->live) {
        sim_where(R, w, in, where, sizeof where);
        sim_thread_desc(R, w, fl, thr, sizeof thr);
        sim_stop(R, HARNESS_FAULT, "barrier under divergence at %s: warp %d of block (%u,%u,%u) reaches "
                 "barrier %d with lanes 0x%08x while its lanes 0x%08x are elsewhere (first thread %s)",
                 where, w->index, w->blk->ctaid[0], w->blk->ctaid[1], w->blk->ctaid[2], id, m,
                 w->live & ~m, thr);
        return false;
    }
    sim_block *b = w->blk;
    sim_barrier *bar = &b->bars[id];
    if (bar->arrived == 0) {
        bar->expected = count > 0 ? (count + SIM_WARP - 1) / SIM_WARP : 0;
        bar->tmax = t;
        bar->aop = red ? in->aop : 0;
        bar->popc = 0;
        bar->any = 0;
        bar->all = true;
    }
    bar->arrived++;
    bar->tmax = sim_dmax(bar->tmax, t);
    if (red) {
        uint32_t c = sim_pred_operand(w, in, in->nsrc - 1) & m;
        bar->popc += (uint32_t)sim_popc(c);
        bar->any |= c;
        if (c != m)
            bar->all = false;
        w->bar_dst = in->dst[0];
        w->bar_dst_pred = in->dst_pred[0];
        w->bar_mask = m;
    } else {
        w->bar_dst = -1;
    }
    if (in->mode != PTX_BAR_ARRIVE) {
        w->state = SIM_W_BARRIER;
        w->bar_id = id;
        w->next_issue = SIM_INF;
    }
    sim_barrier_check(R, b, id);
    return true;
}

/* ---- the step ------------------------------------------------------------------ */

void sim_warp_ready_next(sim_run *R, sim_warp *w, double tmin)
{
    (void)R;
    if (w->state != SIM_W_READY || w->sp == 0) {
        if (w->state != SIM_W_READY)
            w->next_issue = SIM_INF;
        return;
    }
    const sim_instr *nx = &w->code[w->stack[w->sp - 1].pc];
    double r = tmin;
    for (int i = 0; i < nx->ndeps; i++)
        r = sim_dmax(r, w->ready[nx->deps[i]]);
    w->next_issue = r;
}

static bool unsupported(sim_run *R, sim_warp *w, const sim_instr *in)
{
    char text[128];
    const sim_func *F = w->fn;
    sim_instr_text(R->prog, F, in, text, sizeof text);
    int line = in->pidx >= 0 ? F->pf->instrs[in->pidx].line : F->pf->line;
    const ptx_instr *pi = in->pidx >= 0 ? &F->pf->instrs[in->pidx] : NULL;
    if (pi && pi->op == PTX_OP_CALL && pi->callee >= 0 && !R->prog->m->funcs[pi->callee].has_body)
        sim_stop(R, HARNESS_UNSUPPORTED, "unsupported PTX instruction '%s' at %s:%d (a call to the external "
                 "function '%s')", text, R->prog->file, line, R->prog->m->funcs[pi->callee].name);
    else if (pi && pi->op == PTX_OP_CALL && pi->callee < 0)
        sim_stop(R, HARNESS_UNSUPPORTED, "unsupported PTX instruction '%s' at %s:%d (an indirect call)", text,
                 R->prog->file, line);
    else
        sim_stop(R, HARNESS_UNSUPPORTED, "unsupported PTX instruction '%s' at %s:%d", text, R->prog->file, line);
    return false;
}

static bool step_limit(sim_run *R, sim_warp *w, const sim_instr *in)
{
    char where[256];
    sim_where(R, w, in, where, sizeof where);
    sim_stop(R, HARNESS_TIMEOUT, "step limit of %llu warp instructions reached (a runaway loop?): warp %d "
             "of block (%u,%u,%u) was at %s", (unsigned long long)R->step_limit, w->index,
             w->blk->ctaid[0], w->blk->ctaid[1], w->blk->ctaid[2], where);
    return false;
}

bool sim_step(sim_run *R, sim_sm *sm, sim_warp *w)
{
    sim_simt *top = &w->stack[w->sp - 1];
    int pc = top->pc;
    const sim_instr *in = &w->code[pc];
    uint32_t active = top->mask;
    uint32_t m = active;
    if (in->guard >= 0) {
        uint32_t g = w->p[in->guard];
        m &= in->guard_neg ? ~g : g;
    }
    if (++R->warp_instr > R->step_limit)
        return step_limit(R, w, in);
    R->lane_instr += (uint64_t)sim_popc(active);
    const sim_profile *P = R->prof;
    double t = sim_issue(R, sm, w, in);
    double done = t + P->cls[in->cls].latency;
    double tmin = t + 1;
    bool waits = false;
    int op = in->op;
    switch (op) {
    case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_ST: case PTX_OP_ATOM: case PTX_OP_RED:
    case PTX_OP_CVTA: case PTX_OP_ISSPACEP: case PTX_OP_CP_ASYNC:
        if (m && !sim_exec_mem(R, sm, w, in, m, t, &done))
            return false;
        if (op == PTX_OP_ST || op == PTX_OP_RED || op == PTX_OP_ATOM || op == PTX_OP_CP_ASYNC)
            w->mem_done = sim_dmax(w->mem_done, done);
        if (op == PTX_OP_CP_ASYNC) {
            if (in->mode == PTX_CP_COPY)
                w->async_done = sim_dmax(w->async_done, done);
            else if (in->mode != PTX_CP_COMMIT_GROUP)
                tmin = sim_dmax(tmin, w->async_done);
        }
        top->pc = pc + 1;
        break;
    case PTX_OP_BRA:
        if (R->prog->on_branch && in->guard >= 0 && active)
            trace_branch(R, w, in, active, m);
        if (in->guard < 0 || m == active) {
            top->pc = in->target;
        } else if (m == 0) {
            top->pc = pc + 1;
        } else {
            diverge(w, in->target, pc + 1, in->rpc, m, active & ~m, P->reconverge_merge);
            tmin += P->divergence_cycles;
        }
        tmin = sim_dmax(tmin, t + P->cls[SIM_C_CTRL].latency);
        break;
    case PTX_OP_BRX: {
        double extra = 0;
        if (!do_brx(R, w, in, pc, active, m, &extra))
            return false;
        tmin = sim_dmax(tmin + extra, t + P->cls[SIM_C_CTRL].latency);
        break;
    }
    case PTX_OP_CALL:
        if (!m) {
            top->pc = pc + 1;
            break;
        }
        if (!do_call(R, w, in, pc, m))
            return false;
        tmin = sim_dmax(tmin, t + P->cls[SIM_C_CTRL].latency);
        break;
    case PTX_OP_RET:
        top->pc = pc + 1;
        retire_lanes(R, w, m, false);
        tmin = sim_dmax(tmin, t + P->cls[SIM_C_CTRL].latency);
        break;
    case PTX_OP_EXIT:
        top->pc = pc + 1;
        retire_lanes(R, w, m, true);
        break;
    case SIM_OP_END:
        retire_lanes(R, w, active, w->nframes == 1);
        break;
    case PTX_OP_BAR:
        top->pc = pc + 1;
        if (m) {
            normalize(R, w, t);
            if (!do_bar(R, w, in, m, t))
                return false;
            /* a waiting warp is released by sim_barrier_check, which sets
             * its next issue time */
            waits = in->mode != PTX_BAR_ARRIVE;
        }
        break;
    case PTX_OP_SHFL:
        if (m)
            do_shfl(R, w, in, m);
        top->pc = pc + 1;
        break;
    case PTX_OP_VOTE:
        if (m)
            do_vote(R, w, in, m);
        top->pc = pc + 1;
        break;
    case PTX_OP_MATCH:
        if (m)
            do_match(R, w, in, m);
        top->pc = pc + 1;
        break;
    case PTX_OP_REDUX:
        if (m)
            do_redux(R, w, in, m);
        top->pc = pc + 1;
        break;
    case PTX_OP_ELECT:
        if (m)
            do_elect(R, w, in, m);
        top->pc = pc + 1;
        break;
    case PTX_OP_ACTIVEMASK: {
        uint64_t *d = sim_dst(R, w, in, 0);
        SIM_LANES(m, l) d[l] = m;
        top->pc = pc + 1;
        break;
    }
    case PTX_OP_TRAP:
        if (m) {
            char thr[128], where[256];
            sim_thread_desc(R, w, first_lane(m), thr, sizeof thr);
            sim_where(R, w, in, where, sizeof where);
            sim_stop(R, HARNESS_FAULT, "trap executed by thread %s at %s", thr, where);
            return false;
        }
        top->pc = pc + 1;
        break;
    case PTX_OP_NANOSLEEP:
        if (m) {
            sim_src a = sim_operand(R, w, in, 0);
            double ns = (double)(uint32_t)SIM_V(a, first_lane(m));
            if (ns > 1e6)
                ns = 1e6;
            tmin = sim_dmax(tmin, t + ns * P->clock_mhz / 1000.0);
        }
        top->pc = pc + 1;
        break;
    case SIM_OP_NOP:
        top->pc = pc + 1;
        break;
    case SIM_OP_ASSERTFAIL:
        if (m) {
            char thr[128], where[256];
            sim_thread_desc(R, w, first_lane(m), thr, sizeof thr);
            sim_where(R, w, in, where, sizeof where);
            sim_stop(R, HARNESS_FAULT, "assertion failed (__assertfail) in thread %s at %s", thr, where);
            return false;
        }
        top->pc = pc + 1;
        break;
    case SIM_OP_VPRINTF:
        /* printf: nothing printed; the int result (if asked for) is 0 */
        if (m && in->ncrets >= 1) {
            const sim_opd *d = &in->cargs[in->ncargs];
            sim_frame *f = &w->frames[w->nframes - 1];
            SIM_LANES(m, l) {
                if (d->kind == SIM_OPD_REG) {
                    w->r[(size_t)d->slot * SIM_WARP + l] = 0;
                } else {
                    uint8_t *p = area_ptr(R, f, w->nframes == 1, d->imm, l, 4);
                    if (p)
                        memset(p, 0, 4);
                }
            }
        }
        top->pc = pc + 1;
        break;
    case SIM_OP_UNSUPPORTED:
        if (m)
            return unsupported(R, w, in);
        top->pc = pc + 1;
        break;
    default:
        if (m && !sim_exec_alu(R, w, in, m))
            return unsupported(R, w, in);
        top->pc = pc + 1;
        break;
    }
    if (!waits)
        for (int i = 0; i < in->nouts; i++)
            w->ready[in->outs[i]] = done;
    if (op == PTX_OP_LD || op == PTX_OP_LDU)
        w->mem_done = sim_dmax(w->mem_done, done);
    normalize(R, w, t);
    if (w->state == SIM_W_READY && !waits)
        sim_warp_ready_next(R, w, tmin);
    return R->status == HARNESS_OK;
}
