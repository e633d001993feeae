/*
 * internal.h — the GA instance, shared by ga.c (loop), operators.c and
 * screen.c.
 */
#ifndef WH_GA_INTERNAL_H
#define WH_GA_INTERNAL_H

#include "ga/ga.h"

/* Individuals the archive (archive.c) keeps at most. */
#define GA_ARCHIVE_MAX 128

/* Per-location feedback (archive.c): per location, the highest count and
 * the slot of the individual that reached it. */
typedef struct {
    double *best;           /* nlocations; NULL: no archive */
    int *holder;            /* nlocations: slot, -1 none */
    ga_indiv *entries;      /* GA_ARCHIVE_MAX slots; genes NULL: free */
    int *refs;              /* locations each slot holds */
    int live;               /* slots in use */
    long children;          /* children that took a parent from it */
} ga_archive;

/* Where the edit screen (screen.c) stands. */
typedef enum { GA_SCREEN_PENDING = 0, GA_SCREEN_ROUND, GA_SCREEN_DONE } ga_screen_state;

struct ga {
    ga_problem prob;
    ga_options opt;
    ga_strategy strategy;
    uint64_t seed;
    pcg32 rng;
    ga_indiv *pop, *next;   /* npop each; pop sorted best first after a generation */
    int npop;
    int npop_valid;         /* measured individuals in pop */
    bool evaluated_all;     /* the last generation was measured completely */
    ga_indiv best;
    ga_indiv *top;          /* opt.keep slots, ntop used, best first */
    int ntop;
    long evals, evals_to_best;
    int generation, stale;
    double t0, time_to_best, elapsed_before;
    ga_stop_reason stop;
    bool resumed;           /* restored from a checkpoint: skip the first generation */
    ga_screen_state screen_state;
    long screen_first, screen_last;   /* the last round's evaluations */
    int screen_rounds;
    ga_archive arc;
    ga_indiv hot;           /* prob.amplify: the most hot_work yet (hot_work 0: none) */
    bool hot_fresh;         /* hot is newer than the last amplified child */
    long amplified;         /* children made by prob.amplify */
};

void ga_copy_indiv(const ga *g, ga_indiv *dst, const ga_indiv *src);
double ga_rank_value(const ga_indiv *ind);
/* Measures inds[0..n) in order until the budget is spent (then g->stop is
 * set), on prob.workers threads, and records each result in order.
 * Returns how many were measured (a prefix), -1 on an error (g->stop =
 * GA_STOP_ERROR, err filled; the results before the failed one are kept). */
int ga_measure(ga *g, ga_indiv *inds, int n, wh_error *err);
void ga_sort(ga *g, ga_indiv *pop, int n);
/* Offer a measured individual to the top list (ga_top). */
void ga_top_offer(ga *g, const ga_indiv *ind);
bool ga_first_generation(ga *g, wh_error *err);
bool ga_next_generation(ga *g, wh_error *err);
/* The edit screen's round, if one is due, as next[from..); returns the
 * index after its last child (from: no round). */
int ga_screen_children(ga *g, int from);
/* The amplified child (prob.amplify) as next[from], if one is due; returns
 * the index after it (from: none), -1 on an error (g->stop set). */
int ga_amplified_child(ga *g, int from, wh_error *err);
/* archive.c: init (false: out of memory), free, offer a measured
 * individual with its locations (false: out of memory), and a parent
 * drawn from it with probability archive_frac (NULL: take one from the
 * population). */
bool ga_archive_init(ga *g);
void ga_archive_free(ga *g);
bool ga_archive_offer(ga *g, const ga_indiv *ind);
const ga_indiv *ga_archive_parent(ga *g);

#endif
