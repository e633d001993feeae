/*
 * operators.c — building generations: the first population of each
 * strategy, elite selection, parent choice, one-point crossover, mutation.
 */
#include "ga/internal.h"

#include <math.h>

static bool draw_allele(ga *g, bool random_values, int gene, int *out, wh_error *err)
{
    if (random_values) {
        return g->prob.new_random_allele(g->prob.ctx, &g->rng, gene, out, err);
    }
    *out = g->prob.path_alleles[pcg32_bounded(&g->rng, (uint32_t)g->prob.npath_alleles)];
    return true;
}

/* gdivan mutations usually take another path; random-ga always draws values. */
static bool mutation_allele(ga *g, int gene, int *out, wh_error *err)
{
    bool random_values = g->strategy == GA_RANDOM_GA || pcg32_double(&g->rng) < g->opt.random_gene_prob;
    return draw_allele(g, random_values, gene, out, err);
}

/* Genes that choose atoms: all but the parameter gene and the edit genes,
 * which follow them in that order. */
static int atom_genes(const ga *g)
{
    return g->prob.ngenes - (g->prob.nparam_values > 0) - g->prob.nedit_genes;
}

static int first_edit_gene(const ga *g)
{
    return g->prob.ngenes - g->prob.nedit_genes;
}

static int draw_edit_code(ga *g)
{
    int code = (int)(pcg32_next(&g->rng) & 0x7fffffff);
    return code ? code : 1;
}

/* A first-population individual gets 0 to nedit_genes edits. */
static void initial_edits(ga *g, ga_indiv *ind, bool none)
{
    if (g->prob.nedit_genes == 0) return;
    int n = none ? 0 : (int)pcg32_bounded(&g->rng, (uint32_t)g->prob.nedit_genes + 1);
    for (int k = 0; k < g->prob.nedit_genes; k++) ind->genes[first_edit_gene(g) + k] = k < n ? draw_edit_code(g) : 0;
}

static int draw_param(ga *g)
{
    return (int)pcg32_bounded(&g->rng, (uint32_t)g->prob.nparam_values);
}

/* Individuals of the first population after the caller's seeds. */
static int unseeded(const ga *g)
{
    return g->npop - g->prob.nseeds;
}

static int special_count(const ga *g)
{
    if (g->strategy != GA_GDIVAN || g->prob.nspecials == 0) return 0;
    int n = (int)(g->opt.special_frac * g->npop + 0.5);
    return n > unseeded(g) ? unseeded(g) : n;
}

/* gdivan's random-value individuals follow the specials. */
static int random_count(const ga *g)
{
    if (g->strategy != GA_GDIVAN) return 0;
    int n = (int)(g->opt.random_frac * g->npop + 0.5);
    return n > unseeded(g) - special_count(g) ? unseeded(g) - special_count(g) : n;
}

static bool initial_individual(ga *g, int i, ga_indiv *ind, wh_error *err)
{
    if (g->strategy == GA_RANDOM) {
        ind->seed = pcg32_next64(&g->rng);
        return true;
    }
    /* seeds and specials hold every gene but the edit genes */
    if (i < g->prob.nseeds) {
        initial_edits(g, ind, true);
        for (int k = 0; k < first_edit_gene(g); k++) ind->genes[k] = g->prob.seeds[i][k];
        return true;
    }
    i -= g->prob.nseeds;
    initial_edits(g, ind, i < special_count(g));
    if (i < special_count(g)) {
        const int *sp = g->prob.specials[i % g->prob.nspecials];
        for (int k = 0; k < first_edit_gene(g); k++) ind->genes[k] = sp[k];
        return true;
    }
    /* a fresh random value in every gene, plainly tiled: an input as random
     * testing draws it, where that is already near the worst */
    if (i < special_count(g) + random_count(g)) {
        for (int k = 0; k < atom_genes(g); k++)
            if (!draw_allele(g, true, k, &ind->genes[k], err)) return false;
        if (g->prob.nparam_values > 0) ind->genes[atom_genes(g)] = 0;
        return true;
    }
    /* gdivan: every other random individual is uniform (one path allele
     * in every gene), since mixing alleles at random destroys the relations
     * between genes that a uniform or strided input keeps. */
    bool uniform = g->strategy == GA_GDIVAN && (i - special_count(g) - random_count(g)) % 2 == 1;
    for (int k = 0; k < atom_genes(g); k++) {
        if (uniform && k > 0) ind->genes[k] = ind->genes[0];
        else if (!draw_allele(g, g->strategy == GA_RANDOM_GA, k, &ind->genes[k], err)) return false;
    }
    if (g->prob.nparam_values > 0) ind->genes[atom_genes(g)] = draw_param(g);
    return true;
}

/* Measure next[from..npop) and make `next` the population. */
static bool finish_generation(ga *g, int from, wh_error *err)
{
    int fresh = ga_measure(g, g->next + from, g->npop - from, err);
    if (fresh < 0) return false;
    int measured = from + fresh;
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

/* Log-uniform in [1, n]: floor(2^u) with u uniform in [0, log2(n + 1)). */
static int segment_length(ga *g, int n)
{
    double u = pcg32_double(&g->rng) * log2((double)n + 1.0);
    int len = (int)exp2(u);
    return len < 1 ? 1 : len > n ? n : len;
}

/* One-point crossover of the atom genes; the parameter gene comes whole
 * from either parent. */
static void crossover(ga *g, const ga_indiv *a, const ga_indiv *b, ga_indiv *child)
{
    int n = atom_genes(g);
    int cut = n > 1 ? 1 + (int)pcg32_bounded(&g->rng, (uint32_t)(n - 1)) : n;
    for (int k = 0; k < cut; k++) child->genes[k] = a->genes[k];
    for (int k = cut; k < n; k++) child->genes[k] = b->genes[k];
    if (g->prob.nparam_values > 0) child->genes[n] = (pcg32_next(&g->rng) & 1 ? a : b)->genes[n];
    for (int k = first_edit_gene(g); k < g->prob.ngenes; k++)
        child->genes[k] = (pcg32_next(&g->rng) & 1 ? a : b)->genes[k];
}

/* Redraw one edit gene: a new code, or (a quarter of the time) none. */
static void mutate_edit(ga *g, ga_indiv *child)
{
    int k = first_edit_gene(g) + (int)pcg32_bounded(&g->rng, (uint32_t)g->prob.nedit_genes);
    child->genes[k] = pcg32_bounded(&g->rng, 4) == 0 ? 0 : draw_edit_code(g);
}

/* The paper's mutation: another draw picks the gene; a fifth of the
 * mutations redraw an edit gene instead, a quarter of the rest the
 * parameter gene, and a segment mutation gives the new allele to a run of
 * genes from there. */
static bool mutate(ga *g, ga_indiv *child, wh_error *err)
{
    if (g->prob.nedit_genes > 0 && pcg32_bounded(&g->rng, 5) == 0) {
        mutate_edit(g, child);
        return true;
    }
    if (g->prob.nparam_values > 0 && pcg32_bounded(&g->rng, 4) == 0) {
        child->genes[atom_genes(g)] = draw_param(g);
        return true;
    }
    int n = atom_genes(g), k = (int)pcg32_bounded(&g->rng, (uint32_t)n), len = 1;
    if (pcg32_double(&g->rng) < g->opt.segment_prob) len = segment_length(g, n);
    int allele;
    if (k + len > n) k = n - len;
    if (!mutation_allele(g, k, &allele, err)) return false;
    for (int i = k; i < k + len; i++) child->genes[i] = allele;
    return true;
}

static bool make_child(ga *g, int nelite, ga_indiv *child, wh_error *err)
{
    /* A child of the archive is one of its individuals mutated, as a
     * fuzzer mutates its queue: crossover with the time-ranked elite
     * would take back most of what it holds. */
    const ga_indiv *kept = ga_archive_parent(g);
    if (kept) {
        ga_copy_indiv(g, child, kept);
        child->fitness = -1;
        child->status = 0;
        child->input_hash = 0;
        return mutate(g, child, err);
    }
    /* One parent uniform over the population, one from the elite. */
    const ga_indiv *a = &g->pop[pcg32_bounded(&g->rng, (uint32_t)g->npop_valid)];
    const ga_indiv *b = &g->pop[pcg32_bounded(&g->rng, (uint32_t)(nelite > 0 ? nelite : 1))];
    crossover(g, a, b, child);
    child->fitness = -1;
    child->status = 0;
    if (pcg32_double(&g->rng) < g->opt.mutation_prob) return mutate(g, child, err);
    return true;
}

int ga_amplified_child(ga *g, int from, wh_error *err)
{
    if (!g->hot_fresh || !g->prob.amplify || from >= g->npop) return from;
    ga_indiv *child = &g->next[from];
    if (!g->prob.amplify(g->prob.ctx, &g->hot, child->genes, err)) {
        g->stop = GA_STOP_ERROR;
        return -1;
    }
    child->fitness = -1;
    child->status = 0;
    child->input_hash = 0;
    g->hot_fresh = false;
    g->amplified++;
    return from + 1;
}

bool ga_next_generation(ga *g, wh_error *err)
{
    if (g->strategy == GA_RANDOM) return ga_first_generation(g, err);
    int nelite = (int)(g->opt.elite_frac * g->npop + 0.5);
    if (nelite > g->npop_valid) nelite = g->npop_valid;
    for (int i = 0; i < nelite; i++) ga_copy_indiv(g, &g->next[i], &g->pop[i]);
    int from = ga_amplified_child(g, ga_screen_children(g, nelite), err);
    if (from < 0) return false;
    for (int i = from; i < g->npop; i++)
        if (!make_child(g, nelite, &g->next[i], err)) {
            g->stop = GA_STOP_ERROR;
            return false;
        }
    return finish_generation(g, nelite, err);
}
