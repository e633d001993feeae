/*
 * hunt_scout.c — random testing on a spare core while gdivan's symbolic
 * stage explores.
 *
 * The stage runs on one thread for tens of seconds while the other cores
 * idle, and random testing often finds a good input within a second.  The
 * scout measures independent random inputs (what `--strategy random`
 * draws; its k-th random input is the k-th seed of its own PCG32 stream,
 * whichever thread measures it) on every evaluation worker but the first, one thread
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
 *
 * After that many random inputs the scout screens its best (the head
 * start's, or on a spare core its first thread's after as many): each edit
 * screen code (gen_edit_screen) applied to it, the longest of a round the
 * base of the next, while a round finds a longer input (where a round of
 * single codes finds none, a round of pairs, one kind on two fields: two
 * buffers that must agree), one round per value-edit gene, at most a tenth
 * of the budget.  The GA screens its own
 * best too, but only after the stage: on kernels whose worst input is a
 * buffer-wide edit of any input (every key in one hash slot, every edge
 * into one node) the scout finds it in the first seconds instead of after
 * the stage's tens.  A scouted input is a seed and its edits.
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
 * number and, for a random input (seed not NULL), the seed of its input,
 * the next of the scout's stream whichever thread takes it. */
static long take(hunt *h, uint64_t *seed)
{
    hunt_scout *s = &h->scout;
    long eval = 0;
    pthread_mutex_lock(&s->mu);
    if (!atomic_load(&s->stop) && !s->failed && (!s->max_evals || s->taken < s->max_evals) &&
        !(h->opt.interrupted && *h->opt.interrupted)) {
        eval = ++s->taken;
        if (seed) *seed = pcg32_next64(&s->rng);
    }
    pthread_mutex_unlock(&s->mu);
    return eval;
}

/* Measure on w the input of seed and edits (NULL: none), or of genes (the
 * full layout's: the warp-first composed individual) when not NULL, record
 * it under the lock (of equal times the earlier evaluation stays the best;
 * genes are never the scout's best, which is a seed and edits) and give
 * its fitness (< 0: it failed or faulted); false when the harness failed
 * (s->err says why). */
static bool measure(hunt *h, hunt_worker *w, long eval, uint64_t seed, const hunt_edits *edits, const int *genes,
                    double *fitness)
{
    hunt_scout *s = &h->scout;
    harness_result res;
    wh_error err;
    bool built = genes ? gen_scale(h->pool, &h->lay, genes, w->img, &err) : hunt_build_scouted(seed, edits, w->img, &err);
    /* the search never sees the scout's inputs, so neither their location
     * counters: without them a run is 5-11 % quicker (bench_sim --locations) */
    bool counted = harness_set_want_locations(w->h, false);
    bool measured = built && hunt_measure_fitness(h, w, &res, fitness, &err);
    harness_set_want_locations(w->h, counted);
    if (!measured) {
        pthread_mutex_lock(&s->mu);
        if (!s->failed) s->err = err;
        s->failed = true;
        pthread_mutex_unlock(&s->mu);
        return false;
    }
    pthread_mutex_lock(&s->mu);
    double at = wh_clock_s() - h->stage_t0;
    s->evals++;
    if (edits) s->screen_evals++;
    if (genes) s->composed_evals++;
    if (res.status != HARNESS_OK) {
        s->findings++;
        hunt_record_finding(h, w->img, "scout", eval, &res);
    } else if (!genes && (*fitness > s->best || (*fitness == s->best && eval < s->best_eval))) {
        s->best = *fitness;
        s->best_seed = seed;
        s->best_edits = edits ? *edits : (hunt_edits){ 0 };
        s->best_eval = eval;
        s->best_time_s = at;
    }
    if (res.status == HARNESS_OK && *fitness > s->rows_best) s->rows_best = *fitness;
    /* generation 1: measured after the stage (bench_corpus charges a cached
     * stage's seconds to it) */
    wh_history_row(&s->csv, eval, genes ? 1 : 0, at, *fitness, s->rows_best, harness_status_name(res.status));
    if (res.status != HARNESS_OK) *fitness = -1;   /* never a screen's winner */
    pthread_mutex_unlock(&s->mu);
    harness_result_free(&res);
    return true;
}

/* base with code added, or replacing base's edit of the same group; false
 * when base has the code already or no room for one more. */
static bool with_code(const hunt_edits *base, int code, int group, hunt_edits *out)
{
    *out = *base;
    for (int k = 0; k < base->n; k++) {
        if (base->codes[k] == code) return false;
        if (base->groups[k] == group) {
            out->codes[k] = code;
            return true;
        }
    }
    if (base->n == HUNT_SCOUT_EDITS) return false;
    out->codes[out->n] = code;
    out->groups[out->n++] = group;
    return true;
}

/* The screen's size: one round per value-edit gene (as the GA's), and at
 * most a tenth of a bounded budget (a fifth took 200 of bvh_traverse's
 * 1,000 evaluations from a search that still gained near its end). */
static int screen_rounds(const hunt *h)
{
    int n = hunt_edit_genes(h);
    return !h->opt.scout_screen || h->nscreen == 0 ? 0 : n < HUNT_SCOUT_EDITS ? n : HUNT_SCOUT_EDITS;
}

static long screen_budget(const hunt *h)
{
    long n = h->opt.ga.max_evals / 10;
    return h->opt.ga.max_evals && n < 1 ? 1 : n;   /* 0: no bound but the rounds */
}

/* Whether codes a and b are one edit kind on two fields: a pair the
 * screen tries where no single code gains (text and pattern both one
 * character: neither alone makes a window match). */
static bool a_pair(const hunt *h, int a, int b)
{
    gen_edit ea, eb;
    gen_edit_decode(h->img, h->screen_codes[a], &ea);
    gen_edit_decode(h->img, h->screen_codes[b], &eb);
    return ea.kind == eb.kind && h->screen_groups[a] != h->screen_groups[b];
}

/* A screen's input seed and its evaluations. */
typedef struct {
    uint64_t seed;
    long budget, spent;   /* budget 0: no bound */
} screening;

/* Measure the seed's input with cand's edits; the longer of it and
 * best/best_fit into them.  False when the scout is to stop. */
static bool try_edits(hunt *h, hunt_worker *w, screening *sc, const hunt_edits *cand, hunt_edits *best,
                      double *best_fit)
{
    double fitness;
    long eval = take(h, NULL);
    if (!eval || !measure(h, w, eval, sc->seed, cand, NULL, &fitness)) return false;
    sc->spent++;
    if (fitness > *best_fit) {
        *best = *cand;
        *best_fit = fitness;
    }
    return true;
}

static bool over_budget(const screening *sc)
{
    return sc->budget && sc->spent >= sc->budget;
}

/* One screening round on base: every code (pairs: every two codes of one
 * kind on two fields) added to it; the longest into best/best_fit, left as
 * they are when nothing beats them.  False when the scout is to stop. */
static bool screen_round(hunt *h, hunt_worker *w, screening *sc, const hunt_edits *base, bool pairs,
                         hunt_edits *best, double *best_fit)
{
    hunt_edits one, two;
    for (int i = 0; i < h->nscreen && !over_budget(sc); i++) {
        if (!with_code(base, h->screen_codes[i], h->screen_groups[i], &one)) continue;
        if (!pairs) {
            if (!try_edits(h, w, sc, &one, best, best_fit)) return false;
            continue;
        }
        for (int j = i + 1; j < h->nscreen && !over_budget(sc); j++)
            if (a_pair(h, i, j) && with_code(&one, h->screen_codes[j], h->screen_groups[j], &two) &&
                !try_edits(h, w, sc, &two, best, best_fit))
                return false;
    }
    return true;
}

/* The screen on w from the scout's best so far: each round tries every
 * code on the base and keeps the longest if it is longer than the base;
 * a round of single codes that gains nothing is followed by one of pairs. */
static void screen(hunt *h, hunt_worker *w)
{
    hunt_scout *s = &h->scout;
    pthread_mutex_lock(&s->mu);
    screening sc = { .seed = s->best_seed, .budget = screen_budget(h) };
    hunt_edits base = s->best_edits;
    double base_fit = s->best;
    pthread_mutex_unlock(&s->mu);
    bool pairs = false;
    for (int round = 0; base_fit > 0 && round < screen_rounds(h);) {
        hunt_edits best = base;
        double best_fit = base_fit;
        if (!screen_round(h, w, &sc, &base, pairs, &best, &best_fit)) return;
        if (best_fit <= base_fit) {
            if (pairs || over_budget(&sc)) return;
            pairs = true;
            continue;
        }
        pairs = false;
        base = best;
        base_fit = best_fit;
        round++;
        s->screen_rounds++;   /* one screening thread: no other writer */
    }
}

typedef struct {
    hunt *h;
    int worker;
    long screen_after;   /* random inputs this thread measures before it screens (< 0: never) */
} scout_thread;

static void *scout_main(void *arg)
{
    scout_thread *t = arg;
    hunt *h = t->h;
    hunt_worker *w = &h->workers[t->worker];
    uint64_t seed;
    double fitness;
    long measured = 0;
    for (long eval; (eval = take(h, &seed)) > 0;) {
        if (!measure(h, w, eval, seed, NULL, NULL, &fitness)) break;
        if (++measured == t->screen_after) screen(h, w);
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
        fprintf(stderr, "hunt: %s: a head start of %ld random inputs%s before it instead\n", why, n,
                screen_rounds(h) > 0 ? " and a screen of edits of their best" : "");
    scout_thread t = { h, 0, -1 };
    scout_main(&t);
    s->max_evals = 0;   /* the screen bounds itself */
    if (screen_rounds(h) > 0) screen(h, &h->workers[0]);
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
        args[k] = (scout_thread){ h, first + k, k == 0 && screen_rounds(h) > 0 ? head_evals(h) : -1 };
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
        fprintf(stderr, "hunt: scout: %ld random inputs and %ld screened edits of their best (%d round%s that "
                "gained) measured on %d thread%s %s the symbolic stage (%.1f s)%s, best %.6g %s at its evaluation "
                "%ld (%d edit%s); the search gets %ld evaluations\n",
                s->evals - s->screen_evals - s->composed_evals, s->screen_evals, s->screen_rounds,
                s->screen_rounds == 1 ? "" : "s", s->nthreads, s->nthreads == 1 ? "" : "s",
                s->head ? "before" : "during", s->seconds,
                s->composed_evals ? ", then the warp-first composed individual after it" : "",
                s->best > 0 ? s->best : 0, harness_unit(h->h), s->best_eval, s->best_edits.n,
                s->best_edits.n == 1 ? "" : "s", h->opt.ga.max_evals ? h->opt.ga.max_evals - s->evals : 0);
    return true;
}

/* Refinement runs tens of seconds after the composition before the
 * search's first evaluation (fsm_lexer: 47-62 s, while the composed
 * individual already ran 0.645 of its known worst against random testing's
 * 0.551), so the composed individual is measured at once: on worker 0,
 * where no scout thread measures (on the sim they take the others; beside
 * a GPU its one worker is theirs, and then nothing is measured here),
 * counted against the budget.  The search's first population still holds
 * it and measures it again. */
void hunt_scout_measure_genes(void *hunt_ctx, const int *genes)
{
    hunt *h = hunt_ctx;
    hunt_scout *s = &h->scout;
    if (!s->running || s->failed || (!s->head && s->first_worker == 0)) return;
    pthread_mutex_lock(&s->mu);
    long budget = h->opt.ga.max_evals;
    bool room = !budget || s->evals + 1 < budget;   /* the search keeps at least one */
    long eval = room ? ++s->taken : 0;
    pthread_mutex_unlock(&s->mu);
    if (!room) return;
    double fitness;
    measure(h, &h->workers[0], eval, 0, NULL, genes, &fitness);   /* a failure is s->failed's */
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
    json_t *codes = json_array();   /* as unsigned: a screen code has bit 31 set */
    for (int k = 0; k < s->best_edits.n; k++)
        json_array_append_new(codes, json_integer((json_int_t)(uint32_t)s->best_edits.codes[k]));
    json_t *o = json_pack("{s:I, s:f, s:f, s:I, s:f, s:s, s:I, s:i, s:b}", "evals", (json_int_t)s->evals, "seconds",
                          s->seconds, "best", s->best > 0 ? s->best : 0, "best_eval", (json_int_t)s->best_eval,
                          "best_time_s", s->best_time_s, "best_seed", seed, "findings", (json_int_t)s->findings,
                          "threads", s->nthreads, "head", s->head);
    json_object_set_new(o, "best_edit_codes", codes);
    json_object_set_new(o, "screen", json_pack("{s:I, s:i}", "evals", (json_int_t)s->screen_evals, "rounds",
                                               s->screen_rounds));
    json_object_set_new(o, "composed_evals", json_integer((json_int_t)s->composed_evals));
    return o;
}

/* A recalled run.json's best_edit_codes (each its own group: a finished
 * screen needs none). */
static void recall_edits(const json_t *codes, hunt_edits *e)
{
    size_t k;
    json_t *c;
    json_array_foreach(codes, k, c) {
        if (e->n == HUNT_SCOUT_EDITS || !json_is_integer(c)) break;
        e->codes[e->n] = (int)(uint32_t)json_integer_value(c);
        e->groups[e->n] = e->n;
        e->n++;
    }
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
        s->composed_evals = (long)json_integer_value(json_object_get(saved, "composed_evals"));
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
        recall_edits(json_object_get(saved, "best_edit_codes"), &s->best_edits);
        const json_t *screened = json_object_get(saved, "screen");
        s->screen_evals = (long)json_integer_value(json_object_get(screened, "evals"));
        s->screen_rounds = (int)json_integer_value(json_object_get(screened, "rounds"));
    }
    json_decref(doc);
}
