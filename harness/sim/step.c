/*
 * step.c — executing one warp instruction: the dispatcher that sends it to
 * its semantics (exec.c, float.c, mem.c, collective.c, simt.c), books its
 * issue and result times (timing.c), and the messages that stop a run.
 * A run with instrumentation (R->ex) steps through explain.c instead.
 */
#include "harness/sim/sim.h"

#include <stdarg.h>
#include <stdio.h>
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
    bool known = in->pidx >= 0 && in->pidx < F->pf->ninstrs;
    int line = known ? F->pf->instrs[in->pidx].line : F->pf->line;
    char src[600];
    bool has_src = known && ptx_source_of(R->prog->m, &F->pf->instrs[in->pidx], src, sizeof src);
    snprintf(buf, size, "%s:%d ('%s' in %s%s%s)", R->prog->file, line, text, F->pf->name,
             has_src ? "; CUDA source " : "", has_src ? src : "");
}

/* ---- the step ------------------------------------------------------------------ */

static inline void ready_next(sim_warp *w, double tmin)
{
    w->resume = tmin;
    if (w->state != SIM_W_READY || w->simt.n == 0) {
        if (w->state != SIM_W_READY)
            w->next_issue = SIM_INF;
        return;
    }
    const sim_instr *nx = &w->code[w->simt.e[w->simt.n - 1].pc];
    double r = tmin;
    for (int i = 0; i < nx->ndeps; i++)
        r = sim_dmax(r, w->ready[nx->deps[i]]);
    w->next_issue = r;
}

void sim_warp_ready_next(sim_run *R, sim_warp *w, double tmin)
{
    (void)R;
    ready_next(w, tmin);
}

/* Whether sim_simt_normalize would leave the stack as it is: its top
 * entry has lanes, is not at its reconvergence point and has no sibling
 * to merge with (the common case, tested without the frame). */
static inline bool simt_settled(const sim_run *R, const sim_warp *w)
{
    const ptx_simt_entry *top = &w->simt.e[w->simt.n - 1];
    return w->simt.n > 0 && top->mask != 0 && top->pc != top->rpc &&
           (w->simt.n == 1 || !R->prof->reconverge_merge || top[-1].rpc != top->rpc);
}

static bool unsupported(sim_run *R, sim_warp *w, const sim_instr *in)
{
    char text[128];
    const sim_func *F = w->fn;
    sim_instr_text(R->prog, F, in, text, sizeof text);
    int line = in->pidx >= 0 ? F->pf->instrs[in->pidx].line : F->pf->line;
    const ptx_instr *pi = in->pidx >= 0 ? &F->pf->instrs[in->pidx] : NULL;
    char loc[600], src[640] = "";
    if (pi && ptx_source_of(R->prog->m, pi, loc, sizeof loc))
        snprintf(src, sizeof src, " (CUDA source %s)", loc);
    if (pi && pi->op == PTX_OP_CALL && pi->callee >= 0 && !R->prog->m->funcs[pi->callee].has_body)
        sim_stop(R, HARNESS_UNSUPPORTED, "unsupported PTX instruction '%s' at %s:%d%s (a call to the external "
                 "function '%s')", text, R->prog->file, line, src, R->prog->m->funcs[pi->callee].name);
    else
        sim_stop(R, HARNESS_UNSUPPORTED, "unsupported PTX instruction '%s' at %s:%d%s", text, R->prog->file, line,
                 src);
    return false;
}

/* The value of call argument or result operand d for lane l: a register,
 * an immediate, or the bytes of a .param variable of the caller's area. */
static uint8_t *call_operand(const sim_run *R, sim_warp *w, const sim_opd *d, uint32_t l, uint32_t size)
{
    if (d->kind == SIM_OPD_REG)
        return (uint8_t *)&w->r[(size_t)d->slot * SIM_WARP + l];
    if (d->kind == SIM_OPD_IMM && d->sreg)
        return sim_area_ptr(R, &w->frames[w->nframes - 1], w->nframes == 1, d->imm, l, size);
    return NULL;
}

/* malloc(size) for each active lane, in lane order: 16-byte aligned blocks
 * of the device heap handed out in turn and never reused (free does
 * nothing); NULL once the heap (SIM_HEAP_BYTES) is spent, as on a GPU. */
static void device_malloc(sim_run *R, sim_warp *w, const sim_instr *in, uint32_t m)
{
    const sim_prog *P = R->prog;
    SIM_LANES(m, l) {
        uint64_t size = 0, ptr = 0;
        if (in->ncargs >= 1) {
            const sim_opd *a = &in->cargs[0];
            const uint8_t *v = call_operand(R, w, a, l, 8);
            if (v)
                memcpy(&size, v, 8);
            else if (a->kind == SIM_OPD_IMM)
                size = a->imm;
        }
        uint64_t at = (R->heap_used + 15) / 16 * 16;
        if (P->heap_region >= 0 && size <= SIM_HEAP_BYTES && at <= SIM_HEAP_BYTES - size) {
            ptr = P->regions[P->heap_region].base + at;
            R->heap_used = at + size;
        }
        uint8_t *ret = in->ncrets >= 1 ? call_operand(R, w, &in->cargs[in->ncargs], l, 8) : NULL;
        if (ret)
            memcpy(ret, &ptr, 8);
    }
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

/* Inlined into both entry points, so that an uninstrumented step pays one
 * test of R->ex (besides the plain stores of w->resume and R->acc that the
 * instrumentation reads). */
static inline __attribute__((always_inline)) bool step(sim_run *R, sim_sm *sm, sim_warp *w)
{
    ptx_simt_entry *top = &w->simt.e[w->simt.n - 1];
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
    case PTX_OP_CVTA: case PTX_OP_ISSPACEP: case PTX_OP_CP_ASYNC: case PTX_OP_TEX:
    case PTX_OP_SULD: case PTX_OP_SUST: case PTX_OP_SURED: case PTX_OP_MBARRIER: case PTX_OP_TLD4: case PTX_OP_TXQ:
    case PTX_OP_SUQ:
        if (m && !sim_exec_mem(R, sm, w, in, m, t, &done))
            return false;
        if (op == PTX_OP_ST || op == PTX_OP_RED || op == PTX_OP_ATOM || op == PTX_OP_CP_ASYNC || op == PTX_OP_SUST ||
            op == PTX_OP_SURED)
            w->mem_done = sim_dmax(w->mem_done, done);
        if (op == PTX_OP_CP_ASYNC) {
            if (in->mode == PTX_CP_COPY || in->mode == PTX_CP_BULK_TO_GLOBAL || in->mode == PTX_CP_TENSOR_TO_GLOBAL)
                w->async_done = sim_dmax(w->async_done, done);
            else if (in->mode == PTX_CP_WAIT_GROUP || in->mode == PTX_CP_WAIT_ALL)
                tmin = sim_dmax(tmin, w->async_done);
        }
        top->pc = pc + 1;
        break;
    case PTX_OP_BRA:
        if (R->prog->on_branch && in->guard >= 0 && active)
            sim_trace_branch(R, w, in, active, m);
        if (in->guard < 0 || m == active) {
            top->pc = in->target;
        } else if (m == 0) {
            top->pc = pc + 1;
        } else {
            sim_diverge(w, in->target, pc + 1, in->rpc, m, active & ~m, P->reconverge_merge);
            tmin += P->divergence_cycles;
        }
        tmin = sim_dmax(tmin, t + P->cls[SIM_C_CTRL].latency);
        break;
    case PTX_OP_BRX: {
        double extra = 0;
        if (!sim_brx(R, w, in, pc, active, m, &extra))
            return false;
        tmin = sim_dmax(tmin + extra, t + P->cls[SIM_C_CTRL].latency);
        break;
    }
    case PTX_OP_CALL: {
        if (!m) {
            top->pc = pc + 1;
            break;
        }
        int callee = in->callee;
        uint32_t group = m;
        if (callee < 0 && (callee = sim_indirect_callee(R, w, in, m, &group)) < 0)
            return false;
        if (group != m) {
            /* lanes calling other functions call after these return: they
             * wait at the call, and all meet after it */
            top->pc = pc + 1;
            ptx_simt_push(&w->simt, pc, pc + 1, m & ~group);
            ptx_simt_push(&w->simt, pc, pc + 1, group);
            tmin += P->divergence_cycles;
            R->lane_instr -= (uint64_t)sim_popc(m & ~group);   /* they count when they call */
        }
        if (!sim_call(R, w, in, pc, group, callee))
            return false;
        tmin = sim_dmax(tmin, t + P->cls[SIM_C_CTRL].latency);
        break;
    }
    case PTX_OP_RET:
        top->pc = pc + 1;
        sim_retire_lanes(R, w, m, false);
        tmin = sim_dmax(tmin, t + P->cls[SIM_C_CTRL].latency);
        break;
    case PTX_OP_EXIT:
        top->pc = pc + 1;
        sim_retire_lanes(R, w, m, true);
        break;
    case SIM_OP_END:
        sim_retire_lanes(R, w, active, w->nframes == 1);
        break;
    case PTX_OP_BAR:
        top->pc = pc + 1;
        if (m) {
            sim_simt_normalize(R, w, t);
            if (!sim_bar(R, w, in, m, t))
                return false;
            /* a waiting warp is released by sim_barrier_check, which sets
             * its next issue time */
            waits = in->mode == PTX_BAR_SYNC || in->mode == PTX_BAR_RED ||
                    (in->mode == PTX_BAR_CLUSTER_WAIT && w->state == SIM_W_BARRIER);
        }
        break;
    case PTX_OP_SHFL:
        if (m)
            sim_shfl(R, w, in, m);
        top->pc = pc + 1;
        break;
    case PTX_OP_MAPA:
        if (m && !sim_mapa(R, w, in, m))
            return false;
        top->pc = pc + 1;
        break;
    case PTX_OP_CREATEPOLICY: {   /* an opaque L2 cache policy for .L2::cache_hint, which the sim ignores: 0 */
        uint64_t *d = sim_dst(R, w, in, 0);
        SIM_LANES(m, l) d[l] = 0;
        top->pc = pc + 1;
        break;
    }
    case PTX_OP_VOTE:
        if (m)
            sim_vote(R, w, in, m);
        top->pc = pc + 1;
        break;
    case PTX_OP_MATCH:
        if (m)
            sim_match(R, w, in, m);
        top->pc = pc + 1;
        break;
    case PTX_OP_REDUX:
        if (m)
            sim_redux(R, w, in, m);
        top->pc = pc + 1;
        break;
    case PTX_OP_ELECT:
        if (m)
            sim_elect(R, w, in, m);
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
            sim_thread_desc(R, w, sim_first_lane(m), thr, sizeof thr);
            sim_where(R, w, in, where, sizeof where);
            sim_stop(R, HARNESS_FAULT, "trap executed by thread %s at %s", thr, where);
            return false;
        }
        top->pc = pc + 1;
        break;
    case PTX_OP_NANOSLEEP:
        if (m) {
            sim_src a = sim_operand(R, w, in, 0);
            double ns = (double)(uint32_t)SIM_V(a, sim_first_lane(m));
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
            sim_thread_desc(R, w, sim_first_lane(m), thr, sizeof thr);
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
                    uint8_t *p = sim_area_ptr(R, f, w->nframes == 1, d->imm, l, 4);
                    if (p)
                        memset(p, 0, 4);
                }
            }
        }
        top->pc = pc + 1;
        break;
    case SIM_OP_MALLOC:
        if (m)
            device_malloc(R, w, in, m);
        top->pc = pc + 1;
        break;
    case SIM_OP_FREE:
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
    if (!simt_settled(R, w))
        sim_simt_normalize(R, w, t);
    if (w->state == SIM_W_READY && !waits)
        ready_next(w, tmin);
    return R->status == HARNESS_OK;
}

bool sim_step_exec(sim_run *R, sim_sm *sm, sim_warp *w)
{
    return step(R, sm, w);
}

bool sim_step(sim_run *R, sim_sm *sm, sim_warp *w)
{
    if (__builtin_expect(R->ex != NULL, 0))
        return sim_explain_step(R, sm, w);
    if (__builtin_expect(R->loc != NULL, 0))
        return sim_locations_step(R, sm, w);
    return step(R, sm, w);
}
