/*
 * ga.c — the search loop: generations, budgets, stopping, bookkeeping.
 * The genetic operators are in operators.c.
 */
#include "core/clock.h"
#include "ga/internal.h"

#include <stdlib.h>
#include <string.h>

void ga_options_default(ga_options *o)
{
    o->population = 100;
    o->elite_frac = 0.10;
    o->mutation_prob = 0.25;
    o->segment_prob = 0.5;
    o->special_frac = 0.30;
    o->random_gene_prob = 0.05;
    o->random_frac = 0.20;
    o->max_evals = 0;
    o->max_seconds = 0;
    o->epsilon = 0.01;
    o->patience = 2;
    o->keep = 1;
    o->archive_frac = 0.2;
}

const char *ga_stop_reason_name(ga_stop_reason r)
{
    static const char *const names[] = { "none", "converged", "evals", "time", "interrupted", "error" };
    return names[r];
}

static const char *const strategy_names[] = { "gdivan", "random", "random-ga" };

const char *ga_strategy_name(ga_strategy s)
{
    return strategy_names[s];
}

bool ga_strategy_from_name(const char *name, ga_strategy *out)
{
    for (int s = 0; s < 3; s++)
        if (!strcmp(name, strategy_names[s])) { *out = (ga_strategy)s; return true; }
    return false;
}

static bool check_options(const ga_problem *p, const ga_options *o, ga_strategy s, wh_error *err)
{
    const char *bad = NULL;
    if (o->population < 2) bad = "population must be at least 2";
    else if (o->elite_frac < 0 || o->elite_frac >= 1) bad = "elite fraction must be in [0, 1)";
    else if (o->mutation_prob < 0 || o->mutation_prob > 1) bad = "mutation probability must be in [0, 1]";
    else if (o->segment_prob < 0 || o->segment_prob > 1) bad = "segment-mutation share must be in [0, 1]";
    else if (o->special_frac < 0 || o->special_frac > 1) bad = "special fraction must be in [0, 1]";
    else if (o->random_gene_prob < 0 || o->random_gene_prob > 1) bad = "random-gene probability must be in [0, 1]";
    else if (o->random_frac < 0 || o->special_frac + o->random_frac > 1)
        bad = "random-individual fraction must be in [0, 1 - special fraction]";
    else if (o->max_evals < 0 || o->max_seconds < 0 || o->epsilon < 0 || o->patience < 0) bad = "budgets must not be negative";
    else if (o->keep < 0) bad = "the number of inputs to keep must not be negative";
    else if (o->archive_frac < 0 || o->archive_frac > 1) bad = "archive fraction must be in [0, 1]";
    else if (p->nlocations < 0 || (p->nlocations > 0 && s == GA_RANDOM))
        bad = "location feedback needs a gene-based strategy";
    else if (s != GA_RANDOM && p->ngenes < 1 + (p->nparam_values > 0)) bad = "an individual needs at least one atom gene";
    else if (p->nparam_values < 0) bad = "the parameter gene needs a positive number of values";
    else if (p->nedit_genes < 0 || (p->nedit_genes > 0 && s == GA_RANDOM) ||
             (s != GA_RANDOM && p->ngenes < 1 + (p->nparam_values > 0) + p->nedit_genes))
        bad = "edit genes need a gene-based strategy and at least one atom gene";
    else if (p->nscreen < 0 || (p->nscreen > 0 && (!p->screen_codes || !p->screen_groups || p->nedit_genes == 0)))
        bad = "an edit screen needs its codes and groups and edit genes";
    else if (p->nseeds < 0 || p->nseeds > o->population || (p->nseeds > 0 && s == GA_RANDOM))
        bad = "seed individuals need a gene-based strategy and at most a population of them";
    else if (s == GA_GDIVAN && p->npath_alleles < 1) bad = "gdivan needs at least one valid path atom";
    if (bad) wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "%s", bad);
    return !bad;
}

ga *ga_new(const ga_problem *prob, const ga_options *opt, ga_strategy strategy, uint64_t seed, wh_error *err)
{
    if (!check_options(prob, opt, strategy, err)) return NULL;
    ga *g = calloc(1, sizeof *g);
    if (!g) goto oom;
    g->prob = *prob;
    g->opt = *opt;
    g->strategy = strategy;
    g->seed = seed;
    pcg32_seed(&g->rng, seed, 0x5eed);
    g->npop = opt->population;
    g->pop = calloc((size_t)g->npop, sizeof *g->pop);
    g->next = calloc((size_t)g->npop, sizeof *g->next);
    if (!g->pop || !g->next) goto oom;
    if (strategy != GA_RANDOM) {
        for (int i = 0; i < g->npop; i++) {
            g->pop[i].genes = calloc((size_t)prob->ngenes, sizeof(int));
            g->next[i].genes = calloc((size_t)prob->ngenes, sizeof(int));
            if (!g->pop[i].genes || !g->next[i].genes) goto oom;
        }
        g->best.genes = calloc((size_t)prob->ngenes, sizeof(int));
        if (!g->best.genes) goto oom;
        if (prob->amplify && !(g->hot.genes = calloc((size_t)prob->ngenes, sizeof(int)))) goto oom;
    }
    g->best.fitness = -1;
    if (opt->keep > 0) {
        g->top = calloc((size_t)opt->keep, sizeof *g->top);
        if (!g->top) goto oom;
        for (int i = 0; strategy != GA_RANDOM && i < opt->keep; i++)
            if (!(g->top[i].genes = calloc((size_t)prob->ngenes, sizeof(int)))) goto oom;
    }
    if (!ga_archive_init(g)) goto oom;
    return g;
oom:
    wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for the population");
    ga_free(g);
    return NULL;
}

void ga_free(ga *g)
{
    if (!g) return;
    for (int i = 0; i < g->npop; i++) {
        if (g->pop) free(g->pop[i].genes);
        if (g->next) free(g->next[i].genes);
    }
    free(g->pop);
    free(g->next);
    free(g->best.genes);
    free(g->hot.genes);
    for (int i = 0; g->top && i < g->opt.keep; i++)
        free(g->top[i].genes);
    free(g->top);
    ga_archive_free(g);
    free(g);
}

void ga_copy_indiv(const ga *g, ga_indiv *dst, const ga_indiv *src)
{
    int *genes = dst->genes;
    *dst = *src;
    dst->genes = genes;
    dst->locations = NULL;
    if (genes && src->genes) memcpy(genes, src->genes, (size_t)g->prob.ngenes * sizeof(int));
}

/* Rank for selection: failed runs sort last. */
double ga_rank_value(const ga_indiv *ind)
{
    return ind->status ? -1.0 : ind->fitness;
}

static int by_rank_desc(const void *a, const void *b)
{
    double x = ga_rank_value(a), y = ga_rank_value(b);
    if (x != y) return x < y ? 1 : -1;
    /* Ties keep evaluation order, so the sort is deterministic. */
    long ea = ((const ga_indiv *)a)->eval_index, eb = ((const ga_indiv *)b)->eval_index;
    return (ea > eb) - (ea < eb);
}

void ga_sort(ga *g, ga_indiv *pop, int n)
{
    (void)g;
    qsort(pop, (size_t)n, sizeof *pop, by_rank_desc);
}

/* Convergence: the paper stops when consecutive generations no longer
 * change the best time substantially. */
static void check_convergence(ga *g, double prev_best)
{
    double best = g->best.fitness;
    bool progress = prev_best <= 0 ? best > 0 : best - prev_best > g->opt.epsilon * prev_best;
    g->stale = progress ? 0 : g->stale + 1;
    if (g->opt.patience && g->stale >= g->opt.patience) g->stop = GA_STOP_CONVERGED;
}

/* Islands stop together: the run's reason replaces the island's own. */
static void agree_stop(ga *g)
{
    if (g->prob.agree_stop) g->stop = g->prob.agree_stop(g->prob.ctx, g->stop);
}

bool ga_run(ga *g, wh_error *err)
{
    g->t0 = wh_clock_s() - g->elapsed_before;
    if (!g->resumed && !ga_first_generation(g, err)) return false;
    g->resumed = false;
    agree_stop(g);
    while (!g->stop) {
        if (g->prob.on_generation && !g->prob.on_generation(g->prob.ctx, g->generation, err)) {
            g->stop = GA_STOP_ERROR;
            return false;
        }
        double prev = g->best.fitness;
        g->generation++;
        if (!ga_next_generation(g, err)) return false;
        if (g->evaluated_all) check_convergence(g, prev);
        agree_stop(g);
    }
    /* An interrupted generation is not checkpointed: the checkpoint stays at
     * the last generation's end, so a resume redoes the cut generation with
     * the same random draws and ends where an uninterrupted run ends (as
     * after a kill -9). */
    if (g->stop != GA_STOP_INTERRUPTED && g->prob.on_generation &&
        !g->prob.on_generation(g->prob.ctx, g->generation, err)) {
        g->stop = GA_STOP_ERROR;
        return false;
    }
    return true;
}

const ga_indiv *ga_best(const ga *g) { return g->best.fitness < 0 ? NULL : &g->best; }
ga_stop_reason ga_get_stop_reason(const ga *g) { return g->stop; }
long ga_evals(const ga *g) { return g->evals; }
int ga_generation(const ga *g) { return g->generation; }
long ga_evals_to_best(const ga *g) { return g->evals_to_best; }
int ga_screen_rounds(const ga *g) { return g->screen_rounds; }
long ga_amplified(const ga *g) { return g->amplified; }
const ga_indiv *ga_hot(const ga *g) { return g->hot.genes && g->hot.hot_work > 0 ? &g->hot : NULL; }
double ga_time_to_best(const ga *g) { return g->time_to_best; }
double ga_elapsed(const ga *g) { return wh_clock_s() - g->t0; }

const ga_indiv *ga_population(const ga *g, int *count)
{
    *count = g->npop_valid;
    return g->pop;
}

const ga_indiv *ga_top(const ga *g, int *count)
{
    *count = g->ntop;
    return g->top;
}
