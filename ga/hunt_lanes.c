/*
 * hunt_lanes.c — lane amplification: the busiest thread's input given to
 * every thread (gdivan on the sim, hunt_options.lane_amplify).
 *
 * A launch of threads that do not share their inputs is a batch of
 * thousands of experiments, one per thread, yet its time only says how
 * the slowest warp did.  Where a thread's work is its own input's
 * (collatz_steps: a start value's stopping time; gcd_steps: a pair's
 * Euclid steps), random testing wins by volume: each of its launches
 * draws 16384 fresh values and one of them sets the time.  The sim counts
 * the warp instructions each thread was active for
 * (harness_result.busiest_thread);
 * the GA keeps the individual whose busiest thread did the most work yet
 * (ga_indiv.hot_*), and each time that record moves, the next generation
 * gets one child: that individual with the busiest thread's per-thread
 * elements in every thread (one new atom on every thread gene, the value
 * edits that touch a per-thread input cleared, since they would overwrite
 * it).  Every warp then runs as long as the best lane seen, and the GA
 * decides whether that is the slowest launch (threads that contend on one
 * address or one slot may also get slower or faster together).
 *
 * With hunt_options.lane_extend (off by default), the concolic extension
 * (gen_extend_atom, symexec's sx_extend) first asks the solver for that
 * thread input's neighbour that takes the other side of one of its last
 * branches (latest first: at the exit of the loop that made it busy, one
 * more trip; an earlier branch only when the latest has no answer, and
 * that may be shorter), and the child gets the answer instead: volume
 * finds a long lane, the solver would make it longer.  Each try has
 * HUNT_LANE_EXTEND_S seconds; after HUNT_LANE_EXTEND_MISSES tries in a row
 * with no answer (a path the solver cannot extend in time) the run stops
 * trying.  Measured, it found an extension for few records and changed no
 * best (README, "Lane extension").
 *
 * Islands (MPI or --sync-dir) exchange genes that must mean the same
 * input everywhere, so the new atoms would not travel: off there; and off
 * for a kernel without per-thread inputs.
 */
#include "ga/hunt_internal.h"

#include "core/clock.h"

#include <stdio.h>
#include <stdlib.h>

#define HUNT_LANE_EXTEND_S 2.0
#define HUNT_LANE_EXTEND_MISSES 4

/* A kernel without per-thread inputs has no thread's input to give. */
static bool has_per_thread_input(const wh_spec *spec)
{
    for (int p = 0; p < spec->nparams; p++)
        if (spec->params[p].role == WH_ROLE_INPUT && spec->params[p].per_thread) return true;
    return false;
}

bool hunt_lanes_on(const hunt *h)
{
    return h->opt.lane_amplify && h->opt.strategy == GA_GDIVAN && !h->opt.islands && !h->opt.sync_dir &&
           has_per_thread_input(h->spec);
}

void hunt_lanes_note(const hunt *h, ga_indiv *ind, const harness_result *res)
{
    if (!hunt_lanes_on(h) || res->status != HARNESS_OK || res->busiest_work == 0) return;
    ind->hot_unit = res->busiest_thread;
    ind->hot_work = (double)res->busiest_work;
}

/* Does edit code `code` write a per-thread input (its buffer or, for the
 * contend kinds, its index buffer)? */
static bool edits_per_thread(const wh_image *full, int code)
{
    gen_edit e;
    gen_edit_decode(full, (uint32_t)code, &e);
    if (e.kind == GEN_EDIT_NONE) return false;
    const wh_param *pars = full->spec->params;
    bool contend = e.kind == GEN_EDIT_CONTEND_MIN || e.kind == GEN_EDIT_CONTEND_MAX;
    return pars[e.param].per_thread || (contend && pars[e.index_param].per_thread);
}

/* The thread atom's extension (sx_extend's answer), or atom itself when the
 * extension is off or finds none (a failure stops it, with a line: the
 * child goes on without it). */
static int extend_atom(hunt *h, int atom)
{
    hunt_lane_extension *x = &h->lanes;
    if (!h->opt.lane_extend || x->off) return atom;
    wh_error err;
    if (!x->extender && !(x->extender = gen_extender_new(h->spec, &err))) {
        x->off = true;
        if (!h->opt.quiet) fprintf(stderr, "hunt: lane extension off: %s\n", err.msg);
        return atom;
    }
    double t0 = wh_clock_s();
    int b = gen_extend_atom(x->extender, h->pool, atom, HUNT_LANE_EXTEND_S, &err);
    x->seconds += wh_clock_s() - t0;
    x->tries++;
    if (b >= 0) {
        x->extended++;
        x->misses = 0;
        return b;
    }
    if (b == -1) {
        x->off = true;
        if (!h->opt.quiet) fprintf(stderr, "hunt: lane extension stopped: %s\n", err.msg);
    } else if (++x->misses >= HUNT_LANE_EXTEND_MISSES) {
        x->off = true;
    }
    return atom;
}

bool hunt_lanes_amplify(void *ctx, const ga_indiv *hot, int *genes, wh_error *err)
{
    hunt *h = ctx;
    if (!hunt_build_image(h, hot, h->img, err)) return false;
    int atom = gen_thread_atom(h->pool, &h->lay, h->img, (uint64_t)hot->hot_unit, err);
    if (atom < 0) return false;
    atom = extend_atom(h, atom);
    for (int g = 0; g < h->lay.ngenes; g++)
        genes[g] = g < h->lay.thread_genes ? atom : hot->genes[g];
    for (int k = 0; k < hunt_edit_genes(h); k++) {
        int code = hot->genes[h->lay.ngenes + k];
        genes[h->lay.ngenes + k] = code && edits_per_thread(h->img, code) ? 0 : code;
    }
    return true;
}
