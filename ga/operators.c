/*
 * operators.c — building generations: the first population of each
 * strategy, elite selection, parent choice, one-point crossover, mutation.
 */
#include "ga/internal.h"

static bool draw_allele(ga *g, bool random_values, int *out, wh_error *err)
{
    if (random_values) {
        *out = g->prob.new_random_allele(g->prob.ctx, &g->rng, err);
        return *out >= 0;
    }
    *out = g->prob.path_alleles[pcg32_bounded(&g->rng, (uint32_t)g->prob.npath_alleles)];
    return true;
}

/* gdivan mutations usually take another path; random-ga always draws values. */
static bool mutation_allele(ga *g, int *out, wh_error *err)
{
    bool random_values = g->strategy == GA_RANDOM_GA || pcg32_double(&g->rng) < g->opt.random_gene_prob;
    return draw_allele(g, random_values, out, err);
}

static int special_count(const ga *g)
{
    if (g->strategy != GA_GDIVAN || g->prob.nspecials == 0) return 0;
    int n = (int)(g->opt.special_frac * g->npop + 0.5);
    return n > g->npop ? g->npop : n;
}

static bool initial_individual(ga *g, int i, ga_indiv *ind, wh_error *err)
{
    if (g->strategy == GA_RANDOM) {
        ind->seed = pcg32_next64(&g->rng);
        return true;
    }
    if (i < special_count(g)) {
        const int *sp = g->prob.specials[i % g->prob.nspecials];
        for (int k = 0; k < g->prob.ngenes; k++) ind->genes[k] = sp[k];
        return true;
    }
    for (int k = 0; k < g->prob.ngenes; k++)
        if (!draw_allele(g, g->strategy == GA_RANDOM_GA, &ind->genes[k], err)) return false;
    return true;
}

/* Measure next[from..npop) and make `next` the population. */
static bool finish_generation(ga *g, int from, wh_error *err)
{
    int measured = from;
    for (int i = from; i < g->npop; i++) {
        if (!ga_evaluate(g, &g->next[i], err)) return false;
        if (g->stop) break;
        if (i != measured) ga_copy_indiv(g, &g->next[measured], &g->next[i]);
        measured++;
    }
    g->evaluated_all = measured == g->npop;
    if (measured == 0) return true; /* nothing new: keep the old population */
    ga_indiv *t = g->pop;
    g->pop = g->next;
    g->next = t;
    g->npop_valid = measured;
    ga_sort(g, g->pop, g->npop_valid);
    return true;
}

bool ga_first_generation(ga *g, wh_error *err)
{
    for (int i = 0; i < g->npop; i++)
        if (!initial_individual(g, i, &g->next[i], err)) {
            g->stop = GA_STOP_ERROR;
            return false;
        }
    return finish_generation(g, 0, err);
}

static void crossover(ga *g, const ga_indiv *a, const ga_indiv *b, ga_indiv *child)
{
    int n = g->prob.ngenes;
    int cut = n > 1 ? 1 + (int)pcg32_bounded(&g->rng, (uint32_t)(n - 1)) : n;
    for (int k = 0; k < cut; k++) child->genes[k] = a->genes[k];
    for (int k = cut; k < n; k++) child->genes[k] = b->genes[k];
}

static bool make_child(ga *g, int nelite, ga_indiv *child, wh_error *err)
{
    /* One parent uniform over the population, one from the elite. */
    const ga_indiv *a = &g->pop[pcg32_bounded(&g->rng, (uint32_t)g->npop_valid)];
    const ga_indiv *b = &g->pop[pcg32_bounded(&g->rng, (uint32_t)(nelite > 0 ? nelite : 1))];
    crossover(g, a, b, child);
    child->fitness = -1;
    child->status = 0;
    /* The paper's mutation: one draw decides, another picks the gene. */
    if (pcg32_double(&g->rng) < g->opt.mutation_prob) {
        int k = (int)pcg32_bounded(&g->rng, (uint32_t)g->prob.ngenes);
        if (!mutation_allele(g, &child->genes[k], err)) return false;
    }
    return true;
}

bool ga_next_generation(ga *g, wh_error *err)
{
    if (g->strategy == GA_RANDOM) return ga_first_generation(g, err);
    int nelite = (int)(g->opt.elite_frac * g->npop + 0.5);
    if (nelite > g->npop_valid) nelite = g->npop_valid;
    for (int i = 0; i < nelite; i++) ga_copy_indiv(g, &g->next[i], &g->pop[i]);
    for (int i = nelite; i < g->npop; i++)
        if (!make_child(g, nelite, &g->next[i], err)) {
            g->stop = GA_STOP_ERROR;
            return false;
        }
    return finish_generation(g, nelite, err);
}
