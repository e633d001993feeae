/*
 * simt.c — a warp's control state: the SIMT reconvergence stack, call
 * frames, calls and returns, divergent branches (bra, brx.idx), retiring
 * lanes.
 *
 * SIMT stack: the reconvergence model of ptx/simt.c (immediate
 * post-dominators; the fall-through side of a branch first; optionally,
 * profile control.reconvergence "ipdom+merge", siblings merge where they
 * meet), which the symbolic executor's warp-instruction count shares.
 * Here an entry is done when its pc reaches its rpc or its mask empties.
 *
 * Calls push a frame (registers, predicates, scoreboard, per-lane param
 * area, local frame) and a stack entry with no reconvergence point; lanes
 * that execute `ret` leave every entry of the frame, and when the frame's
 * bottom entry is empty the frame returns to the caller with the lanes
 * that returned.  `exit` (and `ret` in the kernel) retires lanes for good.
 */
#include "harness/sim/sim.h"

#include <stdlib.h>
#include <string.h>

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
        w->frames = wh_xrealloc(w->frames, (size_t)n * sizeof *w->frames);
        memset(w->frames + w->fcap, 0, (size_t)(n - w->fcap) * sizeof *w->frames);
        w->fcap = n;
    }
    sim_frame *f = &w->frames[w->nframes++];
    size_t nr = (size_t)F->nslots * SIM_WARP, np = (size_t)F->npreds, nd = (size_t)(F->nslots + F->npreds);
    size_t na = (size_t)F->area_bytes * SIM_WARP;
    if (nr > f->rcap) {
        f->r = wh_xrealloc(f->r, nr * sizeof *f->r);
        f->rcap = nr;
    }
    if (np > f->pcap) {
        f->p = wh_xrealloc(f->p, np * sizeof *f->p);
        f->pcap = np;
    }
    if (nd > f->dcap) {
        f->ready = wh_xrealloc(f->ready, nd * sizeof *f->ready);
        f->dcap = nd;
    }
    if (na > f->acap) {
        f->area = wh_xrealloc(f->area, na);
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

bool sim_warp_init(sim_run *R, sim_block *b, sim_warp *w, int index)
{
    const sim_prog *P = R->prog;
    /* a warp from the pool keeps its allocations */
    sim_frame *frames = w->frames;
    int fcap = w->fcap, scap = w->simt.cap;
    ptx_simt_entry *stack = w->simt.e;
    uint8_t *local = w->local;
    memset(w, 0, sizeof *w);
    w->frames = frames;
    w->fcap = fcap;
    w->simt.e = stack;
    w->simt.cap = scap;
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
    ptx_simt_push(&w->simt, 0, -1, w->live);
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
        if (!w->local) {
            sim_stop(R, HARNESS_UNSUPPORTED, "out of memory: the sim cannot allocate %zu bytes of local memory "
                     "for warp %d of block (%u,%u,%u) (%llu bytes per thread)", bytes, index, b->ctaid[0],
                     b->ctaid[1], b->ctaid[2], (unsigned long long)R->local_size);
            return false;
        }
    }
    w->next_issue = b->start;
    w->bar_id = -1;
    w->cluster_arrivals = 0;
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
    free(w->simt.e);
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
    sim_cluster_barrier_check(R, b);
}

/* Copy `size` bytes of return value / argument between lanes' areas. */
uint8_t *sim_area_ptr(const sim_run *R, const sim_frame *f, bool kernel_frame, uint64_t off, uint32_t lane,
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
                uint8_t *dst = sim_area_ptr(R, caller, w->nframes - 2 == 0, d->imm, l, (uint32_t)rp->size);
                if (dst)
                    memcpy(dst, src, (size_t)rp->size);
            }
        }
    }
    w->nframes--;
    set_current(w);
}

/* Pop finished entries; return from frames whose lanes all returned. */
void sim_simt_normalize(sim_run *R, sim_warp *w, double t)
{
    for (;;) {
        if (w->simt.n == 0) {
            warp_done(R, w, t);
            return;
        }
        ptx_simt_entry *top = &w->simt.e[w->simt.n - 1];
        sim_frame *f = &w->frames[w->nframes - 1];
        bool bottom = w->simt.n - 1 == f->stack_base;
        if (top->mask != 0 && !(top->pc == top->rpc && !bottom)) {
            if (R->prof->reconverge_merge && w->simt.n - 2 > f->stack_base && top[-1].rpc == top->rpc &&
                top[-1].pc <= top->pc)
                ptx_simt_sift_top(&w->simt, f->stack_base);
            return;
        }
        w->simt.n--;
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
void sim_retire_lanes(sim_run *R, sim_warp *w, uint32_t r, bool exit_kernel)
{
    if (!r)
        return;
    if (exit_kernel || w->nframes == 1) {
        w->live &= ~r;
        for (int i = 0; i < w->simt.n; i++)
            w->simt.e[i].mask &= ~r;
        for (int i = 0; i < w->nframes; i++)
            w->frames[i].ret_mask &= ~r;
        return;
    }
    sim_frame *f = &w->frames[w->nframes - 1];
    f->ret_mask |= r;
    for (int i = f->stack_base; i < w->simt.n; i++)
        w->simt.e[i].mask &= ~r;
    (void)R;
}

int sim_indirect_callee(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m, uint32_t *group)
{
    const sim_prog *P = R->prog;
    sim_src a = sim_operand(R, w, in, 0);
    int first = sim_first_lane(m);
    uint64_t target = SIM_V(a, (uint32_t)first);
    *group = 0;
    SIM_LANES(m, l)
        if (SIM_V(a, l) == target)
            *group |= 1u << l;
    uint64_t k = (target - PTX_ADDR_FUNC) / PTX_ADDR_FUNC_STRIDE;
    bool is_function = target >= PTX_ADDR_FUNC && (target - PTX_ADDR_FUNC) % PTX_ADDR_FUNC_STRIDE == 0 &&
                       k < (uint64_t)P->m->nfuncs && P->address_taken[k];
    const ptx_function *cf = is_function ? &P->m->funcs[k] : NULL;
    if (cf && cf->nparams == in->ncargs && cf->nrets == in->ncrets)
        return (int)k;
    char thr[128], where[256];
    sim_thread_desc(R, w, first, thr, sizeof thr);
    sim_where(R, w, in, where, sizeof where);
    if (!cf)
        sim_stop(R, HARNESS_FAULT, "indirect call to 0x%llx, which is no function of the module, by thread %s at %s",
                 (unsigned long long)target, thr, where);
    else
        sim_stop(R, HARNESS_FAULT, "indirect call of '%s' with %d argument(s) and %d result(s); it takes %d and "
                 "returns %d (thread %s at %s)", cf->name, in->ncargs, in->ncrets, cf->nparams, cf->nrets, thr,
                 where);
    return -1;
}

bool sim_call(sim_run *R, sim_warp *w, const sim_instr *in, int pc, uint32_t m, int callee)
{
    const sim_prog *P = R->prog;
    const sim_func *F = &P->funcs[callee];
    sim_frame *caller = &w->frames[w->nframes - 1];
    /* every call takes SIM_CALL_BYTES of the thread's stack besides its
     * locals (the return address and saved registers on a GPU), so the
     * stack bounds recursion as on the GPU and the frames stay bounded */
    uint64_t base = caller->local_base + caller->fn->local_bytes + SIM_CALL_BYTES;
    if (base + F->local_bytes > R->local_size) {
        char thr[128], where[256];
        sim_thread_desc(R, w, sim_first_lane(m), thr, sizeof thr);
        sim_where(R, w, in, where, sizeof where);
        sim_stop(R, HARNESS_FAULT, "local stack overflow calling '%s' by thread %s at %s: the stack "
                 "holds %llu bytes per thread (profile control.stack_bytes; each call takes %d besides its locals)",
                 F->pf->name, thr, where,
                 (unsigned long long)R->local_size, SIM_CALL_BYTES);
        return false;
    }
    bool kernel_caller = w->nframes == 1;
    int stack_base = w->simt.n;
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
                src = sim_area_ptr(R, caller, kernel_caller, a->imm, l, size);
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
    w->simt.e[w->simt.n - 1].pc = pc + 1;
    ptx_simt_push(&w->simt, 0, -1, m);
    set_current(w);
    return true;
}

/* ---- branches ----------------------------------------------------------------- */

void sim_trace_branch(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t active, uint32_t taken)
{
    const sim_prog *P = R->prog;
    const ptx_instr *pi = &w->fn->pf->instrs[in->pidx];
    uint64_t base = w->blk->linear * R->bthreads + (uint64_t)w->index * SIM_WARP;
    SIM_LANES(active, l)
        P->on_branch(P->branch_ctx, base + l, w->fn->index, pi->block, (taken >> l) & 1);
}

void sim_diverge(sim_warp *w, int target, int fall, int rpc, uint32_t t_mask, uint32_t n_mask, bool merge)
{
    const int pcs[2] = { fall, target };            /* the fall-through side runs first */
    const uint32_t masks[2] = { n_mask, t_mask };
    ptx_simt_split(&w->simt, rpc, pcs, masks, 2);
    if (merge)
        ptx_simt_merge_siblings(&w->simt, w->frames[w->nframes - 1].stack_base);
}

/* brx.idx: every lane jumps to btargets[index]; distinct targets diverge. */
bool sim_brx(sim_run *R, sim_warp *w, const sim_instr *in, int pc, uint32_t active, uint32_t m,
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
        w->simt.e[w->simt.n - 1].pc = targets[0];
        return true;
    }
    ptx_simt_split(&w->simt, in->rpc, targets, masks, nt);
    if (R->prof->reconverge_merge)
        ptx_simt_merge_siblings(&w->simt, w->frames[w->nframes - 1].stack_base);
    *extra = R->prof->divergence_cycles;
    return true;
}

