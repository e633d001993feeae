/*
 * top.c — the top list: the best distinct inputs a search has measured.
 *
 * A campaign seeded with hard inputs wants more than the single worst:
 * the `keep` best different individuals, best first.  The list owns
 * `keep` slots with their gene buffers; inserting permutes the slots, so
 * no buffer is allocated or freed during the search.
 */
#include "ga/internal.h"

#include <string.h>

static bool same_input(const ga *g, const ga_indiv *a, const ga_indiv *b)
{
    if (a->input_hash && b->input_hash) return a->input_hash == b->input_hash;
    if (!a->genes || !b->genes) return a->seed == b->seed;
    return !memcmp(a->genes, b->genes, (size_t)g->prob.ngenes * sizeof(int));
}

/* Drop member i; its slot (and buffer) becomes the first unused one. */
static void top_remove(ga *g, int i)
{
    ga_indiv gone = g->top[i];
    memmove(&g->top[i], &g->top[i + 1], (size_t)(g->ntop - i - 1) * sizeof *g->top);
    g->top[--g->ntop] = gone;
}

void ga_top_offer(ga *g, const ga_indiv *ind)
{
    int keep = g->opt.keep;
    if (keep <= 0 || ind->status) return;
    for (int i = 0; i < g->ntop; i++)
        if (same_input(g, &g->top[i], ind)) {
            if (g->top[i].fitness >= ind->fitness) return;
            top_remove(g, i);   /* measured higher again: it moves up */
            break;
        }
    /* after every member at least as long: ties keep evaluation order */
    int at = 0;
    while (at < g->ntop && g->top[at].fitness >= ind->fitness)
        at++;
    if (at >= keep) return;
    if (g->ntop == keep) g->ntop--;   /* the last member falls out */
    ga_indiv slot = g->top[g->ntop];
    memmove(&g->top[at + 1], &g->top[at], (size_t)(g->ntop - at) * sizeof *g->top);
    g->top[at] = slot;
    ga_copy_indiv(g, &g->top[at], ind);
    g->ntop++;
}
