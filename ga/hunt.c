/*
 * hunt.c — one complete search: setup, the GA's callbacks, resume.
 * Reports and files are in hunt_report.c.
 */
#include "core/alloc.h"
#include "core/clock.h"
#include "core/hash.h"
#include "ga/hunt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void hunt_options_default(hunt_options *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = GA_GDIVAN;
    ga_options_default(&o->ga);
    o->seed = 1;
    o->backend = HARNESS_AUTO;
    harness_options_init(&o->harness);
    gen_explore_options_default(&o->explore);
    o->results_base = "results";
    o->value_edits = HUNT_DEFAULT_VALUE_EDITS;
    o->warp_first = GEN_WARP_CANDIDATES;
    o->refine_dictionary = true;
    o->refine_work_ties = true;
    o->scout = true;
    o->scout_head = -1;
    o->scout_screen = true;
    o->edit_screen = true;
    o->end_edits = true;
    o->location_feedback = true;
    o->lane_amplify = true;
}

static const char *const tiling_names[] = { "auto", "plain", "stride" };

const char *hunt_tiling_name(hunt_tiling t)
{
    return tiling_names[t];
}

bool hunt_tiling_from_name(const char *name, hunt_tiling *out)
{
    for (int t = 0; t < 3; t++)
        if (!strcmp(name, tiling_names[t])) { *out = (hunt_tiling)t; return true; }
    return false;
}

bool hunt_build_image(const hunt *h, const ga_indiv *ind, wh_image *img, wh_error *err)
{
    if (ind->genes)
        return gen_scale(h->pool, &h->lay, ind->genes, img, err) &&
               gen_edits_apply(ind->genes + h->lay.ngenes, hunt_edit_genes(h), img, err);
    return hunt_build_scouted(ind->seed, NULL, img, err);
}

bool hunt_build_scouted(uint64_t seed, const hunt_edits *edits, wh_image *img, wh_error *err)
{
    pcg32 rng;
    pcg32_seed(&rng, seed, 0x72616e64);
    return wh_image_fill_random(img, &rng, err) && (!edits || gen_edits_apply(edits->codes, edits->n, img, err));
}

uint64_t hunt_input_hash(const wh_image *img)
{
    uint64_t x = WH_FNV_OFFSET;
    for (int p = 0; p < img->nbufs; p++)
        if (img->bufs[p].param->role == WH_ROLE_INPUT) x = wh_fnv1a(x, img->bufs[p].data, img->bufs[p].bytes);
    return x ? x : 1; /* 0 means "no hash" */
}

int hunt_edit_genes(const hunt *h)
{
    return h->opt.strategy == GA_GDIVAN ? h->opt.value_edits : 0;
}

double hunt_measure_s(const hunt *h)
{
    double s = 0;
    for (int k = 0; k < h->njobs; k++) s += h->workers[k].measure_s;
    return s;
}

/* Runs on evaluation thread `worker`: only that worker's harness, image and
 * counter change; the pool and layout are read-only while the GA measures. */
static bool evaluate(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    const hunt *h = ctx;
    hunt_worker *w = &h->workers[worker];
    if (!hunt_build_image(h, ind, w->img, err)) return false;
    /* only a top list of several tells inputs apart */
    ind->input_hash = h->opt.ga.keep > 1 ? hunt_input_hash(w->img) : 0;
    harness_result res;
    if (!hunt_measure_fitness(h, w, &res, &ind->fitness, err)) return false;
    ind->status = (int)res.status;
    if (ind->locations && res.locations) memcpy(ind->locations, res.locations, (size_t)res.nlocations * sizeof *res.locations);
    hunt_lanes_note(h, ind, &res);
    if (res.status != HARNESS_OK) hunt_record_finding(h, w->img, "eval", ind->eval_index, &res);
    harness_result_free(&res);
    return true;
}

/* A seeded allele (gen.h): nothing is stored, the scaler draws its values
 * from the seed when it builds an input. */
static bool new_random_allele(void *ctx, pcg32 *rng, int gene, int *allele, wh_error *err)
{
    (void)ctx, (void)gene, (void)err;
    *allele = gen_seeded_allele(pcg32_next(rng));
    return true;
}

/* "  12.3 evals/s, 40 % of 2000 evals, about 98 s left" (budget fraction and
 * the time left at the current rate, from whichever budget ends first). */
static void progress_rate(const hunt *h, const ga_event *ev, char *out, size_t n)
{
    const ga_options *g = &h->opt.ga;
    double rate = ev->elapsed_s > 0 ? ev->eval / ev->elapsed_s : 0;
    double left_evals = g->max_evals && rate > 0 ? (g->max_evals - ev->eval) / rate : -1;
    double left_time = g->max_seconds ? g->max_seconds - ev->elapsed_s : -1;
    double left = left_evals < 0 ? left_time : left_time < 0 || left_evals < left_time ? left_evals : left_time;
    int len = snprintf(out, n, "  %.1f evals/s", rate);
    if (g->max_evals && len > 0 && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, ", %.0f %% of %ld evals", 100.0 * ev->eval / g->max_evals,
                        g->max_evals);
    if (left >= 0 && len > 0 && (size_t)len < n)
        snprintf(out + len, n - (size_t)len, ", about %.0f s left", left);
}

static void progress(hunt *h, const ga_event *ev, bool force)
{
    if (h->opt.quiet) return;
    double t = wh_clock_s();
    if (!force && t - h->last_progress < 0.2) return;
    if (force && ev->eval == h->last_progress_eval) return;   /* the final checkpoint: said already */
    h->last_progress = t;
    h->last_progress_eval = ev->eval;
    char rate[160];
    progress_rate(h, ev, rate, sizeof rate);
    fprintf(stderr, "%sgen %d  evals %ld  best %.6g %s  (at eval %ld)  %.1f s%s%s", h->tty ? "\r" : "",
            ev->generation, ev->eval, ev->best, harness_unit(h->h), ga_evals_to_best(h->g), ev->elapsed_s, rate,
            h->tty ? "   " : "\n");
    fflush(stderr);
}

static bool on_eval(void *ctx, const ga_event *ev, wh_error *err)
{
    hunt *h = ctx;
    if (ev->ind->status != HARNESS_OK) h->findings++;
    wh_history_row(&h->hist, ev->eval, ev->generation, ev->elapsed_s, ev->ind->fitness, ev->best,
                   harness_status_name((harness_status)ev->ind->status));
    if (h->tty) progress(h, ev, false);
    return wh_history_ok(&h->hist, err);
}

static bool on_generation(void *ctx, int generation, wh_error *err)
{
    hunt *h = ctx;
    /* before the checkpoint, so that it holds the immigrants */
    if (!hunt_islands_migrate(h, generation, err) || !hunt_sync_migrate(h, generation, err)) return false;
    char path[1100];
    snprintf(path, sizeof path, "%s/pool.bin", h->dir);
    if (h->pool->natoms > h->pool_saved || h->pool_saved == 0) {
        if (!gen_pool_save(h->pool, path, h->pool_saved, err)) return false;
        h->pool_saved = h->pool->natoms;
    }
    snprintf(path, sizeof path, "%s/checkpoint.bin", h->dir);
    if (!ga_checkpoint(h->g, path, err)) return false;
    if (!h->tty && h->g && ga_evals(h->g) > 0) {
        const ga_indiv *b = ga_best(h->g);
        ga_event ev = { ga_evals(h->g), generation, ga_elapsed(h->g), b, b ? b->fitness : 0, false };
        progress(h, &ev, true);
    }
    return true;
}

static bool stop_requested(void *ctx)
{
    hunt *h = ctx;
    return h->opt.interrupted && *h->opt.interrupted;
}

/* The gene layout for atoms of X threads, with a tiling gene when the
 * options ask for stride tiling. */
static bool make_layout(hunt *h, int x, wh_error *err)
{
    if (h->opt.tiling == HUNT_TILING_AUTO || h->opt.strategy == GA_RANDOM)
        h->opt.tiling = h->opt.strategy == GA_GDIVAN ? HUNT_TILING_STRIDE : HUNT_TILING_PLAIN;
    if (!gen_layout_make(h->spec, &h->img->launch, x, &h->lay, err)) return false;
    return h->opt.tiling != HUNT_TILING_STRIDE || gen_layout_add_tiling(&h->lay, h->img, err) > 0;
}

static bool setup_own_pool(hunt *h, int x, wh_error *err)
{
    if (!gen_pool_init(&h->own_pool, h->spec, x, err)) return false;
    h->pool = &h->own_pool;
    return make_layout(h, x, err);
}

/* The symbolic stage gave no atom: gdivan goes on with random atoms as its
 * alleles (and no special individuals), and says why. */
static bool setup_gdivan_fallback(hunt *h, wh_error *err)
{
    if (!h->opt.quiet)
        fprintf(stderr, "hunt: the symbolic stage gave no atom (%s); gdivan goes on with %d random atoms "
                "as its alleles\n", h->explore_failure, HUNT_FALLBACK_ATOMS);
    if (!setup_own_pool(h, h->spec->sym_threads[0], err)) return false;
    pcg32 rng;
    pcg32_seed(&rng, h->opt.seed, 0x66616c6c);
    free(h->alleles);
    if (!(h->alleles = malloc(HUNT_FALLBACK_ATOMS * sizeof *h->alleles))) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    for (h->nalleles = 0; h->nalleles < HUNT_FALLBACK_ATOMS; h->nalleles++)
        if ((h->alleles[h->nalleles] = gen_pool_add_random(h->pool, &rng, true, err)) < 0) return false;
    return true;
}

/* gdivan: the symbolic stage, its atoms and the special individuals; a
 * stage that fails or gives no valid atom does not end the hunt. */
static bool setup_gdivan(hunt *h, wh_error *err)
{
    char cache[1100];
    snprintf(cache, sizeof cache, "%s/%s/.cache", h->opt.results_base, h->spec->name);
    gen_explore_options eo = h->opt.explore;
    eo.cache_dir = cache;
    eo.quiet = h->opt.quiet;
    wh_error xerr;
    wh_error_clear(&xerr);
    eo.on_explore = hunt_scout_start;
    eo.on_explore_ctx = h;
    h->stage_t0 = wh_clock_s();
    hunt_scout_head(h);
    double t0 = wh_clock_s();
    h->explored = gen_explore_spec(h->spec, &eo, &xerr);
    h->explore_s = wh_clock_s() - t0;
    if (!h->explored) {
        wh_error_format(&xerr, h->explore_failure, sizeof h->explore_failure);
        return setup_gdivan_fallback(h, err);
    }
    h->nalleles = gen_valid_alleles(h->explored, &h->alleles);
    if (h->nalleles < 0) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    char out[1100];
    snprintf(out, sizeof out, "%s/paths.json", h->dir);
    if (!gen_result_write_paths(h->explored, out, err)) return false;
    hunt_take_issue_findings(h);
    if (h->nalleles == 0) {
        snprintf(h->explore_failure, sizeof h->explore_failure, "%d paths, %d atoms, none valid",
                 h->explored->npaths, h->explored->atoms_invalid);
        return setup_gdivan_fallback(h, err);
    }
    h->pool = &h->explored->pool;
    if (!make_layout(h, h->pool->x, err)) return false;
    h->nspecials = gen_arrangements(h->explored, &h->lay, &h->specials, err);
    return h->nspecials >= 0;
}

/* Random-value alleles the warp-first composition tries beside the path
 * atoms (values no path constrains: a long loop, a far index). */
#define WARP_RANDOM_CANDIDATES 16

/* The refined unit laid over the launch (the composed genes' input, its
 * per-thread buffers the unit's), taken apart into genes: new atoms, as a
 * seed input's (hunt_seeds.c), saved with the pool. */
static int *refined_individual(hunt *h, const int *genes, const wh_image *cell, wh_error *err)
{
    int *out = calloc((size_t)h->lay.ngenes + 1, sizeof *out);
    if (!out) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return NULL;
    }
    if (gen_scale(h->pool, &h->lay, genes, h->img, err) && gen_warp_tile(cell, h->img, err) &&
        gen_unscale(h->pool, &h->lay, h->img, out, err))
        return out;
    free(out);
    return NULL;
}

/* Specials to put first: refined, then genes (each when not NULL). */
static bool put_first(hunt *h, int *genes, int *refined, wh_error *err)
{
    int n = (refined != NULL) + (genes != NULL);
    int **sp = realloc(h->specials, (size_t)(h->nspecials + n) * sizeof *sp);
    if (!sp) {
        free(genes);
        free(refined);
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    h->specials = sp;
    memmove(h->specials + n, h->specials, (size_t)h->nspecials * sizeof *h->specials);
    if (refined) h->specials[0] = refined;
    if (genes) h->specials[n - 1] = genes;
    h->nspecials += n;
    return true;
}

/* Refinement measures on the sim whatever the backend: on the sim as many
 * threads as evaluate (the scout shares them while it runs), beside a GPU
 * every online core (its evaluations wait on the device). */
static int refine_threads(const hunt *h)
{
    if (harness_backend_of(h->h) == HARNESS_SIM) return h->njobs;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

/* gdivan: the warp-first individuals (gen/warp.c), the first specials:
 * the refined unit's, then the composed one's. */
static bool add_warp_special(hunt *h, wh_error *err)
{
    if (h->opt.warp_first <= 0 || h->nalleles <= 0) return true;
    int ncand = h->nalleles + WARP_RANDOM_CANDIDATES;
    int *cand = malloc((size_t)ncand * sizeof *cand);
    if (!cand) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    memcpy(cand, h->alleles, (size_t)h->nalleles * sizeof *cand);
    pcg32 rng;
    pcg32_seed(&rng, hunt_island_seed(h), 0x77726e64);
    for (int i = h->nalleles; i < ncand; i++) cand[i] = gen_seeded_allele(pcg32_next(&rng));
    gen_warp_options wo;
    gen_warp_options_default(&wo);
    wo.candidates = h->opt.warp_first;
    wo.refine_launches = h->opt.warp_refine;
    wo.dictionary = h->opt.refine_dictionary;
    wo.work_ties = h->opt.refine_work_ties;
    wo.refine_threads = refine_threads(h);
    wo.progress = !h->opt.quiet;
    wo.seed = hunt_island_seed(h);
    wo.on_composed = hunt_scout_measure_genes;
    wo.on_composed_ctx = h;
    wh_error werr;   /* the caller's err need not be clear: NULL alone is no error */
    wh_error_clear(&werr);
    wh_image *cell = NULL;
    int *genes = gen_warp_compose(h->spec, h->pool, cand, ncand, &h->lay, &wo, &h->warp, h->img, &cell, &werr);
    free(cand);
    if (!h->opt.quiet && h->warp.unit_threads && !h->warp.kept)
        fprintf(stderr, "hunt: warp-first: one warp-sized unit of %d threads, its lanes' inputs chosen one by one "
                "(%llu cycles), is no slower than the same unit with the best single atom's input on every lane "
                "(%llu; both the unit launched alone, not comparable with a full launch's cycles): no composed "
                "individual\n", h->warp.unit_threads, (unsigned long long)h->warp.cycles,
                (unsigned long long)h->warp.uniform_cycles);
    if (!h->opt.quiet && h->warp.kept)
        fprintf(stderr, "hunt: warp-first: a unit of %d threads composed in %ld sim launches (%.1f s): launched "
                "alone %llu cycles, %llu with one allele everywhere (the unit's cycles, not a full launch's)\n", h->warp.unit_threads, h->warp.evaluations, h->warp.seconds,
                (unsigned long long)h->warp.cycles, (unsigned long long)h->warp.uniform_cycles);
    if (!h->opt.quiet && h->warp.refined_cycles)
        fprintf(stderr, "hunt: warp-first: element refinement: the unit alone %llu cycles (%ld elements changed, %ld "
                "sim launches, %.1f s on %d thread%s)%s\n", (unsigned long long)h->warp.refined_cycles, h->warp.refined_elements,
                h->warp.refine_evaluations, h->warp.refine_seconds, h->warp.refine_threads,
                h->warp.refine_threads == 1 ? "" : "s",
                cell ? ": one more individual, repeated over the launch" : ": too little gain, no individual");
    if (!genes && wh_error_is_set(&werr)) *err = werr;
    if (!genes) return !wh_error_is_set(&werr);
    wh_error rerr;
    wh_error_clear(&rerr);
    int *refined = cell ? refined_individual(h, genes, cell, &rerr) : NULL;
    wh_image_free(cell);
    if (cell && !refined && !h->opt.quiet)   /* the composed individual is still there */
        fprintf(stderr, "hunt: warp-first: the refined warp is no input of the full launch: %s\n", rerr.msg);
    /* first: the first population takes only special_frac of it in specials */
    if (!h->warp.kept) {
        free(genes);
        genes = NULL;
    }
    return !(genes || refined) || put_first(h, genes, refined, err);
}

/* Resume: the pool and the path alleles come from the run directory. */
static bool setup_resume(hunt *h, int x, wh_error *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/pool.bin", h->dir);
    if (!setup_own_pool(h, x, err) || !gen_pool_load(h->pool, path, err)) return false;
    h->pool_saved = h->pool->natoms;
    h->alleles = malloc((size_t)(h->pool->natoms + 1) * sizeof *h->alleles);
    if (!h->alleles) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    for (int a = 0; a < h->pool->natoms; a++)
        if ((h->pool->atoms[a].origin == GEN_ATOM_PATH || h->pool->atoms[a].origin == GEN_ATOM_FAMILY) &&
            h->pool->atoms[a].valid)
            h->alleles[h->nalleles++] = a;
    /* a gdivan run without path atoms searched with the fallback's random
     * atoms, the first of its pool */
    for (int a = 0; h->opt.strategy == GA_GDIVAN && !h->nalleles && a < h->pool->natoms; a++)
        if (a < HUNT_FALLBACK_ATOMS) h->alleles[h->nalleles++] = a;
    return true;
}

static bool make_run_dir(hunt *h, wh_error *err)
{
    if (h->opt.resume_dir) {
        snprintf(h->dir, sizeof h->dir, "%s", h->opt.resume_dir);
        return true;
    }
    if (h->opt.out_dir) {
        snprintf(h->dir, sizeof h->dir, "%s", h->opt.out_dir);
        h->made_dir = access(h->dir, F_OK) != 0;
        return wh_make_dirs(h->dir, err);
    }
    char stem[128];
    snprintf(stem, sizeof stem, "%s-s%llu", ga_strategy_name(h->opt.strategy), (unsigned long long)h->opt.seed);
    h->made_dir = wh_results_make_run_dir(h->opt.results_base, h->spec->name, stem, h->dir, sizeof h->dir, err);
    return h->made_dir;
}

/* The edit screen's codes: every operator on every editable field (at most
 * a generation's non-elite places are tried a round), for the GA's screen
 * or the scout's. */
static bool make_screen(hunt *h, wh_error *err)
{
    if (!(h->opt.edit_screen || h->opt.scout_screen) || hunt_edit_genes(h) == 0) return true;
    int max = h->opt.ga.population;
    h->screen_codes = malloc((size_t)max * sizeof *h->screen_codes);
    h->screen_groups = malloc((size_t)max * sizeof *h->screen_groups);
    if (!h->screen_codes || !h->screen_groups) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for the edit screen");
        return false;
    }
    h->nscreen = gen_edit_screen(h->img, h->opt.end_edits, h->screen_codes, h->screen_groups, max);
    return true;
}

static bool start_ga(hunt *h, wh_error *err)
{
    ga_problem p;
    memset(&p, 0, sizeof p);
    p.ctx = h;
    p.ngenes = h->opt.strategy == GA_RANDOM ? 0 : h->lay.ngenes + hunt_edit_genes(h);
    p.nedit_genes = hunt_edit_genes(h);
    p.nparam_values = h->opt.strategy != GA_RANDOM && h->lay.tiling_gene >= 0 ? h->lay.ntilings : 0;
    p.path_alleles = h->alleles;
    p.npath_alleles = h->nalleles;
    p.specials = (const int *const *)h->specials;
    p.nspecials = h->nspecials;
    p.screen_codes = h->screen_codes;
    p.screen_groups = h->screen_groups;
    p.nscreen = h->opt.edit_screen ? h->nscreen : 0;
    p.nlocations = h->opt.location_feedback && h->opt.harness.want_locations ? harness_locations(h->h) : 0;
    p.seeds = (const int *const *)h->seeds;
    p.nseeds = h->nseeds;
    p.new_random_allele = new_random_allele;
    p.evaluate = evaluate;
    if (hunt_lanes_on(h)) p.amplify = hunt_lanes_amplify;
    p.workers = h->njobs;
    p.on_eval = on_eval;
    p.on_generation = on_generation;
    p.stop_requested = stop_requested;
    if (h->root[0]) p.agree_stop = hunt_islands_agree_stop;
    /* the scout's evaluations were part of the budget */
    ga_options go = h->opt.ga;
    if (go.max_evals) go.max_evals -= h->scout.evals;
    h->g = ga_new(&p, &go, h->opt.strategy, hunt_island_seed(h), err);
    if (!h->g) return false;
    char path[1100];
    snprintf(path, sizeof path, "%s/checkpoint.bin", h->dir);
    if (h->opt.resume_dir && !ga_restore(h->g, path, err)) return false;
    h->restored_generation = h->opt.resume_dir ? ga_generation(h->g) : -1;
    if (h->opt.resume_dir) hunt_migrations_truncate(h, h->restored_generation);
    snprintf(path, sizeof path, "%s/history.csv", h->dir);
    if (h->opt.resume_dir && !wh_history_truncate(path, ga_evals(h->g), err)) return false;
    return wh_history_open(&h->hist, path, h->opt.resume_dir != NULL, err);
}

static bool has_checkpoint(const char *dir)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    return access(path, R_OK) == 0;
}

/* Evaluation threads: one per online core unless told, never more than a
 * generation; one with emulated noise (its noise is one stream).  On the
 * cuda backend one, or with --jobs N up to one per device (launches
 * sharing a GPU would disturb each other's times; open_workers finds how
 * many devices there are); islands there take one device each. */
static int effective_jobs(const hunt *h)
{
    bool cuda = harness_backend_of(h->h) != HARNESS_SIM;
    int jobs = h->opt.jobs;
    if (jobs <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cuda ? 1 : cores > 0 ? (int)cores : 1;
    }
    if (jobs > h->opt.ga.population) jobs = h->opt.ga.population;
    const char *single = !cuda && h->opt.harness.sim_noise > 0 ? "the sim with --sim-noise measures one input at a time"
                       : cuda && h->opt.islands ? "an island on the cuda backend takes one device"
                       : NULL;
    if (single && h->opt.jobs > 1 && !h->opt.quiet)
        fprintf(stderr, "hunt: --jobs %d ignored: %s\n", h->opt.jobs, single);
    return single || jobs < 1 ? 1 : jobs;
}

static long device_ordinal(const harness *hs)
{
    json_t *d = harness_device_json(hs);
    long o = json_is_integer(json_object_get(d, "ordinal")) ? (long)json_integer_value(json_object_get(d, "ordinal")) : -1;
    json_decref(d);
    return o;
}

/* cuda: worker k's harness on the k-th device after --device (modulo the
 * devices there are); false when that is a device an earlier worker has. */
static bool on_a_device_of_its_own(hunt *h, int k)
{
    long o = device_ordinal(h->workers[k].h);
    for (int j = 0; j < k; j++)
        if (device_ordinal(h->workers[j].h) == o)
            return false;
    return true;
}

/* Worker 0 is the hunt's harness and image; the others get their own. */
static bool open_workers(hunt *h, wh_error *err)
{
    h->njobs = effective_jobs(h);
    h->workers = wh_xcalloc((size_t)h->njobs, sizeof *h->workers);
    h->workers[0] = (hunt_worker){ .h = h->h, .img = h->img };
    harness_options ho = h->opt.harness;
    ho.quiet = true;
    bool cuda = harness_backend_of(h->h) != HARNESS_SIM;
    int asked = h->njobs;
    wh_launch full = wh_spec_launch_full(h->spec);
    for (int k = 1; k < h->njobs; k++) {
        hunt_worker *w = &h->workers[k];
        ho.device_rotate = cuda ? k : h->opt.harness.device_rotate;
        if (!(w->h = harness_open(h->spec, harness_backend_of(h->h), &ho, err)))
            return false;
        if (cuda && !on_a_device_of_its_own(h, k)) {   /* every device has its worker */
            harness_close(w->h);
            w->h = NULL;
            h->njobs = k;
            break;
        }
        if (!(w->img = wh_image_new(h->spec, &full, err)))
            return false;
    }
    if (cuda && h->opt.jobs > 1 && !h->opt.quiet)
        fprintf(stderr, "hunt: %d evaluation thread%s on the cuda backend, one per device%s (their times are "
                "ranked together)\n", h->njobs, h->njobs == 1 ? "" : "s",
                h->njobs < asked ? ": the devices there are" : "");
    return true;
}

static void close_workers(hunt *h)
{
    for (int k = 1; k < h->njobs; k++) {
        wh_image_free(h->workers[k].img);
        if (h->workers[k].h) harness_close(h->workers[k].h);
    }
    free(h->workers);
}

static bool setup(hunt *h, wh_error *err)
{
    int x = 0;
    time_t now = time(NULL);
    struct tm utc;
    strftime(h->started, sizeof h->started, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &utc));
    if (!hunt_islands_prepare(h, err)) return false;
    if (h->opt.resume_dir && !hunt_read_saved_options(h->opt.resume_dir, h->spec, &h->opt, &x, err)) return false;
    if (!hunt_sync_prepare(h, err)) return false;
    if (h->opt.resume_dir && !has_checkpoint(h->opt.resume_dir)) {
        /* stopped (even by kill -9) before its first checkpoint: nothing is
         * lost by starting it again, in the same directory, with its options */
        if (!h->opt.quiet)
            fprintf(stderr, "hunt: %s has no checkpoint yet (stopped before its first generation ended); "
                    "starting it again with its saved options\n", h->opt.resume_dir);
        h->opt.out_dir = h->opt.resume_dir;
        hunt_recall_seed_dirs(h, h->opt.resume_dir);
        h->opt.resume_dir = NULL;
    }
    if (!make_run_dir(h, err)) return false;
    if ((h->lock_fd = wh_run_dir_lock(h->dir, err)) < 0) return false;
    if (!h->opt.resume_dir) {
        /* a run started again in its directory: an earlier try's scout is not this run's */
        char scout_csv[1100];
        snprintf(scout_csv, sizeof scout_csv, "%s/scout.csv", h->dir);
        remove(scout_csv);
    }
    /* emulated noise (sim_noise) follows the run's seed, so a seed is still
     * a run; a resumed run restarts the noise stream, so with noise it does
     * not end where the uninterrupted run would */
    h->opt.harness.noise_seed = hunt_island_seed(h);
    h->opt.harness.want_locations = (h->opt.location_feedback || hunt_lanes_on(h)) && h->opt.strategy == GA_GDIVAN;
    h->h = harness_open(h->spec, h->opt.backend, &h->opt.harness, err);
    if (!h->h) return false;
    h->reps = h->opt.reps > 0 ? h->opt.reps : harness_backend_of(h->h) == HARNESS_SIM ? 1 : 10;
    wh_launch full = wh_spec_launch_full(h->spec);
    h->img = wh_image_new(h->spec, &full, err);
    if (!h->img || !open_workers(h, err) || !make_screen(h, err)) return false;   /* the scout screens too */
    if (h->opt.resume_dir) {
        if (!setup_resume(h, x > 0 ? x : h->spec->sym_threads[0], err)) return false;
        hunt_scout_recall(h, h->dir);
    } else if (h->opt.strategy == GA_GDIVAN) {
        /* the scout measures until the stage and the warp-first composition end */
        bool ready = setup_gdivan(h, err) && add_warp_special(h, err);
        wh_error serr;
        wh_error_clear(&serr);
        if (!hunt_scout_stop(h, ready ? err : &serr) || !ready) return false;
    } else {
        int gx = h->opt.genes_x > 0 ? h->opt.genes_x : h->spec->sym_threads[0];
        if (!setup_own_pool(h, gx, err)) return false;
    }
    /* random atoms span the full launch's domains, not the X-thread ones */
    if (h->pool) gen_pool_set_full(h->pool, h->img);
    if (h->opt.nseed_inputs && !h->opt.resume_dir && h->opt.strategy == GA_RANDOM) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "--seed-inputs: random testing draws every input at random; "
                     "seeds go into gdivan or random-ga");
        return false;
    }
    if (h->opt.resume_dir) hunt_recall_seeds(h);
    else if (h->opt.nseed_inputs && !hunt_take_seeds(h, err)) return false;
    if (!h->opt.resume_dir && !h->opt.quiet)
        fprintf(stderr, "hunt: %s on %s, seed %llu, %s, results in %s\n", ga_strategy_name(h->opt.strategy),
                h->spec->name, (unsigned long long)h->opt.seed, harness_device(h->h), h->dir);
    else if (!h->opt.quiet)
        fprintf(stderr, "hunt: resuming %s (%s, seed %llu)\n", h->dir, ga_strategy_name(h->opt.strategy),
                (unsigned long long)h->opt.seed);
    return hunt_write_run_json(h, "running", err) && start_ga(h, err);
}

static void teardown(hunt *h)
{
    wh_error ignored;
    hunt_scout_stop(h, &ignored);   /* a setup that failed during the stage */
    wh_history_close(&h->hist);
    wh_run_dir_unlock(h->lock_fd, h->dir);
    ga_free(h->g);
    json_decref(h->top);
    hunt_free_seeds(h);
    for (int i = 0; i < h->nspecials; i++) free(h->specials[i]);
    free(h->specials);
    free(h->alleles);
    free(h->screen_codes);
    free(h->screen_groups);
    close_workers(h);
    wh_image_free(h->img);
    if (h->pool == &h->own_pool) gen_pool_free(&h->own_pool);
    gen_result_free(h->explored);
    gen_extender_free(h->lanes.extender);
    if (h->h) harness_close(h->h);
    hunt_sync_free(h);
}

bool hunt_run(const wh_spec *spec, const hunt_options *o, hunt_summary *out, wh_error *err)
{
    hunt h;
    memset(&h, 0, sizeof h);
    memset(out, 0, sizeof *out);
    h.spec = spec;
    h.opt = *o;
    h.sum = out;
    h.lock_fd = -1;
    h.tty = !o->quiet && isatty(STDERR_FILENO);
    bool ok = setup(&h, err);
    if (ok && h.stage_t0 > 0) h.search_offset_s = wh_clock_s() - h.stage_t0;
    ok = ok && ga_run(h.g, err);
    if (h.tty && !o->quiet) fputc('\n', stderr);
    /* Whatever stopped the search, what it found is written. */
    if (h.g && (ok || ga_get_stop_reason(h.g) != GA_STOP_NONE)) {
        wh_error ferr;
        bool fin = hunt_finish(&h, ok ? err : &ferr);
        ok = ok && fin;
        /* every island reaches this point once, failed or not */
        bool merged = hunt_islands_merge(&h, ok ? err : &ferr);
        ok = ok && merged;
    }
    teardown(&h);
    /* a run that failed before writing anything leaves no empty directory
     * behind (the next run would land in NAME-2) */
    if (!ok && h.made_dir && rmdir(h.dir) == 0 && !o->quiet)
        fprintf(stderr, "hunt: removed the empty run directory %s\n", h.dir);
    return ok;
}
