/*
 * hunt_scout.c — random testing on a spare core while gdivan's symbolic
 * stage explores.
 *
 * The stage runs on one thread for tens of seconds while the other cores
 * idle, and random testing often finds a good input within a second.  The
 * scout measures independent random inputs (what `--strategy random`
 * draws; evaluation k is the k-th seed of its own PCG32 stream, whichever
 * thread measures it) on every evaluation worker but the first, one thread
 * each, until the stage and the warp-first composition end, or until it
 * has spent half the evaluation budget.  Its evaluations count against
 * --evals (the search gets what is left), its rows go to scout.csv (the
 * columns of history.csv, times counted from the start of the stage), its
 * faults to findings/scout-N-STATUS/, and the run's best is the better of
 * the search's and the scout's (run.json says which).  Being bounded by the
 * stage's wall time, the number of scout evaluations is not repeatable; the
 * search itself is, for a seed: it never sees the scout's inputs.
 *
 * With no spare core (--jobs 1, one core) there is a head start instead:
 * worker 0 measures a fixed number of the scout's random inputs (a fiftieth
 * of the budget, 1-100; --scout-head N) before the stage starts, cached or
 * not, so a run on one core still reaches random testing's level within its
 * first seconds; being a fixed number, the search stays repeatable.
 */
#include "core/alloc.h"
#include "core/clock.h"
#include "ga/hunt_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The scout's PCG32 stream ("scou"), apart from the search's. */
#define SCOUT_STREAM 0x73636f75

/* The next evaluation to measure, or 0 when the scout is to stop: its
 * number and the seed of its input, the number-th of the scout's stream
 * whichever thread takes it. */
static long take(hunt *h, uint64_t *seed)
{
    hunt_scout *s = &h->scout;
    long eval = 0;
    pthread_mutex_lock(&s->mu);
    if (!atomic_load(&s->stop) && !s->failed && (!s->max_evals || s->taken < s->max_evals) &&
        !(h->opt.interrupted && *h->opt.interrupted)) {
        eval = ++s->taken;
        *seed = pcg32_next64(&s->rng);
    }
    pthread_mutex_unlock(&s->mu);
    return eval;
}

/* One measured evaluation, recorded under the lock; of equal times the
 * earlier evaluation stays the best. */
static void record(hunt *h, hunt_worker *w, long eval, uint64_t seed, double fitness, const harness_result *res)
{
    hunt_scout *s = &h->scout;
    pthread_mutex_lock(&s->mu);
    double at = wh_clock_s() - h->stage_t0;
    s->evals++;
    if (res->status != HARNESS_OK) {
        s->findings++;
        hunt_record_finding(h, w->img, "scout", eval, res);
    } else if (fitness > s->best || (fitness == s->best && eval < s->best_eval)) {
        s->best = fitness;
        s->best_seed = seed;
        s->best_eval = eval;
        s->best_time_s = at;
    }
    wh_history_row(&s->csv, eval, 0, at, fitness, s->best > 0 ? s->best : 0, harness_status_name(res->status));
    pthread_mutex_unlock(&s->mu);
}

typedef struct {
    hunt *h;
    int worker;
} scout_thread;

static void *scout_main(void *arg)
{
    scout_thread *t = arg;
    hunt *h = t->h;
    hunt_scout *s = &h->scout;
    hunt_worker *w = &h->workers[t->worker];
    uint64_t seed;
    for (long eval; (eval = take(h, &seed)) > 0;) {
        ga_indiv ind;   /* gene-less: the random input of its seed, as random testing draws it */
        memset(&ind, 0, sizeof ind);
        ind.seed = seed;
        harness_result res;
        double fitness;
        wh_error err;
        if (!hunt_build_image(h, &ind, w->img, &err) || !hunt_measure_fitness(h, w, &res, &fitness, &err)) {
            pthread_mutex_lock(&s->mu);
            if (!s->failed) s->err = err;
            s->failed = true;
            pthread_mutex_unlock(&s->mu);
            break;
        }
        record(h, w, eval, seed, fitness, &res);
        harness_result_free(&res);
    }
    return NULL;
}

/* The scout's workers, [*first, *first + n): the stage takes one core, so
 * on the sim every evaluation worker but the first (worker 0 stays the
 * hunt's own); on a GPU the device is idle during the stage and its one
 * worker drives it.  0: none, and *why says why. */
static int scout_workers(const hunt *h, int *first, const char **why)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    *why = "no spare core for random testing during the symbolic stage (--jobs 1 or one core)";
    if (cores < 2) return 0;
    *first = harness_backend_of(h->h) != HARNESS_SIM ? 0 : 1;
#ifdef __SANITIZE_ADDRESS__
    /* GCC 12's AddressSanitizer does not hold its allocator's locks across
     * fork(), so a process a measurement forks while the stage's Z3 threads
     * allocate can wait forever on a lock copied held (glibc's malloc is
     * fork-safe: plain builds are not affected). */
    *why = "a sanitized build forks no measuring process beside the symbolic stage";
    if (harness_may_fork(h->h)) return 0;
#endif
    return *first ? h->njobs - 1 : 1;
}

/* Does this run get a scout at all?  A budget of one evaluation leaves
 * none to share. */
static bool scout_wanted(const hunt *h)
{
    return h->opt.scout && h->opt.strategy == GA_GDIVAN && !h->opt.resume_dir && h->opt.ga.max_evals != 1;
}

/* The scout's state, stream and scout.csv, for at most max_evals
 * evaluations (0: no bound); false when scout.csv cannot be written. */
static bool scout_open(hunt *h, long max_evals)
{
    hunt_scout *s = &h->scout;
    s->max_evals = max_evals;
    pcg32_seed(&s->rng, hunt_island_seed(h), SCOUT_STREAM);
    char path[1100];
    snprintf(path, sizeof path, "%s/scout.csv", h->dir);
    if (!wh_history_open(&s->csv, path, false, &s->err)) {
        s->failed = true;
        return false;
    }
    atomic_init(&s->stop, false);
    pthread_mutex_init(&s->mu, NULL);
    s->ran = true;
    return true;
}

/* The head start's size: --scout-head (at most half the budget), or a
 * fiftieth of the budget from 1 to 100 (20 with no evaluation bound). */
static long head_evals(const hunt *h)
{
    long budget = h->opt.ga.max_evals;
    if (h->opt.scout_head >= 0) return budget ? (h->opt.scout_head < budget / 2 ? h->opt.scout_head : budget / 2)
                                              : h->opt.scout_head;
    long n = budget ? budget / 50 : 20;
    return n < 1 ? 1 : n > 100 ? 100 : n;
}

void hunt_scout_head(hunt *h)
{
    hunt_scout *s = &h->scout;
    memset(s, 0, sizeof *s);
    s->best = -1;
    const char *why = NULL;
    int first = 0;
    long n = head_evals(h);
    if (!scout_wanted(h) || scout_workers(h, &first, &why) > 0 || n <= 0) return;
    s->head = true;   /* from here hunt_scout_start leaves it alone, a failure included */
    if (!scout_open(h, n)) return;   /* hunt_scout_stop reports it */
    if (!h->opt.quiet)
        fprintf(stderr, "hunt: %s: a head start of %ld random inputs before it instead\n", why, n);
    scout_thread t = { h, 0 };
    scout_main(&t);
    s->nthreads = 1;
    s->seconds = wh_clock_s() - h->stage_t0;
    s->running = true;   /* hunt_scout_stop closes it */
}

void hunt_scout_start(void *hunt_ctx)
{
    hunt *h = hunt_ctx;
    hunt_scout *s = &h->scout;
    if (s->head) return;   /* one core: it ran before the stage */
    memset(s, 0, sizeof *s);
    s->best = -1;
    if (!scout_wanted(h)) return;
    const char *why = NULL;
    int first = 0, n = scout_workers(h, &first, &why);
    if (n <= 0) {
        if (!h->opt.quiet)
            fprintf(stderr, "hunt: %s: no scout\n", why);
        return;
    }
    if (!scout_open(h, h->opt.ga.max_evals / 2)) return;
    s->threads = wh_xcalloc((size_t)n, sizeof *s->threads);
    s->args = wh_xcalloc((size_t)n, sizeof(scout_thread));
    scout_thread *args = s->args;
    s->running = true;
    for (int k = 0; k < n; k++) {
        args[k] = (scout_thread){ h, first + k };
        if (pthread_create(&s->threads[k], NULL, scout_main, &args[k]) != 0) {
            wh_error_set(&s->err, WH_ERR_INTERNAL, NULL, 0, 0, "cannot start a scout thread");
            s->failed = true;
            break;
        }
        s->nthreads++;
    }
    s->first_worker = first;
}

bool hunt_scout_stop(hunt *h, wh_error *err)
{
    hunt_scout *s = &h->scout;
    if (!s->running) {
        if (s->failed) *err = s->err;
        return !s->failed;
    }
    atomic_store(&s->stop, true);
    for (int k = 0; s->threads && k < s->nthreads; k++) pthread_join(s->threads[k], NULL);
    s->running = false;
    if (!s->head) s->seconds = wh_clock_s() - h->stage_t0;
    free(s->threads);
    free(s->args);
    pthread_mutex_destroy(&s->mu);
    bool written = wh_history_ok(&s->csv, err);
    wh_history_close(&s->csv);
    h->findings += s->findings;
    if (s->failed) {
        *err = s->err;
        return false;
    }
    if (!written) return false;
    if (!h->opt.quiet)
        fprintf(stderr, "hunt: scout: %ld random inputs measured on %d thread%s %s the symbolic stage (%.1f s), "
                "best %.6g %s at its evaluation %ld; the search gets %ld evaluations\n", s->evals, s->nthreads,
                s->nthreads == 1 ? "" : "s", s->head ? "before" : "during", s->seconds,
                s->best > 0 ? s->best : 0, harness_unit(h->h), s->best_eval,
                h->opt.ga.max_evals ? h->opt.ga.max_evals - s->evals : 0);
    return true;
}

bool hunt_scout_wins(const hunt *h)
{
    const ga_indiv *b = h->g ? ga_best(h->g) : NULL;
    return h->scout.best > 0 && (!b || h->scout.best > b->fitness);
}

json_t *hunt_scout_json(const hunt *h)
{
    const hunt_scout *s = &h->scout;
    if (!s->ran) return json_null();
    char seed[20];   /* hex: a u64 need not fit JSON's signed integers */
    snprintf(seed, sizeof seed, "%016llx", (unsigned long long)s->best_seed);
    return json_pack("{s:I, s:f, s:f, s:I, s:f, s:s, s:I, s:i, s:b}", "evals", (json_int_t)s->evals, "seconds",
                     s->seconds, "best", s->best > 0 ? s->best : 0, "best_eval", (json_int_t)s->best_eval,
                     "best_time_s", s->best_time_s, "best_seed", seed, "findings", (json_int_t)s->findings,
                     "threads", s->nthreads, "head", s->head);
}

void hunt_scout_recall(hunt *h, const char *dir)
{
    hunt_scout *s = &h->scout;
    memset(s, 0, sizeof *s);
    s->best = -1;
    char path[1100];
    snprintf(path, sizeof path, "%s/run.json", dir);
    wh_error err;
    json_t *doc = wh_read_json(path, NULL, &err);   /* read already by the saved options */
    const json_t *saved = json_object_get(doc, "scout");
    if (json_is_object(saved)) {
        s->ran = true;
        s->evals = (long)json_integer_value(json_object_get(saved, "evals"));
        s->seconds = json_number_value(json_object_get(saved, "seconds"));
        s->best = json_number_value(json_object_get(saved, "best"));
        if (s->best <= 0) s->best = -1;
        s->best_eval = (long)json_integer_value(json_object_get(saved, "best_eval"));
        s->best_time_s = json_number_value(json_object_get(saved, "best_time_s"));
        s->findings = (long)json_integer_value(json_object_get(saved, "findings"));
        s->nthreads = (int)json_integer_value(json_object_get(saved, "threads"));
        s->head = json_is_true(json_object_get(saved, "head"));
        const char *seed = json_string_value(json_object_get(saved, "best_seed"));
        unsigned long long v;
        if (seed && sscanf(seed, "%llx", &v) == 1) s->best_seed = v;
    }
    json_decref(doc);
}
