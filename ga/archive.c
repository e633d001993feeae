/*
 * archive.c — per-location feedback: for every location the caller
 * counts (ga_problem.nlocations; the sim's per-instruction lanes, memory
 * transactions and atomic waits), the individual that drove it highest,
 * and parents drawn from them.
 *
 * Time alone hides the inputs that push one part of a kernel before they
 * pay: on sssp_relax, every edge into one node makes the sweep *faster*
 * (most relaxations then fail) until the distances are ordered too, so a
 * time-ranked population drops it, while it raises the atomic wait of the
 * atomicMin more than any other input.  As in PerfFuzz (Lemieux et al.,
 * ISSTA 2018), an individual that sets a new maximum at some location is
 * kept for it; one that holds no location any more is dropped; and a share
 * of the children (ga_options.archive_frac) takes its first parent from
 * the kept ones, so that edits which raise a component can meet the edits
 * that make it pay.
 *
 * The archive holds at most GA_ARCHIVE_MAX individuals: when full, the one
 * holding the fewest locations makes room (its locations keep their
 * maxima, with no individual).  It is offered every measured individual
 * in evaluation order, so it is as deterministic as the search.
 */
#include "ga/internal.h"

#include <stdlib.h>
#include <string.h>

bool ga_archive_init(ga *g)
{
    ga_archive *a = &g->arc;
    int n = g->prob.nlocations;
    if (n <= 0) return true;
    a->best = calloc((size_t)n, sizeof *a->best);
    a->holder = malloc((size_t)n * sizeof *a->holder);
    a->entries = calloc(GA_ARCHIVE_MAX, sizeof *a->entries);
    a->refs = calloc(GA_ARCHIVE_MAX, sizeof *a->refs);
    if (!a->best || !a->holder || !a->entries || !a->refs) return false;
    for (int l = 0; l < n; l++) a->holder[l] = -1;
    return true;
}

void ga_archive_free(ga *g)
{
    ga_archive *a = &g->arc;
    for (int i = 0; a->entries && i < GA_ARCHIVE_MAX; i++) free(a->entries[i].genes);
    free(a->entries);
    free(a->refs);
    free(a->best);
    free(a->holder);
    memset(a, 0, sizeof *a);
}

static void release(ga_archive *a, int slot)
{
    if (--a->refs[slot] > 0) return;
    free(a->entries[slot].genes);
    a->entries[slot].genes = NULL;
    a->live--;
}

/* A free slot, or the one holding the fewest locations, emptied. */
static int make_room(ga *g)
{
    ga_archive *a = &g->arc;
    int victim = -1;
    for (int i = 0; i < GA_ARCHIVE_MAX; i++) {
        if (!a->entries[i].genes) return i;
        if (victim < 0 || a->refs[i] < a->refs[victim]) victim = i;
    }
    for (int l = 0; l < g->prob.nlocations; l++)
        if (a->holder[l] == victim) a->holder[l] = -1;
    a->refs[victim] = 1;
    release(a, victim);
    return victim;
}

bool ga_archive_offer(ga *g, const ga_indiv *ind)
{
    ga_archive *a = &g->arc;
    const double *c = ind->locations;
    int n = g->prob.nlocations, wins = 0;
    if (!c || !a->best || ind->status) return true;
    for (int l = 0; l < n; l++)
        if (c[l] > a->best[l]) {
            wins++;
            if (a->holder[l] >= 0) release(a, a->holder[l]);
            a->holder[l] = -1;
        }
    if (wins == 0) return true;
    int slot = make_room(g);
    ga_indiv *e = &a->entries[slot];
    if (!(e->genes = malloc((size_t)g->prob.ngenes * sizeof *e->genes))) return false;
    ga_copy_indiv(g, e, ind);
    a->refs[slot] = wins;
    a->live++;
    for (int l = 0; l < n; l++)
        if (c[l] > a->best[l]) {
            a->best[l] = c[l];
            a->holder[l] = slot;
        }
    return true;
}

const ga_indiv *ga_archive_parent(ga *g)
{
    ga_archive *a = &g->arc;
    if (a->live == 0 || g->opt.archive_frac <= 0 || pcg32_double(&g->rng) >= g->opt.archive_frac) return NULL;
    int k = (int)pcg32_bounded(&g->rng, (uint32_t)a->live);
    for (int i = 0; i < GA_ARCHIVE_MAX; i++)
        if (a->entries[i].genes && k-- == 0) {
            a->children++;
            return &a->entries[i];
        }
    return NULL;
}

int ga_archive_size(const ga *g)
{
    return g->arc.live;
}

int ga_archive_locations(const ga *g)
{
    int held = 0;
    for (int l = 0; g->arc.holder && l < g->prob.nlocations; l++) held += g->arc.holder[l] >= 0;
    return held;
}

long ga_archive_children(const ga *g)
{
    return g->arc.children;
}

/* The slot of the archive's i-th input, -1 past the end. */
static int nth_slot(const ga_archive *a, int i)
{
    for (int s = 0; a->entries && s < GA_ARCHIVE_MAX; s++)
        if (a->entries[s].genes && i-- == 0) return s;
    return -1;
}

const ga_indiv *ga_archive_input(const ga *g, int i, int *held)
{
    int s = i >= 0 ? nth_slot(&g->arc, i) : -1;
    if (s < 0) return NULL;
    *held = g->arc.refs[s];
    return &g->arc.entries[s];
}

double ga_archive_best(const ga *g, int loc, int *input)
{
    const ga_archive *a = &g->arc;
    *input = -1;
    if (!a->best || loc < 0 || loc >= g->prob.nlocations) return 0;
    int s = a->holder[loc];
    for (int i = 0; s >= 0 && i <= s; i++)
        if (a->entries[i].genes) (*input)++;
    return a->best[loc];
}
