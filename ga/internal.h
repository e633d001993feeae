/*
 * internal.h — the GA instance, shared by ga.c (loop), operators.c and
 * screen.c.
 */
#ifndef WH_GA_INTERNAL_H
#define WH_GA_INTERNAL_H

#include "ga/ga.h"

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

#endif
