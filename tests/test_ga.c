/*
 * test_ga.c — the genetic search on a synthetic problem whose optimum is
 * known: fitness = sum of allele weights, path allele a weighing a, so the
 * best individual has the heaviest allele in every gene.
 */
#include <criterion/criterion.h>

#include "ga/ga.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NGENES 32
#define NPATHS 8
#define MAX_ALLELES 200000

typedef struct {
    double weight[MAX_ALLELES];
    int nalleles;
    int path_alleles[NPATHS];
    long fail_every;         /* every n-th evaluation fails (0: never) */
    long evals_seen;
    long interrupt_after;    /* 0: never */
    double history[20000];
    long nhistory;
    double last_best;
    bool best_went_down;
    void *user;              /* extra state of a test's callbacks */
    long amplify_calls;      /* synth_amplify */
    double amplified_fitness;   /* the last amplified child's, not yet seen (0: none) */
    int amplified_generation, last_generation;
    long amplified_seen;
} synth;

static bool synth_random_allele(void *ctx, pcg32 *rng, int gene, int *allele, wh_error *err)
{
    (void)gene;
    synth *s = ctx;
    if (s->nalleles == MAX_ALLELES) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "synthetic pool full");
        return false;
    }
    s->weight[s->nalleles] = 3.5 * pcg32_double(rng); /* random values: mediocre on average */
    *allele = s->nalleles++;
    return true;
}

/* Fitness of a GA_RANDOM individual: a random vector named by its seed. */
static double random_vector_fitness(uint64_t seed)
{
    pcg32 r;
    pcg32_seed(&r, seed, 1);
    double f = 0;
    for (int k = 0; k < NGENES; k++) f += pcg32_bounded(&r, NPATHS);
    return f;
}

static bool synth_evaluate(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    synth *s = ctx;
    (void)worker;
    s->evals_seen++;
    if (ind->genes) {
        double f = 0;
        for (int k = 0; k < NGENES; k++) {
            f += s->weight[ind->genes[k]];
            /* the "busiest lane": the heaviest gene, its weight + 1 its work */
            if (s->weight[ind->genes[k]] + 1 > ind->hot_work) {
                ind->hot_work = s->weight[ind->genes[k]] + 1;
                ind->hot_unit = k;
            }
        }
        ind->fitness = f;
    } else {
        ind->fitness = random_vector_fitness(ind->seed);
    }
    if (s->fail_every && s->evals_seen % s->fail_every == 0) {
        ind->status = 1;
        ind->fitness = 1e9; /* a failed run's time must not count */
    }
    return true;
}

static bool synth_on_eval(void *ctx, const ga_event *ev, wh_error *err)
{
    synth *s = ctx;
    (void)err;
    if (s->nhistory < 20000) s->history[s->nhistory++] = ev->ind->fitness;
    s->last_generation = ev->generation;
    if (s->amplified_fitness > 0 && ev->generation == s->amplified_generation &&
        fabs(ev->ind->fitness - s->amplified_fitness) < 1e-9 * s->amplified_fitness) {
        s->amplified_seen++;
        s->amplified_fitness = 0;
    }
    if (ev->best < s->last_best) s->best_went_down = true;
    s->last_best = ev->best;
    return true;
}

static bool synth_stop(void *ctx)
{
    synth *s = ctx;
    return s->interrupt_after && s->evals_seen >= s->interrupt_after;
}

/* Lane amplification's stand-in: every gene on the hot individual's
 * heaviest allele (its child weighs NGENES times that allele). */
static bool synth_amplify(void *ctx, const ga_indiv *hot, int *genes, wh_error *err)
{
    synth *s = ctx;
    (void)err;
    cr_assert(hot->hot_work > 0 && hot->hot_unit >= 0 && hot->hot_unit < NGENES);
    int allele = hot->genes[hot->hot_unit];
    cr_assert_eq(s->weight[allele] + 1, hot->hot_work);
    for (int k = 0; k < NGENES; k++) genes[k] = allele;
    s->amplify_calls++;
    s->amplified_fitness = NGENES * s->weight[allele];
    s->amplified_generation = s->last_generation + 1;
    return true;
}

static synth *synth_new(void)
{
    synth *s = calloc(1, sizeof *s);
    for (int a = 0; a < NPATHS; a++) {
        s->weight[a] = a;
        s->path_alleles[a] = a;
    }
    s->nalleles = NPATHS;
    return s;
}

static ga_problem synth_problem(synth *s)
{
    ga_problem p;
    memset(&p, 0, sizeof p);
    p.ctx = s;
    p.ngenes = NGENES;
    p.path_alleles = s->path_alleles;
    p.npath_alleles = NPATHS;
    p.new_random_allele = synth_random_allele;
    p.evaluate = synth_evaluate;
    p.on_eval = synth_on_eval;
    p.stop_requested = synth_stop;
    return p;
}

static double run_best(ga_strategy strat, long evals, uint64_t seed, long *used)
{
    synth *s = synth_new();
    ga_problem p = synth_problem(s);
    ga_options o;
    ga_options_default(&o);
    o.max_evals = evals;
    o.patience = 0;
    wh_error err;
    ga *g = ga_new(&p, &o, strat, seed, &err);
    cr_assert(g, "%s", err.msg);
    cr_assert(ga_run(g, &err), "%s", err.msg);
    double best = ga_best(g)->fitness;
    if (used) *used = ga_evals(g);
    cr_expect_eq(ga_get_stop_reason(g), GA_STOP_EVALS);
    cr_expect_not(s->best_went_down, "best-so-far never decreases");
    ga_free(g);
    free(s);
    return best;
}

Test(ga, gdivan_approaches_the_optimum_random_does_not)
{
    double max = (NPATHS - 1) * NGENES;
    double gd = run_best(GA_GDIVAN, 3000, 1, NULL);
    double rnd = run_best(GA_RANDOM, 3000, 1, NULL);
    cr_expect_geq(gd, 0.85 * max, "gdivan best %g of %g", gd, max);
    cr_expect_lt(rnd, 0.8 * max, "random best %g of %g", rnd, max);
    cr_expect_gt(gd, rnd);
}

Test(ga, same_budget_for_every_strategy)
{
    for (int s = 0; s < 3; s++) {
        long used = 0;
        run_best((ga_strategy)s, 437, 9, &used);
        cr_expect_eq(used, 437, "%s used %ld evaluations", ga_strategy_name((ga_strategy)s), used);
    }
}

static void run_history(uint64_t seed, ga_strategy strat, double *out, long *n)
{
    synth *s = synth_new();
    ga_problem p = synth_problem(s);
    ga_options o;
    ga_options_default(&o);
    o.max_evals = 600;
    o.patience = 0;
    wh_error err;
    ga *g = ga_new(&p, &o, strat, seed, &err);
    cr_assert(ga_run(g, &err));
    memcpy(out, s->history, (size_t)s->nhistory * sizeof *out);
    *n = s->nhistory;
    ga_free(g);
    free(s);
}

Test(ga, same_seed_same_run)
{
    static double a[20000], b[20000], c[20000];
    long na, nb, nc;
    for (int st = 0; st < 3; st++) {
        run_history(42, (ga_strategy)st, a, &na);
        run_history(42, (ga_strategy)st, b, &nb);
        run_history(43, (ga_strategy)st, c, &nc);
        cr_assert_eq(na, nb);
        cr_expect_eq(memcmp(a, b, (size_t)na * sizeof *a), 0, "identical histories for one seed");
        cr_expect_neq(memcmp(a, c, (size_t)na * sizeof *a), 0, "another seed, another run");
    }
}

Test(ga, converges_on_a_flat_landscape)
{
    synth *s = synth_new();
    for (int a = 0; a < NPATHS; a++) s->weight[a] = 1.0; /* every individual is equal */
    ga_problem p = synth_problem(s);
    ga_options o;
    ga_options_default(&o);
    o.random_gene_prob = 0;
    o.random_frac = 0;  /* random-value alleles are not flat */
    wh_error err;
    ga *g = ga_new(&p, &o, GA_GDIVAN, 3, &err);
    cr_assert(ga_run(g, &err));
    cr_expect_eq(ga_get_stop_reason(g), GA_STOP_CONVERGED);
    /* first generation 100, then `patience` (2) generations of 90 children */
    cr_expect_eq(ga_evals(g), 100 + 2 * 90);
    ga_free(g);
    free(s);
}

Test(ga, specials_fill_their_share_of_the_first_population)
{
    synth *s = synth_new();
    int special[NGENES];
    for (int k = 0; k < NGENES; k++) special[k] = NPATHS - 1;
    const int *specials[1] = { special };
    ga_problem p = synth_problem(s);
    p.specials = specials;
    p.nspecials = 1;
    ga_options o;
    ga_options_default(&o);
    o.max_evals = 100;
    wh_error err;
    ga *g = ga_new(&p, &o, GA_GDIVAN, 5, &err);
    cr_assert(ga_run(g, &err));
    /* The specials come first; a uniform random individual may happen to
     * draw the optimal allele too, so only the first 30 are counted. */
    cr_assert_geq(s->nhistory, 30);
    for (long i = 0; i < 30; i++) cr_expect_eq(s->history[i], (NPATHS - 1) * NGENES, "evaluation %ld", i + 1);
    int optimal = 0;
    for (long i = 0; i < s->nhistory; i++) optimal += s->history[i] == (NPATHS - 1) * NGENES;
    cr_expect_lt(optimal, 40, "30 %% special individuals, and a few lucky uniform ones");
    cr_expect_eq(ga_evals_to_best(g), 1);
    ga_free(g);
    free(s);
}

Test(ga, failed_runs_rank_last_and_never_become_best)
{
    synth *s = synth_new();
    s->fail_every = 7;
    ga_problem p = synth_problem(s);
    ga_options o;
    ga_options_default(&o);
    o.max_evals = 500;
    o.patience = 0;
    wh_error err;
    ga *g = ga_new(&p, &o, GA_GDIVAN, 11, &err);
    cr_assert(ga_run(g, &err));
    cr_expect_lt(ga_best(g)->fitness, 1e9);
    cr_expect_eq(ga_best(g)->status, 0);
    ga_free(g);
    free(s);
}

Test(ga, interruption_stops_between_evaluations)
{
    synth *s = synth_new();
    s->interrupt_after = 57;
    ga_problem p = synth_problem(s);
    ga_options o;
    ga_options_default(&o);
    wh_error err;
    ga *g = ga_new(&p, &o, GA_RANDOM_GA, 2, &err);
    cr_assert(ga_run(g, &err));
    cr_expect_eq(ga_get_stop_reason(g), GA_STOP_INTERRUPTED);
    cr_expect_eq(ga_evals(g), 57);
    cr_expect(ga_best(g) != NULL);
    ga_free(g);
    free(s);
}

Test(ga, bad_options_are_user_errors)
{
    synth *s = synth_new();
    ga_problem p = synth_problem(s);
    ga_options o;
    ga_options_default(&o);
    o.population = 1;
    wh_error err;
    cr_expect_null(ga_new(&p, &o, GA_GDIVAN, 1, &err));
    cr_expect(strstr(err.msg, "population"));
    ga_options_default(&o);
    p.npath_alleles = 0;
    cr_expect_null(ga_new(&p, &o, GA_GDIVAN, 1, &err));
    cr_expect(strstr(err.msg, "valid path"), "%s", err.msg);
    free(s);
}

/* Resume: a run restored from the checkpoint of generation 3 measures
 * exactly what the uninterrupted run measured after that point. */
typedef struct {
    synth *s;
    const char *path;
    ga *g;
    int at;
    long evals_at;
} ckp_ctx;

static bool ckp_save_at(void *ctx, int generation, wh_error *err)
{
    ckp_ctx *c = ((synth *)ctx)->user;
    if (generation == c->at) {
        c->evals_at = ga_evals(c->g);
        return ga_checkpoint(c->g, c->path, err);
    }
    return true;
}

Test(ga, resume_continues_exactly)
{
    char path[] = "/tmp/wh_ckp_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    for (int st = 0; st < 3; st++) {
        synth *a = synth_new();
        ga_problem p = synth_problem(a);
        p.on_generation = ckp_save_at;
        ga_options o;
        ga_options_default(&o);
        o.max_evals = 700;
        o.patience = 0;
        o.keep = 5;
        wh_error err;
        p.amplify = synth_amplify;
        ckp_ctx c = { a, path, NULL, 3, 0 };
        a->user = &c;
        c.g = ga_new(&p, &o, (ga_strategy)st, 77, &err);
        cr_assert(ga_run(c.g, &err), "%s", err.msg);
        cr_assert_gt(c.evals_at, 0);

        synth *b = synth_new();
        /* the random-value alleles drawn before the checkpoint must exist */
        memcpy(b->weight, a->weight, sizeof a->weight);
        b->nalleles = a->nalleles;
        ga_problem q = synth_problem(b);
        q.amplify = synth_amplify;
        ga *r = ga_new(&q, &o, (ga_strategy)st, 77, &err);
        cr_assert(ga_restore(r, path, &err), "%s", err.msg);
        cr_assert(ga_run(r, &err), "%s", err.msg);
        cr_expect_eq(ga_evals(r), 700);
        cr_assert_eq(b->nhistory, 700 - c.evals_at);
        for (long i = 0; i < b->nhistory; i++)
            cr_assert_eq(b->history[i], a->history[c.evals_at + i], "%s eval %ld",
                         ga_strategy_name((ga_strategy)st), c.evals_at + i + 1);
        cr_expect_eq(ga_best(r)->fitness, ga_best(c.g)->fitness);
        cr_expect_eq(ga_amplified(r), ga_amplified(c.g), "%s", ga_strategy_name((ga_strategy)st));
        cr_expect_eq(ga_amplified(r) > 0, st != GA_RANDOM, "only gene-based strategies amplify");
        int nr, nc;
        const ga_indiv *tr = ga_top(r, &nr), *tc = ga_top(c.g, &nc);
        cr_expect_eq(nr, 5);
        cr_assert_eq(nr, nc, "the top list survives the checkpoint");
        for (int k = 0; k < nr; k++) {
            cr_expect_eq(tr[k].fitness, tc[k].fitness, "top %d", k);
            cr_expect_eq(tr[k].eval_index, tc[k].eval_index, "top %d", k);
        }
        ga_free(r);
        ga_free(c.g);
        free(a);
        free(b);
    }
    unlink(path);
}

/* Each time the hot record moves, the next generation measures one
 * amplified child (all genes on the record's heaviest allele), and only
 * then; a strictly higher hot_work is a new record. */
Test(ga, a_new_hot_record_gives_the_next_generation_an_amplified_child)
{
    synth *s = synth_new();
    /* paths below the random alleles (up to 3.5), which only mutations
     * bring: the record moves as they come */
    for (int a = 0; a < NPATHS; a++) s->weight[a] = 0.1 * a;
    ga_problem p = synth_problem(s);
    p.amplify = synth_amplify;
    ga_options o;
    ga_options_default(&o);
    o.max_evals = 3000;
    o.patience = 0;
    o.random_frac = 0;
    wh_error err;
    ga *g = ga_new(&p, &o, GA_GDIVAN, 5, &err);
    cr_assert(g, "%s", err.msg);
    cr_assert(ga_run(g, &err), "%s", err.msg);
    cr_expect_geq(s->amplify_calls, 2);
    cr_expect_eq(ga_amplified(g), s->amplify_calls);
    /* every child but perhaps the last (the budget may end first) was measured the generation after */
    cr_expect_geq(s->amplified_seen, s->amplify_calls - 1, "%ld of %ld children seen", s->amplified_seen,
                  s->amplify_calls);
    const ga_indiv *hot = ga_hot(g);
    cr_assert(hot);
    double most = 0;
    for (int a = 0; a < s->nalleles; a++)
        if (s->weight[a] + 1 > most) most = s->weight[a] + 1;
    cr_expect_leq(hot->hot_work, most);
    cr_expect_eq(hot->hot_work, s->weight[hot->genes[hot->hot_unit]] + 1);
    ga_free(g);
    free(s);
}

Test(ga, restore_refuses_a_foreign_checkpoint)
{
    char path[] = "/tmp/wh_ckp_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_eq(write(fd, "garbage!garbage!", 16), 16);
    close(fd);
    synth *s = synth_new();
    ga_problem p = synth_problem(s);
    ga_options o;
    ga_options_default(&o);
    wh_error err;
    ga *g = ga_new(&p, &o, GA_GDIVAN, 1, &err);
    cr_expect_not(ga_restore(g, path, &err));
    cr_expect(strstr(err.msg, "not a warphunt checkpoint"), "%s", err.msg);
    ga_free(g);
    free(s);
    unlink(path);
}

/* ---- the top list ------------------------------------------------------------ */

/* Every successful evaluation, to compute the expected top list by brute force. */
typedef struct {
    int genes[2000][NGENES];
    uint64_t seed[2000];
    double fitness[2000];
    long eval[2000];
    int n;
    bool genomes;
} seen_inputs;

static bool record_eval(void *ctx, const ga_event *ev, wh_error *err)
{
    seen_inputs *seen = ((synth *)ctx)->user;
    const ga_indiv *ind = ev->ind;
    (void)err;
    if (ind->status || seen->n == 2000) return true;
    for (int i = 0; i < seen->n; i++)
        if (seen->genomes ? !memcmp(seen->genes[i], ind->genes, sizeof seen->genes[i]) : seen->seed[i] == ind->seed)
            return true;   /* the same input again: the synthetic fitness is the same too */
    if (ind->genes) memcpy(seen->genes[seen->n], ind->genes, sizeof seen->genes[0]);
    seen->seed[seen->n] = ind->seed;
    seen->fitness[seen->n] = ind->fitness;
    seen->eval[seen->n++] = ev->eval;
    return true;
}

Test(ga, top_list_holds_the_best_distinct_inputs)
{
    for (int st = 0; st < 3; st++) {
        synth *s = synth_new();
        s->fail_every = 7;   /* failed runs (fitness 1e9) must never enter */
        seen_inputs *seen = calloc(1, sizeof *seen);
        seen->genomes = st != GA_RANDOM;
        s->user = seen;
        ga_problem p = synth_problem(s);
        p.on_eval = record_eval;
        ga_options o;
        ga_options_default(&o);
        o.max_evals = 600;
        o.patience = 0;
        o.keep = 12;
        wh_error err;
        ga *g = ga_new(&p, &o, (ga_strategy)st, 5, &err);
        cr_assert(g, "%s", err.msg);
        cr_assert(ga_run(g, &err), "%s", err.msg);
        int n;
        const ga_indiv *top = ga_top(g, &n);
        cr_assert_eq(n, 12, "%s", ga_strategy_name((ga_strategy)st));
        cr_expect_eq(top[0].fitness, ga_best(g)->fitness, "the first is the best");
        /* expected: distinct inputs by fitness, ties by first evaluation */
        bool *taken = calloc((size_t)seen->n, sizeof *taken);
        for (int k = 0; k < n; k++) {
            int pick = -1;
            for (int i = 0; i < seen->n; i++)
                if (!taken[i] && (pick < 0 || seen->fitness[i] > seen->fitness[pick])) pick = i;
            cr_assert_geq(pick, 0);
            taken[pick] = true;
            cr_expect_eq(top[k].fitness, seen->fitness[pick], "%s top %d", ga_strategy_name((ga_strategy)st), k);
            cr_expect_eq(top[k].eval_index, seen->eval[pick], "%s top %d", ga_strategy_name((ga_strategy)st), k);
            cr_expect_lt(top[k].fitness, 1e9);
        }
        free(taken);
        ga_free(g);
        free(seen);
        free(s);
    }
}

/* A checkpoint written before the top list existed ends after the
 * population: it restores with an empty list.  A cut-off list is refused. */
Test(ga, checkpoint_without_a_top_list_restores)
{
    char path[] = "/tmp/wh_ckp_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    synth *s = synth_new();
    ga_problem p = synth_problem(s);
    ga_options o;
    ga_options_default(&o);
    o.max_evals = 300;
    o.keep = 4;
    wh_error err;
    ga *g = ga_new(&p, &o, GA_GDIVAN, 3, &err);
    cr_assert(ga_run(g, &err), "%s", err.msg);
    cr_assert(ga_checkpoint(g, path, &err), "%s", err.msg);
    ga_free(g);

    FILE *f = fopen(path, "rb");
    cr_assert(f);
    static char buf[1 << 20];
    size_t size = fread(buf, 1, sizeof buf, f);
    fclose(f);
    long at = -1;
    for (size_t i = 0; i + 8 <= size && at < 0; i++)
        if (!memcmp(buf + i, "WHGATOP2", 8)) at = (long)i;
    cr_assert_geq(at, 0, "the top list is in the checkpoint");

    cr_assert_eq(truncate(path, at + 20), 0);   /* inside the first member */
    g = ga_new(&p, &o, GA_GDIVAN, 3, &err);
    cr_expect_not(ga_restore(g, path, &err));
    cr_expect(strstr(err.msg, "top list"), "%s", err.msg);
    ga_free(g);

    cr_assert_eq(truncate(path, at), 0);
    g = ga_new(&p, &o, GA_GDIVAN, 3, &err);
    cr_assert(ga_restore(g, path, &err), "%s", err.msg);
    int n;
    ga_top(g, &n);
    cr_expect_eq(n, 0);
    ga_free(g);
    free(s);
    unlink(path);
}

/* ---- the parameter gene and segment mutations ------------------------------ */

#define NPARAM 12

/* Fitness = allele weights + 100 when the parameter gene is NPARAM - 1;
 * records whether a parameter ever left its range. */
static bool param_evaluate(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    synth *s = ctx;
    (void)worker;
    int param = ind->genes[NGENES];
    if (param < 0 || param >= NPARAM) s->best_went_down = true; /* reused as "out of range" */
    double f = param == NPARAM - 1 ? 100 : 0;
    for (int k = 0; k < NGENES; k++) f += s->weight[ind->genes[k]];
    ind->fitness = f;
    s->evals_seen++;
    return true;
}

Test(ga, parameter_gene_stays_in_range_and_evolves)
{
    synth *s = synth_new();
    ga_problem p = synth_problem(s);
    p.ngenes = NGENES + 1;
    p.nparam_values = NPARAM;
    p.evaluate = param_evaluate;
    p.on_eval = NULL;
    ga_options o;
    ga_options_default(&o);
    o.max_evals = 1000;
    o.patience = 0;
    wh_error err;
    ga *g = ga_new(&p, &o, GA_GDIVAN, 3, &err);
    cr_assert(g, "%s", err.msg);
    cr_assert(ga_run(g, &err), "%s", err.msg);
    cr_expect_not(s->best_went_down, "a parameter gene left [0, %d)", NPARAM);
    cr_expect_eq(ga_best(g)->genes[NGENES], NPARAM - 1);
    cr_expect_geq(ga_best(g)->fitness, 100);
    ga_free(g);
    free(s);
}

/* Fitness = number of neighbouring genes holding the same allele.  With
 * random-value alleles every draw is a new allele, so crossover and
 * one-gene mutations never make two neighbours equal: only a segment
 * mutation can. */
static bool runs_evaluate(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    (void)ctx, (void)worker;
    double f = 0;
    for (int k = 1; k < NGENES; k++) f += ind->genes[k] == ind->genes[k - 1];
    ind->fitness = f;
    return true;
}

static double runs_best(double segment_prob)
{
    synth *s = synth_new();
    ga_problem p = synth_problem(s);
    p.evaluate = runs_evaluate;
    p.on_eval = NULL;
    ga_options o;
    ga_options_default(&o);
    o.max_evals = 2000;
    o.patience = 0;
    o.segment_prob = segment_prob;
    wh_error err;
    ga *g = ga_new(&p, &o, GA_RANDOM_GA, 9, &err);
    cr_assert(g, "%s", err.msg);
    cr_assert(ga_run(g, &err), "%s", err.msg);
    double best = ga_best(g)->fitness;
    ga_free(g);
    free(s);
    return best;
}

Test(ga, segment_mutations_build_runs_of_one_allele)
{
    cr_expect_eq(runs_best(0), 0, "the paper's one-gene mutation cannot repeat an allele");
    double best = runs_best(0.5);
    cr_expect_geq(best, NGENES / 2, "segment mutations: best %g of %d", best, NGENES - 1);
}

Test(ga, half_the_random_first_individuals_are_uniform)
{
    synth *s = synth_new();
    ga_problem p = synth_problem(s);
    p.evaluate = runs_evaluate;
    ga_options o;
    ga_options_default(&o);
    o.max_evals = 100;
    o.random_frac = 0;
    wh_error err;
    ga *g = ga_new(&p, &o, GA_GDIVAN, 4, &err);
    cr_assert(ga_run(g, &err), "%s", err.msg);
    cr_assert_eq(s->nhistory, 100);
    int uniform = 0;
    for (long i = 0; i < s->nhistory; i++) uniform += s->history[i] == NGENES - 1;
    /* 50 uniform by construction; a random combination of 8 alleles is
     * uniform with probability 8^-31. */
    cr_expect_eq(uniform, 50);
    ga_free(g);
    free(s);
}

/* random_frac of gdivan's first population draws a new random-value allele
 * in every gene (the synthetic problem's random alleles are numbered from
 * NPATHS up): 20 of 100 by default, none with 0. */
Test(ga, gdivan_starts_with_random_value_individuals)
{
    for (int pass = 0; pass < 2; pass++) {
        synth *s = synth_new();
        ga_problem p = synth_problem(s);
        ga_options o;
        ga_options_default(&o);
        o.max_evals = 100;
        o.random_gene_prob = 0;
        if (pass) o.random_frac = 0;
        wh_error err;
        ga *g = ga_new(&p, &o, GA_GDIVAN, 5, &err);
        cr_assert(ga_run(g, &err), "%s", err.msg);
        cr_expect_eq(s->nalleles - NPATHS, pass ? 0 : 20 * NGENES, "random alleles drawn: %d",
                     s->nalleles - NPATHS);
        ga_free(g);
        free(s);
    }
}

/* Value-edit genes: the synthetic fitness adds 10 for every edit gene whose
 * code is a multiple of 8, so the GA must draw, keep and recombine them. */
#define NEDITS 2

static bool edit_evaluate(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    if (!synth_evaluate(ctx, worker, ind, err)) return false;
    for (int k = NGENES; k < NGENES + NEDITS; k++)
        if (ind->genes[k] != 0 && ind->genes[k] % 8 == 0) ind->fitness += 10;
    return true;
}

static void check_first_population_edits(ga *g, int nspecial)
{
    int count, with_edits = 0;
    const ga_indiv *pop = ga_population(g, &count);
    for (int i = 0; i < count; i++) {
        bool any = false;
        for (int k = NGENES; k < NGENES + NEDITS; k++) {
            cr_expect_geq(pop[i].genes[k], 0);
            any |= pop[i].genes[k] != 0;
        }
        with_edits += any;
        /* specials are the callers' individuals: no edit is added to them */
        if (pop[i].eval_index <= nspecial) cr_expect_not(any, "special %d got an edit", i);
    }
    cr_expect_gt(with_edits, count / 3, "%d of %d first individuals edit", with_edits, count);
    cr_expect_lt(with_edits, count, "some first individuals edit nothing");
}

Test(ga, edit_genes_are_drawn_kept_and_recombined)
{
    synth *s = synth_new();
    ga_problem p = synth_problem(s);
    p.ngenes = NGENES + NEDITS;
    p.nedit_genes = NEDITS;
    p.evaluate = edit_evaluate;
    int special[NGENES + NEDITS] = { 0 };
    const int *specials[1] = { special };
    p.specials = specials;
    p.nspecials = 1;
    ga_options o;
    ga_options_default(&o);
    o.patience = 0;
    o.max_evals = 100;
    wh_error err;
    ga *g = ga_new(&p, &o, GA_GDIVAN, 3, &err);
    cr_assert(g, "%s", err.msg);
    cr_assert(ga_run(g, &err), "%s", err.msg);
    check_first_population_edits(g, 30);
    ga_free(g);
    s->nalleles = NPATHS;
    o.max_evals = 3000;
    g = ga_new(&p, &o, GA_GDIVAN, 3, &err);
    cr_assert(ga_run(g, &err), "%s", err.msg);
    const ga_indiv *b = ga_best(g);
    for (int k = NGENES; k < NGENES + NEDITS; k++)
        cr_expect(b->genes[k] != 0 && b->genes[k] % 8 == 0, "best's edit gene %d is %d", k, b->genes[k]);
    ga_free(g);
    free(s);
}

/* The edit screen: screen codes (negative, as real ones with bit 31 set
 * are; random codes never are) that add weight when some edit gene holds
 * them.  A and B help, and only screening finds them: a round tries each
 * code on the best, the next round starts from the round's winner. */
#define NSCREEN 12
#define SCREEN_A (-100)
#define SCREEN_B (-60)

static int screen_codes[NSCREEN], screen_groups[NSCREEN];

static bool screen_evaluate(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    if (!synth_evaluate(ctx, worker, ind, err)) return false;
    for (int k = NGENES; k < NGENES + NEDITS; k++) {
        int c = ind->genes[k];
        if (c == SCREEN_A || c == SCREEN_B) ind->fitness -= c; /* +100, +60 */
        else if (c < 0) ind->fitness -= 1;                     /* the other codes hurt a little */
    }
    return true;
}

/* Codes -1 .. -12 but A and B; A in group 0, B in group 1 (so they land in
 * different edit genes), the rest spread over groups 0-3. */
static ga_problem screen_problem(synth *s, const int *const *specials)
{
    for (int i = 0; i < NSCREEN; i++) {
        screen_codes[i] = -1 - i;
        screen_groups[i] = i % 4;
    }
    screen_codes[5] = SCREEN_A;
    screen_groups[5] = 0;
    screen_codes[9] = SCREEN_B;
    screen_groups[9] = 1;
    ga_problem p = synth_problem(s);
    p.ngenes = NGENES + NEDITS;
    p.nedit_genes = NEDITS;
    p.evaluate = screen_evaluate;
    p.specials = specials;
    p.nspecials = 1;
    p.screen_codes = screen_codes;
    p.screen_groups = screen_groups;
    p.nscreen = NSCREEN;
    return p;
}

/* gdivan on a screen problem for max_evals evaluations, seed 5, no early
 * stop; asserted (ga_free it). */
static ga *screen_run(const ga_problem *p, long max_evals)
{
    ga_options o;
    ga_options_default(&o);
    o.patience = 0;
    o.max_evals = max_evals;
    wh_error err;
    ga *g = ga_new(p, &o, GA_GDIVAN, 5, &err);
    cr_assert(g, "%s", err.msg);
    cr_assert(ga_run(g, &err), "%s", err.msg);
    return g;
}

/* The heaviest allele in every atom gene, no edit. */
static void heaviest_special(int *special)
{
    for (int k = 0; k < NGENES + NEDITS; k++) special[k] = k < NGENES ? NPATHS - 1 : 0;
}

Test(ga, edit_screen_finds_the_edits_that_help_one_round_each)
{
    synth *s = synth_new();
    int special[NGENES + NEDITS];
    heaviest_special(special);
    const int *specials[1] = { special };
    ga_problem p = screen_problem(s, specials);
    ga *g = screen_run(&p, 600);
    const ga_indiv *b = ga_best(g);
    double optimum = (NPATHS - 1) * NGENES + 160;
    cr_expect_eq(b->fitness, optimum, "best %g", b->fitness);
    bool has_a = false, has_b = false;
    for (int k = NGENES; k < NGENES + NEDITS; k++) {
        has_a |= b->genes[k] == SCREEN_A;
        has_b |= b->genes[k] == SCREEN_B;
    }
    cr_expect(has_a && has_b, "the best holds both helpful codes");
    /* the first population (100); generation 1 (90 children) opens with a
     * round of 12 that finds A, generation 2 with a round of the 11 left
     * that finds B beside it */
    cr_expect_leq(ga_evals_to_best(g), 100 + 90 + 11, "found at evaluation %ld", ga_evals_to_best(g));
    cr_expect_gt(ga_evals_to_best(g), 100 + 90, "B cannot be found before the second round");
    /* and no third: the best's edit genes are full */
    cr_expect_eq(ga_screen_rounds(g), 2, "rounds: %d", ga_screen_rounds(g));
    ga_free(g);

    /* without the screen, random codes (never negative) cannot find them */
    s->nalleles = NPATHS;
    p.nscreen = 0;
    g = screen_run(&p, 600);
    cr_expect_lt(ga_best(g)->fitness, (NPATHS - 1) * NGENES + 60);
    cr_expect_eq(ga_screen_rounds(g), 0);
    ga_free(g);
    free(s);
}

/* Random codes (positive) weigh 40 here, so the first population's best
 * holds two of them: every edit gene taken. */
static bool crowded_evaluate(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    if (!screen_evaluate(ctx, worker, ind, err)) return false;
    for (int k = NGENES; k < NGENES + NEDITS; k++) ind->fitness += ind->genes[k] > 0 ? 40 : 0;
    return true;
}

/* A best whose edit genes are all taken is screened too: each code
 * replaces its group's edit, and the two rounds put A and B in place of
 * the random edits (A and B outweigh them). */
Test(ga, edit_screen_replaces_edits_when_no_gene_is_free)
{
    synth *s = synth_new();
    int special[NGENES + NEDITS];
    heaviest_special(special);
    const int *specials[1] = { special };
    ga_problem p = screen_problem(s, specials);
    p.evaluate = crowded_evaluate;
    ga *g = screen_run(&p, 100);
    for (int k = NGENES; k < NGENES + NEDITS; k++) cr_assert_gt(ga_best(g)->genes[k], 0, "the first best's genes are full");
    ga_free(g);
    g = screen_run(&p, 600);
    cr_expect_eq(ga_best(g)->fitness, (NPATHS - 1) * NGENES + 160, "best %g", ga_best(g)->fitness);
    cr_expect_eq(ga_screen_rounds(g), 2, "rounds: %d", ga_screen_rounds(g));
    ga_free(g);
    free(s);
}

Test(ga, edit_screen_stops_when_a_round_finds_nothing)
{
    synth *s = synth_new();
    int special[NGENES + NEDITS];
    heaviest_special(special);
    const int *specials[1] = { special };
    ga_problem p = screen_problem(s, specials);
    /* no code helps: A and B hurt like the others */
    screen_codes[5] = -6;
    screen_codes[9] = -10;
    ga *g = screen_run(&p, 400);
    cr_expect_eq(ga_screen_rounds(g), 1, "rounds: %d", ga_screen_rounds(g));
    ga_free(g);
    free(s);
}

/* A run checkpointed in the middle of its screen (after round 1, when the
 * next generation decides whether to screen again) resumes exactly. */
Test(ga, edit_screen_survives_a_checkpoint)
{
    char path[] = "/tmp/wh_ckp_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    for (int at = 1; at <= 2; at++) {
        int special[NGENES + NEDITS];
        heaviest_special(special);
        const int *specials[1] = { special };
        synth *a = synth_new();
        ga_problem p = screen_problem(a, specials);
        p.on_generation = ckp_save_at;
        ga_options o;
        ga_options_default(&o);
        o.max_evals = 500;
        o.patience = 0;
        wh_error err;
        ckp_ctx c = { a, path, NULL, at, 0 };
        a->user = &c;
        c.g = ga_new(&p, &o, GA_GDIVAN, 5, &err);
        cr_assert(ga_run(c.g, &err), "%s", err.msg);
        cr_assert_eq(ga_screen_rounds(c.g), 2, "two rounds, the checkpoint between them or after");

        synth *b = synth_new();
        memcpy(b->weight, a->weight, sizeof a->weight);
        b->nalleles = a->nalleles;
        ga_problem q = screen_problem(b, specials);
        ga *r = ga_new(&q, &o, GA_GDIVAN, 5, &err);
        cr_assert(ga_restore(r, path, &err), "%s", err.msg);
        cr_assert(ga_run(r, &err), "%s", err.msg);
        cr_assert_eq(b->nhistory, 500 - c.evals_at);
        for (long i = 0; i < b->nhistory; i++)
            cr_assert_eq(b->history[i], a->history[c.evals_at + i], "at %d: eval %ld", at, c.evals_at + i + 1);
        cr_expect_eq(ga_screen_rounds(r), 2);
        ga_free(r);
        ga_free(c.g);
        free(a);
        free(b);
    }
    unlink(path);
}

Test(ga, edit_genes_need_a_gene_based_strategy)
{
    synth *s = synth_new();
    ga_problem p = synth_problem(s);
    p.ngenes = NGENES + NEDITS;
    p.nedit_genes = NEDITS;
    ga_options o;
    ga_options_default(&o);
    wh_error err;
    cr_expect_null(ga_new(&p, &o, GA_RANDOM, 1, &err));
    cr_expect(strstr(err.msg, "edit genes"), "%s", err.msg);
    p.ngenes = NEDITS;
    cr_expect_null(ga_new(&p, &o, GA_GDIVAN, 1, &err), "no atom gene left");
    free(s);
}

/* Worker threads (ga_problem.workers): a thread-safe evaluation whose
 * result depends on the individual only (and on its evaluation number for
 * failures), and that notes how many calls overlap. */
#include <stdatomic.h>
#include <time.h>

typedef struct {
    synth *s;
    long fail_at;            /* this evaluation fails as a run (status 1) */
    long error_at;           /* this evaluation's evaluate() returns false */
    atomic_int running, most_running;
    atomic_int by_worker[4];
    long events[2000][2];    /* on_eval: eval, fitness */
    int nevents;
    bool eval_numbers_match; /* every event's eval == its individual's eval_index */
} parallel_case;

static bool parallel_evaluate(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    parallel_case *c = ((synth *)ctx)->user;
    int now = atomic_fetch_add(&c->running, 1) + 1;
    for (int most = atomic_load(&c->most_running); now > most && !atomic_compare_exchange_weak(&c->most_running, &most, now);)
        ;
    atomic_fetch_add(&c->by_worker[worker], 1);
    nanosleep(&(struct timespec){ 0, 200000 }, NULL);   /* long enough for calls to overlap */
    double f = 0;
    for (int k = 0; ind->genes && k < NGENES; k++) f += c->s->weight[ind->genes[k]];
    ind->fitness = ind->genes ? f : random_vector_fitness(ind->seed);
    ind->status = ind->eval_index == c->fail_at;
    atomic_fetch_sub(&c->running, 1);
    if (ind->eval_index == c->error_at) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "evaluation %ld broke", ind->eval_index);
        return false;
    }
    return true;
}

static bool parallel_on_eval(void *ctx, const ga_event *ev, wh_error *err)
{
    (void)err;
    parallel_case *c = ((synth *)ctx)->user;
    if (ev->ind->eval_index != ev->eval) c->eval_numbers_match = false;
    if (c->nevents < 2000) {
        c->events[c->nevents][0] = ev->eval;
        c->events[c->nevents++][1] = (long)(ev->ind->fitness * 1000);
    }
    return true;
}

/* Run one strategy with `workers` threads; returns the case (caller frees
 * it and its synth) and fills the run's outcome. */
static parallel_case *parallel_run(ga_strategy st, int workers, long evals, long fail_at, long error_at,
                                   bool *ran, ga_stop_reason *stop, double *best, long *nevals, char *msg)
{
    parallel_case *c = calloc(1, sizeof *c);
    c->s = synth_new();
    c->s->user = c;
    c->fail_at = fail_at;
    c->error_at = error_at;
    c->eval_numbers_match = true;
    ga_problem p = synth_problem(c->s);
    p.evaluate = parallel_evaluate;
    p.on_eval = parallel_on_eval;
    p.stop_requested = NULL;
    p.workers = workers;
    ga_options o;
    ga_options_default(&o);
    o.max_evals = evals;
    o.patience = 0;
    o.keep = 5;
    wh_error err;
    wh_error_clear(&err);
    ga *g = ga_new(&p, &o, st, 11, &err);
    cr_assert(g, "%s", err.msg);
    *ran = ga_run(g, &err);
    *stop = ga_get_stop_reason(g);
    *best = ga_best(g) ? ga_best(g)->fitness : -1;
    *nevals = ga_evals(g);
    snprintf(msg, 200, "%.199s", err.msg);
    ga_free(g);
    return c;
}

static void parallel_free(parallel_case *c)
{
    free(c->s);
    free(c);
}

Test(ga, worker_threads_give_the_same_run_as_one)
{
    for (int st = 0; st < 3; st++) {
        bool ran1, ran3;
        ga_stop_reason stop1, stop3;
        double best1, best3;
        long n1, n3;
        char msg[200];
        /* 250: the budget ends inside a generation */
        parallel_case *one = parallel_run((ga_strategy)st, 1, 250, 37, 0, &ran1, &stop1, &best1, &n1, msg);
        parallel_case *three = parallel_run((ga_strategy)st, 3, 250, 37, 0, &ran3, &stop3, &best3, &n3, msg);
        cr_expect(ran1 && ran3, "%s", msg);
        cr_expect_eq(stop1, GA_STOP_EVALS);
        cr_expect_eq(stop3, GA_STOP_EVALS);
        cr_expect_eq(n1, 250);
        cr_expect_eq(n3, 250);
        cr_expect_eq(best1, best3, "strategy %d: best %g with one thread, %g with three", st, best1, best3);
        cr_expect_eq(one->nevents, three->nevents);
        cr_expect_eq(memcmp(one->events, three->events, sizeof one->events), 0,
                     "strategy %d: the same evaluations, in the same order, with the same results", st);
        cr_expect(three->eval_numbers_match, "an individual's eval_index is its evaluation number");
        cr_expect_eq(atomic_load(&one->most_running), 1);
        cr_expect_gt(atomic_load(&three->most_running), 1, "three workers measured at once");
        cr_expect_gt(atomic_load(&three->by_worker[2]), 0, "worker 2 took individuals");
        cr_expect_eq(atomic_load(&three->by_worker[3]), 0, "no worker beyond the count");
        parallel_free(one);
        parallel_free(three);
    }
}

/* An evaluate() that fails stops the search with its error; the
 * evaluations before it are recorded, none after it. */
Test(ga, a_failing_evaluation_stops_worker_threads_after_the_earlier_ones)
{
    bool ran;
    ga_stop_reason stop;
    double best;
    long n;
    char msg[200];
    parallel_case *c = parallel_run(GA_GDIVAN, 3, 400, 0, 142, &ran, &stop, &best, &n, msg);
    cr_expect_not(ran);
    cr_expect_eq(stop, GA_STOP_ERROR);
    cr_expect(strstr(msg, "evaluation 142 broke"), "%s", msg);
    cr_expect_eq(n, 141, "evaluations 1..141 are recorded, got %ld", n);
    cr_expect_eq(c->nevents, 141);
    cr_expect_eq(c->events[c->nevents - 1][0], 141);
    parallel_free(c);
}
