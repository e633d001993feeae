/*
 * ga.h — the genetic search: population, selection, crossover, mutation,
 * budgets and stopping; and its baselines.
 *
 * The GA knows genes and alleles, not PTX or GPUs: an individual is a
 * vector of allele ids (atoms of the generator block) and the caller's
 * `evaluate` turns it into a measured time.  Strategies:
 *   - GA_GDIVAN: first population = the caller's special individuals
 *     (`special_frac` of it) + individuals of random-value alleles
 *     (`random_frac`: what random testing would draw, so that gdivan starts
 *     where random testing is) + random individuals of path alleles, every
 *     other one uniform (one allele in every gene), the rest random
 *     combinations; mutation
 *     draws another path allele, or with `random_gene_prob` a new
 *     random-value allele; value-edit genes (`nedit_genes`) on top;
 *   - GA_RANDOM_GA: the same GA from a population of random-value genes,
 *     mutating to random-value genes;
 *   - GA_RANDOM: no genes: every evaluation is a fresh random input named by
 *     a seed (`ga_indiv.seed`) that the caller expands.
 * One "evaluation" is one individual measured; survivors are not measured
 * again, so the same `max_evals` is the same budget for every strategy.
 *
 * A `ga` is a plain instance with no global state (an island of a future
 * MPI run is just another instance); it is deterministic for a given seed
 * unless the time budget or an interruption stops it.
 */
#ifndef WH_GA_GA_H
#define WH_GA_GA_H

#include "core/error.h"
#include "core/pcg32.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum { GA_GDIVAN = 0, GA_RANDOM, GA_RANDOM_GA } ga_strategy;

typedef enum {
    GA_STOP_NONE = 0,
    GA_STOP_CONVERGED,    /* best improved by < epsilon over `patience` generations */
    GA_STOP_EVALS,        /* max_evals spent */
    GA_STOP_TIME,         /* max_seconds spent */
    GA_STOP_INTERRUPTED,  /* the caller's stop_requested() said so */
    GA_STOP_ERROR         /* evaluate() or an allele draw failed */
} ga_stop_reason;

typedef struct {
    int population;          /* individuals per generation */
    double elite_frac;       /* kept unchanged each generation */
    double mutation_prob;    /* probability that a child is mutated */
    double segment_prob;     /* share of mutations that rewrite a segment, not one gene */
    double special_frac;     /* gdivan: share of the first population from specials */
    double random_gene_prob; /* gdivan: a mutation draws random values instead of a path */
    double random_frac;      /* gdivan: share of the first population of random-value genes */
    long max_evals;          /* 0: no limit */
    double max_seconds;      /* 0: no limit */
    double epsilon;          /* relative improvement that counts as progress */
    int patience;            /* generations without progress before stopping; 0: never */
    int keep;                /* distinct best individuals remembered (ga_top); 0: none */
    double archive_frac;     /* with ga_problem.nlocations: share of the children whose
                                first parent comes from the archive (archive.c) */
} ga_options;

/* The paper's defaults: 100, 10 %, 25 %, 30 %, and our 5 % random genes
 * and 20 % random-value individuals in gdivan's first population,
 * epsilon 1 %, patience 2 generations, no budget; and half the mutations
 * are segment mutations.  The paper's mutation replaces one gene; with
 * thousands of genes (one per X threads) one gene is a few threads of the
 * launch and its effect on time is lost in the noise, so a segment
 * mutation gives one new allele to a run of consecutive genes whose length
 * is drawn log-uniformly from 1 to all of them (a warp, a block, the whole
 * launch are all likely sizes).  segment_prob = 0 is the paper's GA.
 * archive_frac is 0.2 (it matters only with locations). */
void ga_options_default(ga_options *o);

typedef struct {
    int *genes;           /* NULL for GA_RANDOM */
    uint64_t seed;        /* GA_RANDOM: seed of the random input */
    double fitness;       /* measured time; < 0 when not measured */
    int status;           /* 0 ok; otherwise a failed run, ranked last */
    long eval_index;      /* which evaluation measured it (1-based) */
    /* Set by `evaluate` (0: not given): a hash of the input it built, by
     * which the top list tells inputs apart (different genes can build one
     * input: an edit that fills a whole buffer, say). */
    uint64_t input_hash;
    /* With ga_problem.nlocations: where `evaluate` writes the run's
     * location counters (nlocations, zeroed before); the GA's own buffer,
     * valid only during that evaluation's bookkeeping (NULL elsewhere). */
    double *locations;
    /* Optional, set by `evaluate` (hot_work 0: none): the part of the
     * input that did the most work in the run, in the caller's numbering,
     * and how much (the hunt: the busiest thread and its instructions).
     * The GA keeps the individual with the most yet for prob.amplify. */
    int64_t hot_unit;
    double hot_work;
} ga_indiv;

typedef struct {
    long eval;            /* 1-based evaluation count */
    int generation;
    double elapsed_s;
    const ga_indiv *ind;  /* the individual just measured */
    double best;          /* best fitness so far */
    bool improved;        /* this evaluation set a new best */
} ga_event;

typedef struct {
    void *ctx;
    int ngenes;               /* atom genes, then the parameter gene if any */
    /* Optional parameter gene (the scaler's tiling): when > 0, the last of
     * the ngenes genes is not an atom but a value in [0, nparam_values).
     * Random individuals draw it uniformly, a child inherits it from either
     * parent, and a quarter of the mutations redraw it instead of an atom. */
    int nparam_values;
    /* Optional value-edit genes (gdivan): the last nedit_genes genes hold
     * codes the caller turns into edits of the built input (0: none, else
     * a 31-bit code).  The first population gives each non-special
     * individual up to all of them at random; a child takes each from either
     * parent; a fifth of the mutations redraw one (a quarter of those
     * clear it). */
    int nedit_genes;
    /* Optional (with edit genes): the edit screen (screen.c).  The
     * generation after the first population tries each code once as one
     * more edit of the best individual, in one of its free edit genes
     * (codes of one group share a gene; groups spread over the free ones;
     * a round takes at most the generation's non-elite places, codes in
     * order); while a round's individual is the best, the next generation
     * screens again from it.  nscreen 0: no screen. */
    const int *screen_codes, *screen_groups;
    int nscreen;
    /* Optional: per-location feedback (archive.c).  With nlocations > 0
     * `evaluate` fills ind->locations (counters of the run, higher = that
     * part of the kernel did more); the GA keeps the individual that drove
     * each location highest and draws a share (archive_frac) of the
     * children's first parents from them.  0: none. */
    int nlocations;
    const int *path_alleles;  /* gdivan: alleles for random combinations/mutations */
    int npath_alleles;
    const int *const *specials; /* gdivan: special individuals (ngenes each, parameter included) */
    int nspecials;
    /* Optional: the caller's own individuals (a user's seed inputs taken
     * apart into genes; ngenes each, edit genes excluded: none), the first
     * nseeds of the first population, once each, before the specials.
     * Gene-based strategies only; at most a population of them. */
    const int *const *seeds;
    int nseeds;
    /* A new random-value allele for gene `gene` (a mutation's allele may
     * also land on the genes after it) into *allele: any int, negative ones
     * included (the GA only copies alleles); false on failure (err filled). */
    bool (*new_random_allele)(void *ctx, pcg32 *rng, int gene, int *allele, wh_error *err);
    /* Measure one individual: fill ind->fitness and ind->status.  A failed
     * kernel is a status, not an error; false stops the search.  `worker`
     * (0 .. workers-1) names the thread calling it: with workers > 1 it is
     * called from that many threads at once, one individual each, so it
     * must keep per-worker state apart and touch nothing else that changes.
     * ind->eval_index is already the evaluation number it will have. */
    bool (*evaluate)(void *ctx, int worker, ga_indiv *ind, wh_error *err);
    /* Optional: when an individual has done more hot_work than any before
     * it, the next generation gets one child from this: genes[0..ngenes)
     * for it, built from that individual (the hunt gives the busiest
     * thread's input to every thread, hunt_lanes.c).  Called between
     * generations, never while `evaluate` runs. */
    bool (*amplify)(void *ctx, const ga_indiv *hot, int *genes, wh_error *err);
    /* Threads measuring each generation's individuals at once (0 or 1: the
     * caller's thread only).  Individuals are taken in order and their
     * results recorded in order, so a deterministic `evaluate` gives the
     * same run whatever the count. */
    int workers;
    /* Optional: called after every evaluation, in evaluation order, never
     * from two threads at once nor while `new_random_allele` runs; false
     * stops the search (err filled). */
    bool (*on_eval)(void *ctx, const ga_event *ev, wh_error *err);
    /* Optional: called after every generation. */
    bool (*on_generation)(void *ctx, int generation, wh_error *err);
    /* Optional: polled before every evaluation (Ctrl-C), never from two
     * threads at once. */
    bool (*stop_requested)(void *ctx);
    /* Optional (islands): after every generation, the island's own stop
     * reason (GA_STOP_NONE: go on) in, the one the whole run agrees on
     * out, so that islands stop together. */
    ga_stop_reason (*agree_stop)(void *ctx, ga_stop_reason own);
} ga_problem;

typedef struct ga ga;

ga *ga_new(const ga_problem *prob, const ga_options *opt, ga_strategy strategy, uint64_t seed,
           wh_error *err);
void ga_free(ga *g);
/* Runs until a stop condition; false only for GA_STOP_ERROR (err filled). */
bool ga_run(ga *g, wh_error *err);

const ga_indiv *ga_best(const ga *g);

/* Migration between islands (migrate.c).  The population's n best
 * measured individuals, best first, into out[0..n) whose genes arrays the
 * caller gives (ngenes each; NULL for GA_RANDOM); returns how many. */
int ga_emigrants(const ga *g, ga_indiv *out, int n);
/* Individuals from another island take the places of the population's
 * worst (fitness as measured there; they are not measured again and do
 * not count as this island's evaluations or best), then the population is
 * ranked again.  Call between generations (from on_generation). */
void ga_immigrate(ga *g, const ga_indiv *in, int n);
ga_stop_reason ga_get_stop_reason(const ga *g);
const char *ga_stop_reason_name(ga_stop_reason r);
const char *ga_strategy_name(ga_strategy s);
bool ga_strategy_from_name(const char *name, ga_strategy *out);
long ga_evals(const ga *g);
int ga_generation(const ga *g);
long ga_evals_to_best(const ga *g);
/* The archive (archive.c): individuals kept, locations with one, and
 * children bred from it so far. */
int ga_archive_size(const ga *g);
int ga_archive_locations(const ga *g);
long ga_archive_children(const ga *g);
/* The archive's i-th input (0 .. ga_archive_size - 1) and how many
 * locations it holds; NULL past the end. */
const ga_indiv *ga_archive_input(const ga *g, int i, int *held);
/* Location loc's highest count so far, and which archive input holds it
 * (an index for ga_archive_input; -1: none). */
double ga_archive_best(const ga *g, int loc, int *input);
/* Rounds of the edit screen so far (screen.c). */
int ga_screen_rounds(const ga *g);
/* Children made by prob.amplify so far, and the individual with the most
 * hot_work yet (NULL: none). */
long ga_amplified(const ga *g);
const ga_indiv *ga_hot(const ga *g);
double ga_time_to_best(const ga *g);
double ga_elapsed(const ga *g);
/* The current population (after the last completed generation). */
const ga_indiv *ga_population(const ga *g, int *count);
/* The `keep` best distinct individuals measured so far (failed runs never),
 * best first, ties in evaluation order; *count receives how many.  Two are
 * the same when their genes (GA_RANDOM: their seeds) are, and then the
 * higher measurement counts.  The first is ga_best(). */
const ga_indiv *ga_top(const ga *g, int *count);

/* Checkpoints: the whole search state (population, best, counters, random
 * stream, elapsed time) in one binary file, written atomically.  A GA made
 * by ga_new with the same problem shape and options, then ga_restore'd,
 * continues exactly where the saved one stopped (stop reason cleared).
 * A checkpoint without the top list (written before it existed) restores
 * with an empty one. */
bool ga_checkpoint(const ga *g, const char *path, wh_error *err);
bool ga_restore(ga *g, const char *path, wh_error *err);

#endif
