/*
 * screen.c — the edit screen: each of the caller's screen codes tried once
 * as one more value edit of the best individual, then again from the
 * result while a screened individual is the best.
 *
 * Random edit codes reach a given (field, operator) pair rarely: with 8
 * editable fields, 9 operators and 3 ways to draw the run (bvh_traverse),
 * a whole-buffer "every node's upper bound at its maximum" is one draw in
 * ~216, and a worst case that needs two such edits together (every
 * node's bounds wide open: lower ends at the minimum, upper ends at the
 * maximum) is out of reach of the few dozen edit mutations a
 * 1,000-evaluation search makes.  One edit at a time on the
 * best input is a one-factor screen: a round costs one evaluation per code
 * (a generation's children), and its winner is the base of the next round,
 * so k edits that each help are found in k rounds (greedy, like warp.c's
 * coordinate ascent).  The GA breeds from the screened individuals as from
 * any other.
 *
 * Codes of one group (one field) go to the same edit gene and groups are
 * spread over the base's free edit genes, so that crossover between
 * screened individuals can join edits of different fields.  A base whose
 * edit genes are all taken (random edits of the first population) is
 * screened too, each code replacing the edit in its group's gene: a
 * screen that waited for a free gene never ran on such a best (one
 * sssp_relax seed in five, session 29).  At most one round per edit gene.
 */
#include "ga/internal.h"

/* The base's free (0) edit genes, indices into genes, into free_genes, or
 * every edit gene when none is free; returns how many. */
static int free_edit_genes(const ga *g, const ga_indiv *base, int *free_genes)
{
    int n = 0, first = g->prob.ngenes - g->prob.nedit_genes;
    for (int k = first; k < g->prob.ngenes; k++)
        if (base->genes[k] == 0) free_genes[n++] = k;
    for (int k = first; n == 0 && k < g->prob.ngenes; k++) free_genes[k - first] = k;
    return n ? n : g->prob.nedit_genes;
}

static bool base_has_code(const ga *g, const ga_indiv *base, int code)
{
    for (int k = g->prob.ngenes - g->prob.nedit_genes; k < g->prob.ngenes; k++)
        if (base->genes[k] == code) return true;
    return false;
}

/* Whether this generation screens: the first one after the first
 * population does, and each one after a round whose individual became the
 * best, up to one round per edit gene. */
static bool screen_due(ga *g)
{
    if (g->prob.nscreen == 0 || g->prob.nedit_genes == 0 || g->screen_state == GA_SCREEN_DONE) return false;
    if (g->screen_rounds >= g->prob.nedit_genes) g->screen_state = GA_SCREEN_DONE;
    if (g->screen_state == GA_SCREEN_ROUND) {
        long e = g->pop[0].eval_index;
        if (e < g->screen_first || e > g->screen_last) g->screen_state = GA_SCREEN_DONE;
    }
    return g->screen_state != GA_SCREEN_DONE;
}

int ga_screen_children(ga *g, int from)
{
    if (!screen_due(g)) return from;
    const ga_indiv *base = &g->pop[0];
    int free_genes[64];
    int nfree = g->prob.nedit_genes <= 64 ? free_edit_genes(g, base, free_genes) : 0;
    int i = from;
    for (int c = 0; nfree > 0 && c < g->prob.nscreen && i < g->npop; c++) {
        int code = g->prob.screen_codes[c];
        if (base_has_code(g, base, code)) continue;
        ga_indiv *child = &g->next[i++];
        ga_copy_indiv(g, child, base);
        child->genes[free_genes[(unsigned)g->prob.screen_groups[c] % (unsigned)nfree]] = code;
        child->fitness = -1;
        child->status = 0;
        child->input_hash = 0;
    }
    if (i == from) {
        g->screen_state = GA_SCREEN_DONE;
        return from;
    }
    /* ga_measure numbers them in order after the evaluations so far */
    g->screen_state = GA_SCREEN_ROUND;
    g->screen_first = g->evals + 1;
    g->screen_last = g->evals + (i - from);
    g->screen_rounds++;
    return i;
}
