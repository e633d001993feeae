/*
 * warp.c — warp-first composition: one unit of threads built greedily on
 * the sim, then repeated over the launch.
 *
 * A kernel's time is waves x (slowest warp + start delay) (wavefront
 * splitting, ../shared/papers/): what the launch needs is a slow warp in
 * every slot.  The stride tiling repeats an X-thread atom, which cannot
 * state a warp whose lanes disagree (a staircase of loop exits, 32 lanes
 * in 32 states of an automaton).  So before the GA, the thread genes of
 * one unit of U = lcm(32, X) threads (one warp; three for X = 3) are
 * chosen by coordinate ascent on a U-thread launch of the sim: first the
 * allele that makes the unit longest when every gene holds it, then, gene
 * after gene, the candidate that lengthens the unit most given the others
 * (the shared gene last).  One unit costs one small launch, so a gene can
 * try dozens of candidates where the GA would spend a whole grid each.
 * The unit's genes, repeated over the full layout, are one individual of
 * the first population; the GA breeds from it.  Only when the composed
 * unit beats the uniform one by GEN_WARP_GAIN, though: otherwise the lanes
 * gain nothing from disagreeing, the individual is one more uniform input
 * beside the specials, and as the best of the first generation it only
 * pulls the search towards itself (bvh_traverse: +0.7 %, and lower bests
 * in 2 of 4 seeds with it than without).
 *
 * Genes choose among atoms, whose lanes were solved for X threads; a
 * lexer's worst warp needs each of its 32 lanes in another state at every
 * step, and a tree traversal's worst needs a tree no atom holds.  So the
 * unit (kept or not) is then refined element by element (refine_launches,
 * hunt's default 50000 unit launches, at most 60 s): every per-thread input
 * element in lane order, then every element of a shared input as long in
 * the unit as in the launch (a tree, a table), tries its domain's two ends
 * and GEN_WARP_REFINE_DRAWS values drawn in it (every other one among the
 * kernel's constants in its domain, gen_dictionary: a lexer's classes are
 * single byte values a uniform draw rarely hits), keeping what lengthens
 * the unit, pass after pass until the quiet rule ends it (refine.c)
 * (fsm_lexer: a unit of ~50600 cycles to ~72000 in 50000 launches,
 * 30-45 s: 0.95-0.97 of the known worst over the launch at evaluation 1,
 * where gdivan's best had been 0.69; bvh_traverse's tree: 0.95-1.07 of
 * it, where the composed unit gained nothing and gdivan's best had been
 * 0.80).  The refined unit, laid over the
 * launch (gen_warp_tile), becomes one more individual (the hunt takes it
 * apart into genes, as a seed input).
 *
 * What it cannot see: anything between warps (atomics on one address,
 * hash collisions across the grid, SM balance); a unit measured alone may
 * also rank inputs differently from the full launch.  It only adds
 * individuals, so the GA decides.
 */
#include "core/clock.h"
#include "core/pcg32.h"
#include "gen/internal.h"

#include <stdlib.h>
#include <string.h>

#define WARP_LANES 32

void gen_warp_options_default(gen_warp_options *o)
{
    memset(o, 0, sizeof *o);
    o->candidates = GEN_WARP_CANDIDATES;
    o->passes = 2;
    o->time_s = 10;
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

typedef struct {
    const gen_pool *pool;
    gen_layout lay;          /* of the unit */
    wh_image *img;           /* the unit's launch */
    harness *sim;
    int *genes;              /* the unit's genes (lay.ngenes) */
    const int *cand;         /* alleles to try */
    int ncand;
    pcg32 rng;
    double deadline;         /* 0: none */
    gen_warp_report *rep;
} unit;

/* The unit's sim cycles with its current genes; 0 when it faults, hangs
 * or cannot be built (such a candidate is never kept). */
static uint64_t unit_cycles(unit *u)
{
    wh_error err;
    uint64_t c = gen_scale(u->pool, &u->lay, u->genes, u->img, &err) ? gen_unit_cycles(u->sim, u->img) : 0;
    u->rep->evaluations++;
    return c;
}

static bool out_of_time(const unit *u)
{
    return u->deadline > 0 && wh_clock_s() >= u->deadline;
}

/* Up to `k` distinct candidates drawn from the list (all of it when it is
 * no longer), into pick. */
static int draw(unit *u, int k, int *pick)
{
    if (u->ncand <= k) {
        memcpy(pick, u->cand, (size_t)u->ncand * sizeof *pick);
        return u->ncand;
    }
    for (int i = 0; i < k; i++) {
        /* a partial Fisher-Yates shuffle over an index list would need the
         * list; redrawing on a repeat is as good for k << ncand */
        int c, tries = 0;
        bool again;
        do {
            c = u->cand[pcg32_bounded(&u->rng, (uint32_t)u->ncand)];
            again = false;
            for (int j = 0; j < i; j++) again |= pick[j] == c;
        } while (again && ++tries < 8);
        pick[i] = c;
    }
    return k;
}

/* Every gene (but a tiling gene) set to the candidate that makes the unit
 * longest that way. */
static uint64_t best_uniform(unit *u, int *pick, int k)
{
    int n = draw(u, k, pick), best = u->cand[0];
    uint64_t best_c = 0;
    for (int i = 0; i < n && !out_of_time(u); i++) {
        for (int g = 0; g < u->lay.ngenes; g++) u->genes[g] = g == u->lay.tiling_gene ? 0 : pick[i];
        uint64_t c = unit_cycles(u);
        if (c > best_c) {
            best_c = c;
            best = pick[i];
        }
    }
    for (int g = 0; g < u->lay.ngenes; g++) u->genes[g] = g == u->lay.tiling_gene ? 0 : best;
    return best_c;
}

/* Gene g set to the candidate that lengthens the unit most (kept as is
 * when none does). */
static uint64_t ascend_gene(unit *u, int g, uint64_t cur, int *pick, int k)
{
    int n = draw(u, k, pick), keep = u->genes[g];
    for (int i = 0; i < n && !out_of_time(u); i++) {
        if (pick[i] == u->genes[g]) continue;
        int was = u->genes[g];
        u->genes[g] = pick[i];
        uint64_t c = unit_cycles(u);
        if (c > cur) {
            cur = c;
            keep = pick[i];
        }
        u->genes[g] = was;
    }
    u->genes[g] = keep;
    return cur;
}

/* ---- element refinement (refine.c) and tiling ------------------------------------ */

/* The refined unit's image, when refinement made it longer by
 * GEN_WARP_GAIN; else NULL (its cycles in the report either way). */
static wh_image *refined_unit(unit *u, const gen_warp_options *o, const wh_image *full, uint64_t cur,
                              wh_error *err)
{
    double t0 = wh_clock_s();
    if (!gen_scale(u->pool, &u->lay, u->genes, u->img, err)) return NULL;
    uint64_t r = gen_refine_unit(u->img->spec, u->img, u->sim, full, o, &u->rng, cur, u->rep, err);
    u->rep->refined_cycles = r;
    u->rep->refine_seconds = wh_clock_s() - t0;
    if ((double)r < GEN_WARP_GAIN * (double)cur) return NULL;
    return wh_image_clone(u->img, err);
}

/* Buffer p owned by rows: thread t's row of the full image takes the
 * cell's thread t % ut's, as far as both rows go (the full image's row
 * pointer already rebuilt from the tiled lengths). */
static void tile_rows(const wh_image *cell, wh_image *full, int p, uint64_t ut)
{
    size_t es = full->spec->params[p].elem_size;
    uint64_t threads = wh_launch_threads_total(&full->launch);
    for (uint64_t t = 0; t < threads; t++)
        for (uint64_t j = 0;; j++) {
            uint64_t from = wh_image_owned_elem(cell, p, t % ut, j), to = wh_image_owned_elem(full, p, t, j);
            if (from >= cell->bufs[p].count || to >= full->bufs[p].count) break;
            memcpy(full->bufs[p].data + to * es, cell->bufs[p].data + from * es, es);
        }
}

bool gen_warp_tile(const wh_image *cell, wh_image *full, wh_error *err)
{
    uint64_t ut = wh_launch_threads_total(&cell->launch);
    bool rows = false;
    for (int p = 0; p < full->nbufs && ut; p++) {
        const wh_param *par = &full->spec->params[p];
        rows |= par->role == WH_ROLE_INPUT && par->owner == WH_OWNER_ROWS;
        if (gen_shared_refinable(cell, full, p)) {
            memcpy(full->bufs[p].data, cell->bufs[p].data, full->bufs[p].count * par->elem_size);
            continue;
        }
        if (!gen_warp_refinable(par)) continue;
        size_t per = (size_t)par->per_thread * par->elem_size;
        uint64_t threads = full->bufs[p].count / (uint64_t)par->per_thread;
        for (uint64_t t = 0; t < threads; t++)
            memcpy(full->bufs[p].data + t * per, cell->bufs[p].data + (t % ut) * per, per);
    }
    if (rows && !gen_rebuild_rows(full, err)) return false;
    for (int q = 0; q < full->nbufs && ut && rows; q++)
        if (full->spec->params[q].role == WH_ROLE_INPUT && full->spec->params[q].owner == WH_OWNER_ROWS)
            tile_rows(cell, full, q, ut);
    /* a unit's value may lie outside the launch's domain (a range that
     * shrinks as the thread count grows): then there is no such input */
    return wh_image_restructure(full, err) && wh_image_check_domains(full, err);
}

/* The unit's thread genes repeated over the full layout; its shared gene;
 * plain tiling. */
static int *repeat_unit(const unit *u, const gen_layout *full)
{
    int *out = malloc((size_t)full->ngenes * sizeof *out);
    if (!out) return NULL;
    for (int g = 0; g < full->ngenes; g++) {
        if (g < full->thread_genes)
            out[g] = u->genes[g % u->lay.thread_genes];
        else if (g == full->tiling_gene)
            out[g] = 0;
        else
            out[g] = u->lay.has_shared ? u->genes[u->lay.thread_genes] : u->genes[0];
    }
    return out;
}

static bool open_unit(unit *u, const wh_spec *spec, int threads, wh_error *err)
{
    wh_launch l = wh_launch_threads((unsigned)threads);
    if (!gen_layout_make(spec, &l, u->pool->x, &u->lay, err)) return false;
    u->img = wh_image_new(spec, &l, err);
    u->genes = calloc((size_t)u->lay.ngenes + 1, sizeof *u->genes);
    if (!u->img || !u->genes) {
        if (u->img && !u->genes) wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return false;
    }
    u->sim = gen_unit_harness(spec, err);
    return u->sim != NULL;
}

static void close_unit(unit *u)
{
    if (u->sim) harness_close(u->sim);
    wh_image_free(u->img);
    free(u->genes);
}

/* The composed unit's genes over the full layout, to o->on_composed. */
static void announce_composed(unit *u, const gen_layout *full, const gen_warp_options *o)
{
    int *genes = repeat_unit(u, full);
    if (genes) o->on_composed(o->on_composed_ctx, genes);
    free(genes);
}

int *gen_warp_compose(const wh_spec *spec, const gen_pool *pool, const int *cand, int ncand, const gen_layout *full,
                      const gen_warp_options *o, gen_warp_report *rep, const wh_image *launch,
                      wh_image **refined, wh_error *err)
{
    double t0 = wh_clock_s();
    memset(rep, 0, sizeof *rep);
    if (refined) *refined = NULL;
    int x = pool->x, threads = WARP_LANES / gcd(WARP_LANES, x) * x;
    if (ncand <= 0 || o->candidates <= 0 || (uint64_t)threads > full->threads) return NULL;   /* nothing to do */
    unit u = { .pool = pool, .cand = cand, .ncand = ncand, .rep = rep };
    u.deadline = o->time_s > 0 ? t0 + o->time_s : 0;
    pcg32_seed(&u.rng, o->seed, 0x77617270);
    rep->unit_threads = threads;
    int *pick = malloc((size_t)o->candidates * sizeof *pick), *out = NULL;
    if (!pick) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
        return NULL;
    }
    if (open_unit(&u, spec, threads, err)) {
        uint64_t cur = rep->uniform_cycles = best_uniform(&u, pick, o->candidates);
        int ngenes = u.lay.thread_genes + (u.lay.has_shared ? 1 : 0);
        for (int p = 0; p < o->passes && !out_of_time(&u); p++)
            for (int g = 0; g < ngenes && !out_of_time(&u); g++) cur = ascend_gene(&u, g, cur, pick, o->candidates);
        rep->cycles = cur;
        rep->budget_hit = out_of_time(&u);
        rep->kept = (double)cur >= GEN_WARP_GAIN * (double)rep->uniform_cycles && cur > 0;
        /* refinement starts from the unit either way: lanes that gain
         * nothing from disagreeing atoms may from other values, and a
         * shared tree or table is refined only here */
        bool refine = refined && launch && o->refine_launches > 0 && cur > 0;
        if (refine && rep->kept && o->on_composed) announce_composed(&u, full, o);
        if (refine)
            *refined = refined_unit(&u, o, launch, cur, err);
        out = rep->kept || (refined && *refined) ? repeat_unit(&u, full) : NULL;
        if ((rep->kept || (refined && *refined)) && !out) wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory");
    }
    close_unit(&u);
    free(pick);
    rep->seconds = wh_clock_s() - t0;
    return out;
}
