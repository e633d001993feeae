/*
 * evaluate.c — measuring a generation: the budget checks before each
 * evaluation, worker threads that measure individuals at once, and the
 * in-order bookkeeping (evaluation numbers, best, top list, on_eval).
 *
 * Workers take individuals in order and finish every one they took, so the
 * measured individuals are always a prefix of the batch; the first worker
 * (the caller's thread) records that prefix as it grows.  The budget is
 * checked before each take exactly as a single thread checks it before
 * each evaluation, so with a deterministic `evaluate` the run does not
 * depend on the number of workers, only on the seed.
 */
#include "core/clock.h"
#include "ga/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ga *g;
    ga_indiv *inds;
    int n;
    int taken;              /* inds[0..taken) handed to a worker */
    int recorded;           /* inds[0..recorded) recorded */
    bool *done;             /* measured */
    double *done_at;        /* when, as seconds of the search */
    double *locations;      /* n x prob.nlocations counters, NULL: none */
    int failed_at;          /* first individual whose evaluate() failed, n if none */
    bool record_failed;     /* on_eval said stop */
    wh_error err;           /* why, for the first failure */
    pthread_mutex_t mu;
} batch;

typedef struct {
    batch *b;
    int worker;
} worker_arg;

/* Is there budget and permission for one more evaluation?  `pending`
 * evaluations are taken but not yet counted in g->evals. */
static bool may_evaluate(ga *g, int pending)
{
    if (g->stop) return false;
    if (g->opt.max_evals && g->evals + pending >= g->opt.max_evals) g->stop = GA_STOP_EVALS;
    else if (g->opt.max_seconds && wh_clock_s() - g->t0 >= g->opt.max_seconds) g->stop = GA_STOP_TIME;
    else if (g->prob.stop_requested && g->prob.stop_requested(g->prob.ctx)) g->stop = GA_STOP_INTERRUPTED;
    return !g->stop;
}

/* Bookkeeping of one measured individual, in evaluation order. */
static bool record(ga *g, ga_indiv *ind, double at, wh_error *err)
{
    g->evals = ind->eval_index;
    bool improved = ga_rank_value(ind) > ga_rank_value(&g->best) || g->best.fitness < 0;
    if (!ind->status) ga_top_offer(g, ind);
    if (!ga_archive_offer(g, ind)) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for the archive");
        return false;
    }
    if (g->hot.genes && !ind->status && ind->hot_work > g->hot.hot_work) {
        ga_copy_indiv(g, &g->hot, ind);
        g->hot_fresh = true;
    }
    if (improved && !ind->status) {
        ga_copy_indiv(g, &g->best, ind);
        g->evals_to_best = g->evals;
        g->time_to_best = at;
    } else {
        improved = false;
    }
    if (!g->prob.on_eval) return true;
    ga_event ev = { g->evals, g->generation, at, ind, g->best.fitness, improved };
    return g->prob.on_eval(g->prob.ctx, &ev, err);
}

/* Record the measured prefix; the caller holds the lock. */
static void record_ready(batch *b)
{
    while (!b->record_failed && b->recorded < b->taken && b->recorded < b->failed_at && b->done[b->recorded]) {
        /* the time by which this and every earlier evaluation had ended, so
         * that times grow with evaluation numbers */
        double at = b->done_at[b->recorded];
        if (b->recorded > 0 && b->done_at[b->recorded - 1] > at) at = b->done_at[b->recorded] = b->done_at[b->recorded - 1];
        wh_error e;
        if (!record(b->g, &b->inds[b->recorded], at, &e)) {
            b->record_failed = true;
            if (b->failed_at == b->n) b->err = e;
            break;
        }
        b->recorded++;
    }
}

static bool failed(const batch *b)
{
    return b->record_failed || b->failed_at < b->n;
}

static void *work(void *arg)
{
    batch *b = ((worker_arg *)arg)->b;
    int worker = ((worker_arg *)arg)->worker;
    ga *g = b->g;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        if (worker == 0) record_ready(b);
        if (failed(b) || b->taken >= b->n || !may_evaluate(g, b->taken - b->recorded)) break;
        int i = b->taken++;
        ga_indiv *ind = &b->inds[i];
        ind->fitness = -1;
        ind->status = 0;
        ind->hot_unit = 0;
        ind->hot_work = 0;
        ind->eval_index = g->evals + (i - b->recorded) + 1;
        if (b->locations) {
            ind->locations = b->locations + (size_t)i * (size_t)g->prob.nlocations;
            memset(ind->locations, 0, (size_t)g->prob.nlocations * sizeof *ind->locations);
        }
        pthread_mutex_unlock(&b->mu);
        wh_error e;
        bool ok = g->prob.evaluate(g->prob.ctx, worker, ind, &e);
        double at = wh_clock_s() - g->t0;
        pthread_mutex_lock(&b->mu);
        b->done[i] = true;
        b->done_at[i] = at;
        if (!ok && i < b->failed_at) {
            b->failed_at = i;
            b->err = e;
        }
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

/* Start workers 1..nworkers-1; returns how many threads started. */
static int start_workers(batch *b, worker_arg *args, pthread_t *threads, int nworkers)
{
    int started = 0;
    for (int k = 1; k < nworkers; k++) {
        args[k] = (worker_arg){ b, k };
        if (pthread_create(&threads[started], NULL, work, &args[k]) != 0) break;
        started++;
    }
    return started;
}

int ga_measure(ga *g, ga_indiv *inds, int n, wh_error *err)
{
    if (n <= 0) return 0;
    int nworkers = g->prob.workers > 1 ? g->prob.workers : 1;
    if (nworkers > n) nworkers = n;
    batch b = { .g = g, .inds = inds, .n = n, .failed_at = n };
    b.done = calloc((size_t)n, sizeof *b.done);
    b.done_at = calloc((size_t)n, sizeof *b.done_at);
    if (g->prob.nlocations > 0) b.locations = malloc((size_t)n * (size_t)g->prob.nlocations * sizeof *b.locations);
    pthread_t *threads = calloc((size_t)nworkers, sizeof *threads);
    worker_arg *args = calloc((size_t)nworkers, sizeof *args);
    if (!b.done || !b.done_at || !threads || !args || (g->prob.nlocations > 0 && !b.locations)) {
        wh_error_set(err, WH_ERR_INTERNAL, NULL, 0, 0, "out of memory for the evaluation of a generation");
        g->stop = GA_STOP_ERROR;
        free(b.done), free(b.done_at), free(b.locations), free(threads), free(args);
        return -1;
    }
    pthread_mutex_init(&b.mu, NULL);
    int started = start_workers(&b, args, threads, nworkers);
    args[0] = (worker_arg){ &b, 0 };
    work(&args[0]);
    for (int k = 0; k < started; k++) pthread_join(threads[k], NULL);
    /* every worker has finished what it took: record the rest */
    record_ready(&b);
    pthread_mutex_destroy(&b.mu);
    for (int i = 0; i < n; i++) inds[i].locations = NULL;
    free(b.done), free(b.done_at), free(b.locations), free(threads), free(args);
    if (failed(&b)) {
        *err = b.err;
        g->stop = GA_STOP_ERROR;
        return -1;
    }
    return b.recorded;
}
