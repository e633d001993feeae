/*
 * refine.c — element refinement of a warp-first unit: coordinate ascent
 * over the unit's input elements on small sim launches, on one thread or
 * several.
 *
 * Each per-thread input element of the unit (contiguous owners, no
 * structure) in lane order, then each element of a shared input as long
 * in the unit's launch as in the full one (a tree, a table), tries its
 * domain's two ends and GEN_WARP_REFINE_DRAWS values drawn in it (every
 * other one among the kernel's constants there, gen_dictionary) and keeps
 * the one that lengthens the unit most.  An element's candidates are drawn
 * before any is measured (the draws do not depend on the times), so they
 * can be measured at once: with `threads` > 1 each thread measures every
 * threads-th candidate on its own sim and its own copy of the unit, and
 * the first longest wins, as it would one after another.  The result is
 * the same for every thread count (the time bound aside).  Passes go on
 * until the quiet rule (refinement_done) ends them.
 *
 * A per-thread element's value that ties the unit's cycles is kept too
 * when the unit's lanes then do more work (lane instructions;
 * gen_warp_options.work_ties): the unit's time is its slowest lane's, so a
 * lane below it gains nothing by cycles alone and stays where composition
 * left it, while the warp's worst may need every lane on a long path of
 * its own (nqueens_count's: eight long subtrees, one per lane, whose
 * pushes and pops diverge; its unit went from 33884 to 37294 cycles on
 * seed 1 with this, the launch's best from 0.91 to 0.97 of the author's
 * worst).  Not a shared input's: every lane reads it, and its ties moved
 * bvh_traverse's tree to one as long in the unit and shorter over the
 * launch (seed 1 at 100 evaluations: 11179 cycles, 15304 without).
 */
#include "core/clock.h"
#include "gen/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDIDATES (GEN_WARP_REFINE_DRAWS + 2)

/* One element's candidates, and the value the previous element kept (each
 * thread's unit takes it before measuring). */
typedef struct {
    int p, f;
    uint64_t e;
    bool is_float;
    int64_t iv[MAX_CANDIDATES + 1];   /* + the element's own value while drawing */
    double fv[MAX_CANDIDATES + 1];
    uint64_t cycles[MAX_CANDIDATES];
    uint64_t lanes[MAX_CANDIDATES];   /* lane instructions of each: the tie-break */
    int n;
    bool commit, cis_float;
    int cp, cf;
    uint64_t ce;
    int64_t civ;
    double cfv;
} element_job;

typedef struct refiner refiner;

typedef struct {
    refiner *r;
    int index;
    wh_image *img;           /* this thread's copy of the unit (thread 0: the unit) */
    harness *sim;
} thread_state;

struct refiner {
    const wh_image *full;
    const gen_dictionary *dict;
    pcg32 *rng;
    gen_warp_report *rep;
    double t0, deadline, noted;  /* start, time bound, last progress line */
    bool progress;
    uint64_t start_cycles;       /* the unit before refinement */
    uint64_t lanes;              /* the kept unit's lane instructions */
    bool work_ties;              /* a tie in cycles with more lanes' work is a gain */
    long budget, gained, pass;   /* launches allowed, at the last gain, in the first pass */
    int nthreads;                /* measuring: thread 0 (the caller) and the started ones */
    thread_state *threads;
    pthread_t *tids;
    pthread_mutex_t mu;
    pthread_cond_t go, finished;
    long generation;             /* jobs handed out */
    int pending;                 /* threads still measuring the current one */
    bool quit;
    element_job job;
};

harness *gen_unit_harness(const wh_spec *spec, wh_error *err)
{
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.step_limit = GEN_VALIDATE_STEP_LIMIT;
    return harness_open(spec, HARNESS_SIM, &o, err);
}

uint64_t gen_unit_work(harness *sim, wh_image *img, uint64_t *lanes)
{
    wh_error err;
    wh_error_clear(&err);
    harness_result res;
    memset(&res, 0, sizeof res);
    bool ok = harness_measure(sim, img, 1, &res, &err) && res.status == HARNESS_OK;
    uint64_t c = ok ? res.cycles : 0;
    if (lanes) *lanes = ok ? res.lane_instructions : 0;
    harness_result_free(&res);
    return c;
}

uint64_t gen_unit_cycles(harness *sim, wh_image *img)
{
    return gen_unit_work(sim, img, NULL);
}

bool gen_warp_refinable(const wh_param *par)
{
    return par->role == WH_ROLE_INPUT && par->kind == WH_BUFFER && par->per_thread > 0 &&
           par->owner == WH_OWNER_CONTIGUOUS && !wh_param_structured(par);
}

/* Structured but still refined one element at a time: a tree, whose
 * projection keeps every child a node may keep, and a forest, whose
 * projection only cuts cycles, so a change lands where it says (a sorted
 * or distinct buffer re-ranks its values instead). */
static bool refined_despite_structure(const wh_param *par)
{
    return (par->tree && !wh_param_ordered(par)) ||
           (par->structure == WH_STRUCTURE_FOREST && !par->prefix_of && !par->tree && !par->table);
}

bool gen_shared_refinable(const wh_image *cell, const wh_image *full, int p)
{
    const wh_param *par = &cell->spec->params[p];
    return par->role == WH_ROLE_INPUT && par->kind == WH_BUFFER && par->per_thread == 0 &&
           (!wh_param_structured(par) || refined_despite_structure(par)) &&
           cell->bufs[p].count == full->bufs[p].count && cell->bufs[p].count > 0;
}

/* ---- an element's candidates ---------------------------------------------------- */

static bool was_tried(const element_job *j, int64_t iv, double fv)
{
    for (int k = 0; k < j->n; k++)
        if (j->is_float ? j->fv[k] == fv : j->iv[k] == iv) return true;
    return false;
}

/* A value of the kernel's constants in b not among the job's values yet,
 * if a few draws find one (a domain may hold only its own ends, or one
 * constant). */
static bool dictionary_value(refiner *r, const wh_bounds *b, const element_job *j, int64_t *iv, double *fv)
{
    int first, n = b->is_float ? gen_dictionary_floats_in(r->dict, b->flo, b->fhi, &first)
                               : gen_dictionary_ints_in(r->dict, b->lo, b->hi, &first);
    for (int attempt = 0; n > 0 && attempt < 4; attempt++) {
        int k = first + (int)pcg32_bounded(r->rng, (uint32_t)n);
        if (b->is_float) *fv = r->dict->floats[k];
        else *iv = r->dict->ints[k];
        if (!was_tried(j, *iv, *fv)) return true;
    }
    return false;
}

/* Candidate k of an element whose domain is b: the two ends, then values
 * drawn in it, every other one among the kernel's constants there (when
 * it has one not tried yet). */
static void candidate(refiner *r, const wh_bounds *b, int k, const element_job *j, int64_t *iv, double *fv)
{
    if (k >= 2 && k % 2 == 0 && dictionary_value(r, b, j, iv, fv)) return;
    if (b->is_float) {
        *fv = k == 0 ? b->flo : k == 1 ? b->fhi : wh_bounds_lerp(b, pcg32_double(r->rng));
        return;
    }
    uint64_t width = (uint64_t)b->hi - (uint64_t)b->lo;
    *iv = k == 0 ? b->lo : k == 1 ? b->hi
        : (int64_t)((uint64_t)b->lo + (width == UINT64_MAX ? pcg32_next64(r->rng)
                                                            : pcg32_next64(r->rng) % (width + 1)));
}

/* The job's candidates for element e's field f of buffer p, whose value
 * is (iv0, fv0): at most `room` (the budget's rest).  Slot 0 holds the
 * element's value while drawing (a draw equal to it is not measured); the
 * candidates are moved down over it. */
static void draw_candidates(refiner *r, const wh_bounds *b, int64_t iv0, double fv0, long room)
{
    element_job *j = &r->job;
    j->is_float = b->is_float;
    j->iv[0] = iv0;
    j->fv[0] = fv0;
    j->n = 1;
    for (int k = 0; k < MAX_CANDIDATES && j->n - 1 < room; k++) {
        int64_t iv = 0;
        double fv = 0;
        candidate(r, b, k, j, &iv, &fv);
        if (!b->is_float)
            iv = wh_bounds_snap(b, iv);   /* on a "step": the value the launch would get */
        if (was_tried(j, iv, fv)) continue;
        j->iv[j->n] = iv;
        j->fv[j->n++] = fv;
    }
    j->n--;
    memmove(j->iv, j->iv + 1, (size_t)j->n * sizeof *j->iv);
    memmove(j->fv, j->fv + 1, (size_t)j->n * sizeof *j->fv);
}

/* ---- measuring them ------------------------------------------------------------ */

static void *field_at(wh_image *img, int p, int f, uint64_t e)
{
    const wh_param *par = &img->spec->params[p];
    return img->bufs[p].data + e * par->elem_size + par->fields[f].offset;
}

static void set_value(wh_image *img, int p, int f, uint64_t e, bool is_float, int64_t iv, double fv)
{
    wh_type t = img->spec->params[p].fields[f].type;
    if (is_float) wh_value_set_float(t, field_at(img, p, f, e), fv);
    else wh_value_set_int(t, field_at(img, p, f, e), iv);
}

/* The unit's cycles as its image stands (after a running sum or structure
 * is brought back); 0 when it faults or hangs. */
static uint64_t image_cycles(harness *sim, wh_image *img, uint64_t *lanes)
{
    wh_error err;
    if (lanes) *lanes = 0;
    return wh_image_restructure(img, &err) ? gen_unit_work(sim, img, lanes) : 0;
}

/* Thread s's share of the job: the previous element's kept value, then
 * every nthreads-th candidate. */
static void measure_share(thread_state *s)
{
    element_job *j = &s->r->job;
    if (j->commit) set_value(s->img, j->cp, j->cf, j->ce, j->cis_float, j->civ, j->cfv);
    for (int k = s->index; k < j->n; k += s->r->nthreads) {
        set_value(s->img, j->p, j->f, j->e, j->is_float, j->iv[k], j->fv[k]);
        j->cycles[k] = image_cycles(s->sim, s->img, &j->lanes[k]);
    }
}

static void *thread_main(void *arg)
{
    thread_state *s = arg;
    refiner *r = s->r;
    long seen = 0;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (r->generation == seen && !r->quit) pthread_cond_wait(&r->go, &r->mu);
        if (r->quit) break;
        seen = r->generation;
        pthread_mutex_unlock(&r->mu);
        measure_share(s);
        pthread_mutex_lock(&r->mu);
        if (--r->pending == 0) pthread_cond_signal(&r->finished);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Every candidate of the job measured, on every thread. */
static void measure_job(refiner *r)
{
    if (r->nthreads > 1) {
        pthread_mutex_lock(&r->mu);
        r->generation++;
        r->pending = r->nthreads - 1;
        pthread_cond_broadcast(&r->go);
        pthread_mutex_unlock(&r->mu);
    }
    measure_share(&r->threads[0]);
    if (r->nthreads > 1) {
        pthread_mutex_lock(&r->mu);
        while (r->pending > 0) pthread_cond_wait(&r->finished, &r->mu);
        pthread_mutex_unlock(&r->mu);
    }
}

/* ---- the ascent ---------------------------------------------------------------- */

static bool out_of_time(const refiner *r)
{
    return r->deadline > 0 && wh_clock_s() >= r->deadline;
}

/* One element's field: the candidate that lengthens the unit most, or the
 * value it had; cur updated. */
static uint64_t refine_one(refiner *r, int p, int f, uint64_t e, uint64_t cur)
{
    wh_image *img = r->threads[0].img;
    const wh_field *fd = &img->spec->params[p].fields[f];
    wh_bounds b;
    wh_error err;
    if (fd->prefix_of || !wh_image_bounds(img, p, f, e, &b, &err) || (b.is_float ? b.fhi <= b.flo : b.hi <= b.lo))
        return cur;
    void *at = field_at(img, p, f, e);
    int64_t keep_i = b.is_float ? 0 : wh_value_get_int(fd->type, at);
    double keep_f = b.is_float ? wh_value_get_float(fd->type, at) : 0;
    draw_candidates(r, &b, keep_i, keep_f, r->budget - r->rep->refine_evaluations);
    element_job *j = &r->job;
    j->p = p;
    j->f = f;
    j->e = e;
    measure_job(r);
    r->rep->refine_evaluations += j->n;
    bool changed = false, ties = r->work_ties && gen_warp_refinable(&img->spec->params[p]);
    for (int k = 0; k < j->n; k++)
        if (j->cycles[k] > cur || (ties && j->cycles[k] == cur && j->lanes[k] > r->lanes)) {
            cur = j->cycles[k];
            r->lanes = j->lanes[k];
            keep_i = j->iv[k];
            keep_f = j->fv[k];
            changed = true;
        }
    if (changed) {
        r->gained = r->rep->refine_evaluations;
        r->rep->refined_elements++;
    }
    set_value(img, p, f, e, b.is_float, keep_i, keep_f);
    /* the other threads' units take the kept value before the next job */
    j->commit = true;
    j->cis_float = b.is_float;
    j->cp = p, j->cf = f, j->ce = e, j->civ = keep_i, j->cfv = keep_f;
    return cur;
}

/* Refinement stops at its budget, or, as the symbolic stage's saturation
 * does, once nothing has lengthened the unit for as many launches as its
 * last gain took, and at least a whole pass's and GEN_WARP_REFINE_QUIET
 * (so the budget is not spent on kernels whose lanes gain nothing from
 * disagreeing, and every element has had another chance).  Counted in
 * launches, it ends at the same place on every machine and for every
 * thread count (the time bound aside). */
static bool refinement_done(const refiner *r)
{
    long n = r->rep->refine_evaluations, quiet = GEN_WARP_REFINE_QUIET;
    if (r->gained > quiet) quiet = r->gained;
    if (r->pass > quiet) quiet = r->pass;
    return out_of_time(r) || n >= r->budget || n - r->gained >= quiet;
}

/* A progress line every GEN_WARP_PROGRESS_S, when asked for (refinement
 * may take a minute before the search's first evaluation). */
static void note_progress(refiner *r, uint64_t cur)
{
    double now = wh_clock_s();
    if (!r->progress || now - r->noted < GEN_WARP_PROGRESS_S) return;
    r->noted = now;
    fprintf(stderr, "hunt: warp-first: refining a unit of %llu cycles, %.0f s: %ld of at most %ld launches, %llu "
            "cycles (%+.1f %%), %ld elements changed\n", (unsigned long long)r->start_cycles, now - r->t0,
            r->rep->refine_evaluations, r->budget, (unsigned long long)cur,
            r->start_cycles ? 100.0 * ((double)cur / (double)r->start_cycles - 1) : 0.0, r->rep->refined_elements);
}

/* Passes over every refinable element of the unit (per-thread buffers in
 * lane order, then shared ones the launch has as many of) until
 * refinement is done.  A pass without a gain does not end it: its draws
 * were random, and the next pass draws others (a value one in twenty
 * draws hits is missed by a whole pass a third of the time). */
static uint64_t ascend(refiner *r, uint64_t cur)
{
    wh_image *img = r->threads[0].img;
    for (long before = -1; r->rep->refine_evaluations > before && !refinement_done(r);) {
        if (before >= 0 && !r->pass) r->pass = r->rep->refine_evaluations;
        before = r->rep->refine_evaluations;
        for (int p = 0; p < img->nbufs; p++) {
            const wh_param *par = &img->spec->params[p];
            if (!gen_warp_refinable(par) && !gen_shared_refinable(img, r->full, p)) continue;
            for (uint64_t e = 0; e < img->bufs[p].count && !refinement_done(r); e++)
                for (int f = 0; f < par->nfields; f++) {
                    cur = refine_one(r, p, f, e, cur);
                    note_progress(r, cur);
                }
        }
    }
    wh_error err;
    return wh_image_restructure(img, &err) ? cur : 0;
}

/* ---- threads ------------------------------------------------------------------- */

/* Threads 1.. with their own sim and copy of the unit, as many of the
 * `want` as can be opened and started (the ascent is the same with any
 * number); r->nthreads counts them with the caller's. */
static void start_threads(refiner *r, const wh_spec *spec, int want)
{
    r->nthreads = 1;
    if (want <= 1 || !(r->tids = calloc((size_t)want, sizeof *r->tids))) return;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->go, NULL);
    pthread_cond_init(&r->finished, NULL);
    for (int k = 1; k < want; k++) {
        wh_error err;
        thread_state *s = &r->threads[k];
        *s = (thread_state){ .r = r, .index = k };
        if (!(s->sim = gen_unit_harness(spec, &err)) || !(s->img = wh_image_clone(r->threads[0].img, &err)) ||
            pthread_create(&r->tids[k], NULL, thread_main, s) != 0)
            break;
        r->nthreads = k + 1;
    }
}

static void stop_threads(refiner *r, int want)
{
    if (!r->tids) return;
    pthread_mutex_lock(&r->mu);
    r->quit = true;
    pthread_cond_broadcast(&r->go);
    pthread_mutex_unlock(&r->mu);
    for (int k = 1; k < r->nthreads; k++) pthread_join(r->tids[k], NULL);
    for (int k = 1; k < want; k++) {
        if (r->threads[k].sim) harness_close(r->threads[k].sim);
        wh_image_free(r->threads[k].img);
    }
    pthread_cond_destroy(&r->go);
    pthread_cond_destroy(&r->finished);
    pthread_mutex_destroy(&r->mu);
    free(r->tids);
}

/* The ascent on `want` threads, drawing from dict. */
static uint64_t refine_with(const wh_spec *spec, wh_image *img, harness *sim, const wh_image *full,
                            const gen_dictionary *dict, const gen_warp_options *o, pcg32 *rng, uint64_t cur,
                            gen_warp_report *rep)
{
    double t0 = wh_clock_s();
    /* an element has at most MAX_CANDIDATES candidates: more threads would idle */
    int want = o->refine_threads < 1 ? 1 : o->refine_threads > MAX_CANDIDATES ? MAX_CANDIDATES : o->refine_threads;
    refiner r = { .full = full, .dict = dict, .rng = rng, .rep = rep, .t0 = t0, .deadline = t0 + GEN_WARP_REFINE_S,
                  .noted = t0, .progress = o->progress, .budget = o->refine_launches, .work_ties = o->work_ties };
    r.threads = calloc((size_t)want, sizeof *r.threads);
    if (!r.threads) return 0;
    r.threads[0] = (thread_state){ .r = &r, .index = 0, .img = img, .sim = sim };
    uint64_t base = image_cycles(sim, img, &r.lanes);
    rep->refine_evaluations++;
    uint64_t out = 0;
    if (base) {
        start_threads(&r, spec, want);
        r.start_cycles = base > cur ? base : cur;
        out = ascend(&r, r.start_cycles);
        stop_threads(&r, want);
    }
    rep->refine_threads = r.nthreads;
    free(r.threads);
    return out;
}

uint64_t gen_refine_unit(const wh_spec *spec, wh_image *img, harness *sim, const wh_image *full,
                         const gen_warp_options *o, pcg32 *rng, uint64_t cur, gen_warp_report *rep, wh_error *err)
{
    gen_dictionary dict = { 0 };
    if (o->dictionary && !gen_dictionary_for_spec(spec, &dict, err)) return 0;
    uint64_t out = refine_with(spec, img, sim, full, &dict, o, rng, cur, rep);
    gen_dictionary_free(&dict);
    return out;
}
