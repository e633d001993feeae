/*
 * explain.c — the sim's instrumentation behind harness_explain: per PTX
 * instruction and per warp, what was issued and where every cycle went.
 *
 * A run with an explain state (R->ex) sends each warp instruction through
 * sim_explain_step, which runs the ordinary step (sim_step_exec) and
 * charges the cycles since the warp's previous issue.  The gap between
 * the end of the previous issue cycle and this issue is cut at two times
 * the timing model already keeps:
 *   w->resume      the earliest issue the previous instruction allowed
 *                  (its control latency, a barrier's release);
 *   w->next_issue  resume, or later the time the operands were ready;
 * and the issue time itself (later still when the scheduler or the pipe
 * was busy).  Each piece is charged to the instruction that caused it:
 * the previous one (control, barrier), the producer of the latest operand
 * (memory, dependency), the waiting one (pipe).  A warp's end, when its
 * outstanding memory operations complete after its last issue, is charged
 * to the memory instruction that completed last.  So every cycle of a warp's
 * life is charged once, and the rows of a warp sum to finish - start.
 */
#include "harness/sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Who wrote a register last, to charge a wait for it to the writer.  Kept
 * per register slot of the warp's current function: an entry whose
 * function or ready time no longer match was overwritten in another frame
 * and charges the waiting instruction instead. */
typedef struct {
    const sim_func *fn;
    double ready;
    int row;
    uint8_t cause;
} producer;

typedef struct {
    bool started, done;
    int sm;
    unsigned ctaid[3];
    uint64_t block;
    int warp;
    double start, finish;
    double last_t;              /* issue time of its previous instruction */
    int last_row;               /* ...its row, and what the wait it imposes is */
    uint8_t last_cause;
    int drain_row;              /* the memory instruction that completed last */
    producer *prod;             /* max_slots entries while the warp runs */
    uint64_t issued;
    double issue_cycles;
    double stall[HARNESS_NSTALLS];
} warp_state;

struct sim_explain {
    const sim_prog *P;
    int *row_base;              /* per module function: its first row, -1 when unused */
    int nrows;
    harness_explain_counts *rows;
    int max_slots;              /* value + predicate slots of the largest function */
    int bwarps;
    warp_state *warps;
    uint64_t nwarps;
    double *sm_finish;
    int nsms;
    int64_t only_warp;          /* rows count this warp (linear: block x warps per block + warp) alone; -1: all */
};

sim_explain *sim_explain_new(const sim_prog *P)
{
    sim_explain *ex = wh_xcalloc(1, sizeof *ex);
    ex->P = P;
    ex->row_base = wh_xcalloc((size_t)P->nfuncs + 1, sizeof *ex->row_base);
    ex->nrows = sim_row_bases(P, ex->row_base);
    for (int f = 0; f < P->nfuncs; f++) {
        const sim_func *F = &P->funcs[f];
        if (F->used && F->nslots + F->npreds > ex->max_slots)
            ex->max_slots = F->nslots + F->npreds;
    }
    ex->rows = wh_xcalloc((size_t)ex->nrows + 1, sizeof *ex->rows);
    ex->only_warp = -1;
    return ex;
}

void sim_explain_only_warp(sim_explain *ex, int64_t warp)
{
    ex->only_warp = warp;
}

static void free_warps(sim_explain *ex)
{
    for (uint64_t i = 0; i < ex->nwarps; i++)
        free(ex->warps[i].prod);
    free(ex->warps);
    ex->warps = NULL;
    ex->nwarps = 0;
}

void sim_explain_free(sim_explain *ex)
{
    if (!ex)
        return;
    free_warps(ex);
    free(ex->row_base);
    free(ex->rows);
    free(ex->sm_finish);
    free(ex);
}

void sim_explain_begin(sim_explain *ex, const sim_run *R)
{
    free_warps(ex);
    memset(ex->rows, 0, ((size_t)ex->nrows + 1) * sizeof *ex->rows);
    ex->bwarps = R->bwarps;
    ex->nwarps = R->nblocks_total * (uint64_t)R->bwarps;
    ex->warps = wh_xcalloc(ex->nwarps ? ex->nwarps : 1, sizeof *ex->warps);
    free(ex->sm_finish);
    ex->nsms = R->prof->sms;
    ex->sm_finish = wh_xcalloc((size_t)ex->nsms, sizeof *ex->sm_finish);
}

void sim_explain_end(sim_explain *ex, const sim_run *R)
{
    for (int i = 0; R->sms && i < ex->nsms; i++)
        ex->sm_finish[i] = R->sms[i].finish;
}

/* ---- charging cycles ------------------------------------------------------- */

static bool is_memory_class(int cls)
{
    return cls == SIM_C_GLOBAL || cls == SIM_C_LOCAL || cls == SIM_C_CONST || cls == SIM_C_SHARED ||
           cls == SIM_C_ATOM;
}

/* Whether ws's cycles and counts go to the rows (one warp's, when asked). */
static bool in_rows(const sim_explain *ex, const warp_state *ws)
{
    return ex->only_warp < 0 || ws - ex->warps == ex->only_warp;
}

static void charge(sim_explain *ex, warp_state *ws, int row, int cause, double cycles)
{
    if (cycles <= 0)
        return;
    if (in_rows(ex, ws))
        ex->rows[row].stall[cause] += cycles;
    ws->stall[cause] += cycles;
}

static double clamp(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* The producer of the operand this instruction waited for last: its row
 * and cause, or the instruction itself (a dependency) when unknown. */
static int waited_on(const sim_warp *w, const warp_state *ws, const sim_instr *in, double ready, int row,
                     uint8_t *cause)
{
    *cause = HARNESS_STALL_DEPENDENCY;
    for (int i = 0; i < in->ndeps; i++) {
        int d = in->deps[i];
        if (w->ready[d] != ready)
            continue;
        const producer *p = &ws->prod[d];
        if (p->fn == w->fn && p->ready == ready) {
            *cause = p->cause;
            return p->row;
        }
    }
    return row;
}

static warp_state *warp_of(sim_explain *ex, const sim_warp *w)
{
    return &ex->warps[w->blk->linear * (uint64_t)ex->bwarps + (uint64_t)w->index];
}

static void start_warp(sim_explain *ex, warp_state *ws, const sim_sm *sm, const sim_warp *w)
{
    ws->started = true;
    ws->sm = sm->id;
    memcpy(ws->ctaid, w->blk->ctaid, sizeof ws->ctaid);
    ws->block = w->blk->linear;
    ws->warp = w->index;
    ws->start = w->blk->start;
    ws->last_row = -1;
    ws->drain_row = -1;
    ws->prod = wh_xcalloc((size_t)ex->max_slots + 1, sizeof *ws->prod);
}

/* The gap from the end of the previous issue cycle to this issue at t,
 * then the issue cycle itself. */
static void charge_gap(sim_explain *ex, warp_state *ws, int row, double resume, double ready, double t,
                       int prod_row, uint8_t prod_cause)
{
    double end_prev = ws->issued ? ws->last_t + 1 : ws->start;
    double a = clamp(resume, end_prev, t);
    charge(ex, ws, ws->last_row >= 0 ? ws->last_row : row,
           ws->last_row >= 0 ? ws->last_cause : HARNESS_STALL_CONTROL, a - end_prev);
    double b = clamp(ready, a, t);
    charge(ex, ws, prod_row, prod_cause, b - a);
    charge(ex, ws, row, HARNESS_STALL_PIPE, t - b);
    if (in_rows(ex, ws))
        ex->rows[row].issue_cycles += 1;
    ws->issue_cycles += 1;
    ws->issued++;
}

/* What the instruction did: lanes, branch divergence, memory requests. */
static void count(harness_explain_counts *rc, const sim_instr *in, uint32_t active, uint32_t m,
                  const sim_access *acc)
{
    rc->issued++;
    rc->lanes += (uint64_t)sim_popc(active);
    if (in->op == PTX_OP_BRA && in->guard >= 0 && active) {
        rc->branches++;
        if (m && m != active)
            rc->divergent++;
    }
    if (acc->sectors) {
        rc->global_requests++;
        rc->sectors += (uint64_t)acc->sectors;
    }
    if (acc->local_sectors) {
        rc->local_requests++;
        rc->local_sectors += (uint64_t)acc->local_sectors;
    }
    if (acc->wavefronts) {
        rc->shared_requests++;
        rc->wavefronts += (uint64_t)acc->wavefronts;
    }
    if ((in->op == PTX_OP_ATOM || in->op == PTX_OP_RED) && (acc->sectors || acc->wavefronts)) {
        rc->atomics += (uint64_t)sim_popc(m);
        rc->atomic_wait += acc->atomic_wait;
    }
}

/* After the step: who wrote which register, what the next gap is charged as. */
static void record_after(sim_explain *ex, warp_state *ws, const sim_warp *w, const sim_func *fn,
                         const sim_instr *in, uint32_t m, int row, double mem_before)
{
    uint8_t cause = is_memory_class(in->cls) ? HARNESS_STALL_MEMORY : HARNESS_STALL_DEPENDENCY;
    if (w->fn == fn)
        for (int i = 0; i < in->nouts; i++) {
            int o = in->outs[i];
            if (o >= 0 && o <= ex->max_slots)
                ws->prod[o] = (producer){ fn, w->ready[o], row, cause };
        }
    if (w->mem_done > mem_before)
        ws->drain_row = row;
    ws->last_t = w->now;
    ws->last_row = row;
    if (in->op == PTX_OP_BAR && in->mode != PTX_BAR_ARRIVE && m)
        ws->last_cause = HARNESS_STALL_BARRIER;
    else
        ws->last_cause = is_memory_class(in->cls) ? HARNESS_STALL_MEMORY : HARNESS_STALL_CONTROL;
}

static void finish_warp(sim_explain *ex, warp_state *ws, const sim_warp *w, int row)
{
    ws->done = true;
    ws->finish = w->finish;
    charge(ex, ws, ws->drain_row >= 0 ? ws->drain_row : row, HARNESS_STALL_MEMORY, w->finish - (w->now + 1));
    free(ws->prod);
    ws->prod = NULL;
}

bool sim_explain_step(sim_run *R, sim_sm *sm, sim_warp *w)
{
    sim_explain *ex = R->ex;
    warp_state *ws = warp_of(ex, w);
    if (!ws->started)
        start_warp(ex, ws, sm, w);
    const ptx_simt_entry *top = &w->simt.e[w->simt.n - 1];
    const sim_func *fn = w->fn;
    int pc = top->pc;
    const sim_instr *in = &w->code[pc];
    int row = ex->row_base[fn->index] + pc;
    uint32_t active = top->mask, m = active;
    if (in->guard >= 0)
        m &= in->guard_neg ? ~w->p[in->guard] : w->p[in->guard];
    double resume = w->resume, ready = w->next_issue, mem_before = w->mem_done;
    uint8_t prod_cause;
    int prod_row = waited_on(w, ws, in, ready, row, &prod_cause);
    memset(&R->acc, 0, sizeof R->acc);
    if (!sim_step_exec(R, sm, w))
        return false;
    charge_gap(ex, ws, row, resume, ready, w->now, prod_row, prod_cause);
    if (in_rows(ex, ws))
        count(&ex->rows[row], in, active, m, &R->acc);
    record_after(ex, ws, w, fn, in, m, row, mem_before);
    if (w->state == SIM_W_DONE)
        finish_warp(ex, ws, w, row);
    return true;
}

/* ---- the report ---------------------------------------------------------- */

/* The report's index of module source file f, added on first use. */
static int report_file(const ptx_module *m, int f, int *map, harness_explain_report *out)
{
    if (f < 0 || f >= m->nsrc_files || !m->src_files[f])
        return -1;
    if (map[f] < 0) {
        out->files = wh_xrealloc(out->files, (size_t)(out->nfiles + 1) * sizeof *out->files);
        out->files[out->nfiles] = wh_xstrdup(m->src_files[f]);
        map[f] = out->nfiles++;
    }
    return map[f];
}

static void fill_row(const sim_explain *ex, const sim_func *F, int pc, const harness_explain_counts *rc,
                     int *file_map, harness_explain_report *out, harness_explain_row *r)
{
    const ptx_function *pf = F->pf;
    const sim_instr *in = &F->code[pc];
    bool known = in->pidx >= 0 && in->pidx < pf->ninstrs;
    r->function = wh_xstrdup(pf->name);
    r->ptx_line = known ? pf->instrs[in->pidx].line : pf->line;
    sim_instr_text(ex->P, F, in, r->opcode, sizeof r->opcode);
    bool located = known && pf->instrs[in->pidx].src_line > 0;   /* as ptx_source_of: line 0 is no line */
    r->source_file = located ? report_file(ex->P->m, pf->instrs[in->pidx].src_file, file_map, out) : -1;
    r->source_line = r->source_file >= 0 ? pf->instrs[in->pidx].src_line : 0;
    r->n = *rc;
}

static bool row_used(const harness_explain_counts *rc)
{
    if (rc->issued)
        return true;
    for (int c = 0; c < HARNESS_NSTALLS; c++)
        if (rc->stall[c] > 0)
            return true;
    return false;
}

static void fill_rows(const sim_explain *ex, harness_explain_report *out)
{
    const ptx_module *m = ex->P->m;
    int *file_map = wh_xcalloc((size_t)m->nsrc_files + 1, sizeof *file_map);
    for (int i = 0; i < m->nsrc_files; i++)
        file_map[i] = -1;
    out->rows = wh_xcalloc((size_t)ex->nrows + 1, sizeof *out->rows);
    for (int f = 0; f < ex->P->nfuncs; f++) {
        const sim_func *F = &ex->P->funcs[f];
        for (int pc = 0; ex->row_base[f] >= 0 && pc < F->ncode; pc++) {
            const harness_explain_counts *rc = &ex->rows[ex->row_base[f] + pc];
            if (row_used(rc))
                fill_row(ex, F, pc, rc, file_map, out, &out->rows[out->nrows++]);
        }
    }
    free(file_map);
}

static void fill_warps(const sim_explain *ex, harness_explain_report *out)
{
    out->warps = wh_xcalloc(ex->nwarps ? ex->nwarps : 1, sizeof *out->warps);
    for (uint64_t i = 0; i < ex->nwarps; i++) {
        const warp_state *ws = &ex->warps[i];
        if (!ws->started)
            continue;
        harness_explain_warp *o = &out->warps[out->nwarps];
        o->sm = ws->sm;
        memcpy(o->ctaid, ws->ctaid, sizeof o->ctaid);
        o->block = ws->block;
        o->warp = ws->warp;
        o->start = ws->start;
        o->finish = ws->done ? ws->finish : ws->last_t + 1;
        o->issued = ws->issued;
        o->issue_cycles = ws->issue_cycles;
        memcpy(o->stall, ws->stall, sizeof o->stall);
        if (out->critical < 0 || o->finish > out->warps[out->critical].finish)
            out->critical = (int64_t)out->nwarps;
        out->nwarps++;
    }
}

bool sim_explain_report(const sim_explain *ex, harness_explain_report *out, wh_error *err)
{
    (void)err;
    out->critical = -1;
    fill_rows(ex, out);
    fill_warps(ex, out);
    out->nsms = ex->nsms;
    out->sm_finish = wh_xcalloc((size_t)ex->nsms + 1, sizeof *out->sm_finish);
    memcpy(out->sm_finish, ex->sm_finish, (size_t)ex->nsms * sizeof *out->sm_finish);
    return true;
}
