/*
 * locations.c — the sim's light instrumentation behind harness_options
 * .want_locations: per PTX instruction, three counters of one run that a
 * search can use as feedback (a PerfFuzz-style archive, ga/archive.c).
 *
 * Unlike explain.c it keeps no per-warp state and charges no stalls: each
 * warp instruction adds the lanes that executed it (guard true), the
 * memory transactions it cost (global sectors, shared wavefronts) and the
 * lane-cycles its atomics waited behind others on the same address.  Rows
 * are numbered as explain.c numbers them (sim_row_bases), so location
 * r * HARNESS_LOCATION_KINDS + k is counter k of row r.
 *
 * It also counts, per thread of the launch, the warp instructions issued
 * while the thread was active (in its warp's active mask; a false guard
 * still counts), and reports the busiest thread: a warp runs as long as
 * its slowest lane, so a launch of independent threads is a batch of
 * experiments on one thread's input each, and the busiest one's input,
 * given to every thread, makes every warp as slow (ga/hunt_lanes.c).
 * A warp's mask changes only where it diverges or reconverges, so each
 * warp counts instructions under its current mask and adds them to the
 * mask's threads when the mask changes: adding to every active lane at
 * every instruction made the sim 18 % slower with the counters on.
 */
#include "harness/sim/sim.h"

#include <stdio.h>
#include <stdlib.h>

struct sim_locations {
    int *row_base;              /* per module function: its first row, -1 when unused */
    int nrows;
    double *out;                /* nrows * HARNESS_LOCATION_KINDS counters, the caller's */
    uint64_t *thread_work;      /* per thread of the launch: instructions while active */
    uint64_t nthreads, bthreads;
    uint32_t *warp_mask;        /* per warp of the launch: its mask, and the instructions */
    uint64_t *warp_run;         /* issued under it not yet in thread_work */
    uint64_t nwarps, bwarps;
};

int sim_row_bases(const sim_prog *P, int *row_base)
{
    int nrows = 0;
    for (int f = 0; f < P->nfuncs; f++) {
        const sim_func *F = &P->funcs[f];
        if (row_base) row_base[f] = F->used ? nrows : -1;
        if (F->used) nrows += F->ncode;
    }
    return nrows;
}

sim_locations *sim_locations_new(const sim_prog *P, const wh_launch *launch, double *out)
{
    sim_locations *L = wh_xcalloc(1, sizeof *L);
    L->nthreads = wh_launch_threads_total(launch);
    L->bthreads = (uint64_t)launch->block[0] * launch->block[1] * launch->block[2];
    L->bwarps = (L->bthreads + SIM_WARP - 1) / SIM_WARP;
    L->nwarps = L->bthreads ? L->nthreads / L->bthreads * L->bwarps : 0;
    L->thread_work = wh_xcalloc(L->nthreads ? L->nthreads : 1, sizeof *L->thread_work);
    L->warp_mask = wh_xcalloc(L->nwarps ? L->nwarps : 1, sizeof *L->warp_mask);
    L->warp_run = wh_xcalloc(L->nwarps ? L->nwarps : 1, sizeof *L->warp_run);
    L->row_base = wh_xcalloc((size_t)P->nfuncs + 1, sizeof *L->row_base);
    L->nrows = sim_row_bases(P, L->row_base);
    L->out = out;
    memset(out, 0, (size_t)L->nrows * HARNESS_LOCATION_KINDS * sizeof *out);
    return L;
}

void sim_locations_free(sim_locations *L)
{
    if (!L) return;
    free(L->thread_work);
    free(L->warp_mask);
    free(L->warp_run);
    free(L->row_base);
    free(L);
}

/* The instructions warp w issued under its current mask, to its threads. */
static void flush_warp(sim_locations *L, uint64_t w)
{
    uint64_t base = w / L->bwarps * L->bthreads + w % L->bwarps * SIM_WARP;
    for (uint32_t left = L->warp_mask[w]; L->warp_run[w] && left; left &= left - 1) {
        uint64_t t = base + (uint64_t)__builtin_ctz(left);
        if (t < L->nthreads) L->thread_work[t] += L->warp_run[w];
    }
    L->warp_run[w] = 0;
}

bool sim_locations_step(sim_run *R, sim_sm *sm, sim_warp *w)
{
    const ptx_simt_entry *top = &w->simt.e[w->simt.n - 1];
    const sim_instr *in = &w->code[top->pc];
    double *c = &R->loc->out[(size_t)(R->loc->row_base[w->fn->index] + top->pc) * HARNESS_LOCATION_KINDS];
    uint32_t active = top->mask, m = active;
    if (in->guard >= 0) m &= in->guard_neg ? ~w->p[in->guard] : w->p[in->guard];
    memset(&R->acc, 0, sizeof R->acc);
    if (!sim_step_exec(R, sm, w)) return false;
    c[HARNESS_LOCATION_LANES] += sim_popc(m);
    c[HARNESS_LOCATION_MEMORY] += R->acc.sectors + R->acc.wavefronts;
    c[HARNESS_LOCATION_ATOMIC_WAIT] += R->acc.atomic_wait;
    uint64_t warp = w->blk->linear * R->loc->bwarps + (uint64_t)w->index;
    if (warp < R->loc->nwarps) {
        if (R->loc->warp_mask[warp] != active) {
            flush_warp(R->loc, warp);
            R->loc->warp_mask[warp] = active;
        }
        R->loc->warp_run[warp]++;
    }
    return true;
}

void sim_locations_busiest(sim_locations *L, int64_t *thread, uint64_t *work)
{
    *thread = -1;
    *work = 0;
    for (uint64_t w = 0; w < L->nwarps; w++) flush_warp(L, w);
    for (uint64_t t = 0; t < L->nthreads; t++)
        if (L->thread_work[t] > *work) {
            *work = L->thread_work[t];
            *thread = (int64_t)t;
        }
}

bool sim_location_name(const void *impl, int loc, char *buf, size_t size)
{
    static const char *const kinds[HARNESS_LOCATION_KINDS] = { "lanes", "memory", "atomic wait" };
    const sim_prog *P = impl;
    if (loc < 0) return false;
    int row = loc / HARNESS_LOCATION_KINDS, base = 0;
    for (int f = 0; f < P->nfuncs; f++) {
        const sim_func *F = &P->funcs[f];
        if (!F->used) continue;
        if (row < base + F->ncode) {
            const sim_instr *in = &F->code[row - base];
            char text[128];
            sim_instr_text(P, F, in, text, sizeof text);
            bool known = in->pidx >= 0 && in->pidx < F->pf->ninstrs;
            snprintf(buf, size, "%s:%d %s (%s)", P->file, known ? F->pf->instrs[in->pidx].line : F->pf->line, text,
                     kinds[loc % HARNESS_LOCATION_KINDS]);
            return true;
        }
        base += F->ncode;
    }
    return false;
}
