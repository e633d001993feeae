/*
 * migrate.c — individuals leaving and joining a population: the GA's
 * side of the island model (ga/islands.h carries them between processes).
 */
#include "ga/internal.h"

int ga_emigrants(const ga *g, ga_indiv *out, int n)
{
    int k = 0;
    for (int i = 0; i < g->npop_valid && k < n; i++) {
        if (g->pop[i].status || g->pop[i].fitness < 0) continue;   /* a failed run is nobody's gift */
        ga_copy_indiv(g, &out[k++], &g->pop[i]);
    }
    return k;
}

void ga_immigrate(ga *g, const ga_indiv *in, int n)
{
    if (n > g->npop) n = g->npop;
    /* pop is ranked best first: the last n measured places are the worst */
    int first = g->npop_valid >= n ? g->npop_valid - n : 0;
    for (int i = 0; i < n; i++) ga_copy_indiv(g, &g->pop[first + i], &in[i]);
    if (first + n > g->npop_valid) g->npop_valid = first + n;
    ga_sort(g, g->pop, g->npop_valid);
}
