/*
 * test_archive.c — the GA's per-location feedback (ga/archive.c) on a
 * deceptive problem: the optimum needs gene k at its own allele
 * (3k + 1 mod 10: no uniform individual has it), but each match short of
 * all of them makes the individual *slower*, so a search ranked by time
 * alone walks away from it.  One location counts the matches: the
 * archive keeps the individual with most of them, and children bred from
 * it climb that count to the optimum.
 */
#include <criterion/criterion.h>

#include "ga/ga.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NG 8
#define NALLELES 10
#define OPTIMUM 100.0

typedef struct {
    int alleles[NALLELES];
    double history[8000];
    long nhistory;
    ga *g;                      /* checkpoint tests: the instance */
    const char *path;
    int save_at;
    long evals_at;
} trap;

static int target(int k)
{
    return (3 * k + 1) % NALLELES;
}

static int matches(const int *genes)
{
    int n = 0;
    for (int k = 0; k < NG; k++) n += genes[k] == target(k);
    return n;
}

static bool trap_evaluate(void *ctx, int worker, ga_indiv *ind, wh_error *err)
{
    (void)ctx, (void)worker, (void)err;
    int n = matches(ind->genes);
    double other = 0;
    for (int k = 0; k < NG; k++) other += ind->genes[k] == target(k) ? 0 : 0.01 * ind->genes[k];
    ind->fitness = n == NG ? OPTIMUM : 10.0 - n + other;
    if (ind->locations) {
        ind->locations[0] = n;          /* the matches: what the optimum needs */
        ind->locations[1] = other;      /* a second counter, for the bookkeeping */
    }
    return true;
}

static bool trap_random_allele(void *ctx, pcg32 *rng, int gene, int *allele, wh_error *err)
{
    (void)ctx, (void)gene, (void)err;
    *allele = (int)pcg32_bounded(rng, NALLELES);
    return true;
}

static bool trap_on_eval(void *ctx, const ga_event *ev, wh_error *err)
{
    trap *t = ctx;
    (void)err;
    if (t->nhistory < 8000) t->history[t->nhistory++] = ev->ind->fitness;
    return true;
}

static bool trap_save_at(void *ctx, int generation, wh_error *err)
{
    trap *t = ctx;
    if (generation != t->save_at) return true;
    t->evals_at = ga_evals(t->g);
    return ga_checkpoint(t->g, t->path, err);
}

static ga_problem trap_problem(trap *t, int nlocations)
{
    for (int a = 0; a < NALLELES; a++) t->alleles[a] = a;
    ga_problem p;
    memset(&p, 0, sizeof p);
    p.ctx = t;
    p.ngenes = NG;
    p.path_alleles = t->alleles;
    p.npath_alleles = NALLELES;
    p.new_random_allele = trap_random_allele;
    p.evaluate = trap_evaluate;
    p.on_eval = trap_on_eval;
    p.nlocations = nlocations;
    return p;
}

static void trap_options(ga_options *o, long evals)
{
    ga_options_default(o);
    o->population = 40;
    o->patience = 0;
    o->max_evals = evals;
    o->archive_frac = 0.3;
}

/* Seeds (of 8) whose search reaches the optimum. */
static int reached(int nlocations, double archive_frac)
{
    int n = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        trap t = { 0 };
        ga_problem p = trap_problem(&t, nlocations);
        ga_options o;
        trap_options(&o, 4000);
        o.archive_frac = archive_frac;
        wh_error err;
        ga *g = ga_new(&p, &o, GA_GDIVAN, seed, &err);
        cr_assert(g, "%s", err.msg);
        cr_assert(ga_run(g, &err), "%s", err.msg);
        n += ga_best(g)->fitness == OPTIMUM;
        if (nlocations && archive_frac > 0) cr_expect_gt(ga_archive_children(g), 0, "children bred from the archive");
        ga_free(g);
    }
    return n;
}

Test(archive, feedback_climbs_a_count_that_time_alone_walks_away_from)
{
    int with = reached(2, 0.3), without = reached(0, 0.3), unused = reached(2, 0);
    cr_expect_geq(with, 6, "with the archive: %d of 8 seeds reach the optimum", with);
    cr_expect_leq(without, 1, "without locations: %d of 8", without);
    cr_expect_leq(unused, 1, "locations counted but no parent drawn from them: %d of 8", unused);
}

Test(archive, keeps_the_holder_of_each_maximum_and_drops_one_that_holds_none)
{
    trap t = { 0 };
    ga_problem p = trap_problem(&t, 2);
    ga_options o;
    trap_options(&o, 40);   /* the first population only */
    wh_error err;
    ga *g = ga_new(&p, &o, GA_GDIVAN, 3, &err);
    cr_assert(ga_run(g, &err), "%s", err.msg);
    /* two locations, each held by one individual (the same one at most) */
    cr_expect_eq(ga_archive_locations(g), 2);
    cr_expect(ga_archive_size(g) >= 1 && ga_archive_size(g) <= 2, "%d inputs kept", ga_archive_size(g));
    ga_free(g);
}

Test(archive, survives_a_checkpoint)
{
    char path[] = "/tmp/wh_arc_XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    trap a = { 0 };
    ga_problem p = trap_problem(&a, 2);
    p.on_generation = trap_save_at;
    ga_options o;
    trap_options(&o, 1500);
    wh_error err;
    a.path = path;
    a.save_at = 6;
    a.g = ga_new(&p, &o, GA_GDIVAN, 2, &err);
    cr_assert(ga_run(a.g, &err), "%s", err.msg);
    cr_assert_gt(ga_archive_children(a.g), 0);

    trap b = { 0 };
    ga_problem q = trap_problem(&b, 2);
    ga *r = ga_new(&q, &o, GA_GDIVAN, 2, &err);
    cr_assert(ga_restore(r, path, &err), "%s", err.msg);
    cr_assert(ga_run(r, &err), "%s", err.msg);
    cr_assert_eq(b.nhistory, 1500 - a.evals_at);
    for (long i = 0; i < b.nhistory; i++)
        cr_assert_eq(b.history[i], a.history[a.evals_at + i], "eval %ld", a.evals_at + i + 1);
    cr_expect_eq(ga_archive_children(r), ga_archive_children(a.g));
    cr_expect_eq(ga_archive_size(r), ga_archive_size(a.g));

    /* a search without locations cannot take it */
    trap c = { 0 };
    ga_problem none = trap_problem(&c, 0);
    ga *n = ga_new(&none, &o, GA_GDIVAN, 2, &err);
    cr_expect_not(ga_restore(n, path, &err));
    cr_expect(strstr(err.msg, "archive"), "%s", err.msg);
    ga_free(n);
    ga_free(r);
    ga_free(a.g);
    unlink(path);
}

Test(archive, needs_a_gene_based_strategy)
{
    trap t = { 0 };
    ga_problem p = trap_problem(&t, 2);
    p.ngenes = 0;
    ga_options o;
    trap_options(&o, 10);
    wh_error err;
    cr_expect_null(ga_new(&p, &o, GA_RANDOM, 1, &err));
    cr_expect(strstr(err.msg, "location feedback"), "%s", err.msg);
    o.archive_frac = 1.5;
    p = trap_problem(&t, 2);
    cr_expect_null(ga_new(&p, &o, GA_GDIVAN, 1, &err));
}
