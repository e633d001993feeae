/*
 * bench_corpus.c — the judge of every search change: each corpus kernel
 * (kernels/corpus/) searched by gdivan, random-ga and random at one
 * evaluation budget over several seeds, set against its hand-built known
 * worst input.
 *
 *   bench_corpus [--quick] [--kernels a,b] [--evals N] [--seeds S]
 *                [--explore-time S] [--timeout S] [--jobs J] [--hunt-jobs N] [--order O] [--inputs-only]
 *                [--reuse] [--retry-failed] [--out DIR] [--md FILE] [--json FILE] [--csv FILE]
 *                [--warphunt PATH] [--holdout DIR]
 *
 * Per kernel, on the sim: every candidate worst input of the kernel's
 * header and its best input, measured (the longest candidate is the
 * reference, "known worst"), the longest of 5 random inputs, then
 * `warphunt hunt` for each strategy and seed (gdivan's first seed alone,
 * so that the symbolic stage runs once and the others reuse its cache;
 * then the rest, --jobs at a time).  A run that does not end within
 * --timeout seconds is stopped (SIGINT, then SIGKILL) and counted as
 * failed, as is one that exits with an error: the table says which.
 *
 * Reported per kernel and strategy: the best input re-measured as a
 * fraction of the known worst (mean and range over seeds), the seeds that
 * reached 99 % of it, the median evaluations and wall seconds to get
 * there (gdivan's symbolic stage included), and gdivan against each
 * baseline by ranks of the re-measured times (A12, two-sided
 * Mann-Whitney p).  The summary line counts the kernels on which gdivan
 * reaches >= 95 % of the known worst (mean over seeds) and on which it
 * beats random (p <= 0.05, A12 > 0.5), ties, or loses (p <= 0.05, A12 <
 * 0.5); then when each strategy's runs reach 99 % of their own best,
 * random's final best (the median of its seeds' bests) and 99 % of
 * gdivan's (likewise).  Writes a markdown table (--md, default bench/corpus.md) and JSON
 * (--json, default bench/corpus.json), and with --csv FILE the main table
 * as CSV; the runs go under --out (default build/corpus).  --quick: the kernels marked quick, 200 evaluations, 3
 * seeds, a 10 s symbolic stage: a CI-sized run, whose table goes to
 * build/corpus/quick.{md,json} unless --md/--json say otherwise.
 * --reuse: a run under --out with the same kernel, budget, symbolic
 * stage, strategy and seed that finished before is read, not run again
 * (a long campaign can be run a few kernels at a time); so is a run that
 * failed (its DIR.failed records why: an out-of-memory kill is not worth
 * repeating), unless --retry-failed.  --inputs-only: the hand
 * inputs and random ones only, no searches (the table goes to
 * build/corpus/inputs.md, never over the committed one).
 * --hunt-jobs N: each hunt measures on N threads (default 1, so that
 * --jobs hunts share the cores), and every gdivan seed explores on its own
 * (no cache) with its scout (random testing on a spare core while the
 * stage runs): a user's single run on an N-core machine; give --jobs 1.
 * The wall times then are each run's own, its stage and scout included
 * (scout.csv's rows before history.csv's).  --stage-each: every gdivan
 * seed explores on its own (no cache) at one thread per hunt, so that the
 * seeds' spread includes the symbolic stage's run-to-run variance (its
 * atom phase is timed: atoms, composition and refinement move between
 * stages); the table is that of one user's run per seed.  --no-scout: gdivan's runs
 * without it (hunt --no-scout), the baseline the scout is judged against;
 * --no-edit-screen: gdivan without its edit screen (hunt --no-edit-screen).
 * --no-location-feedback: gdivan without its archive (hunt --no-location-feedback).
 * --no-saturation: gdivan's symbolic stage stopped by its budgets only
 * (hunt --explore-saturation 0).  --no-warp-refine: gdivan without the
 * warp-first unit's element refinement (hunt --warp-refine 0).
 * --no-refine-dictionary: its refinement drawing uniformly only (hunt
 * --no-refine-dictionary).  --no-refine-work-ties: its refinement keeping
 * longer units only (hunt --no-refine-work-ties).  --no-scout-screen: its scout measuring random
 * inputs only (hunt --no-scout-screen).  --no-end-edits: its screens without the ends
 * edits (hunt --no-end-edits).
 * --order O: gdivan's symbolic stage in that order (hunt --order), for
 * judging `--order time` against the default.
 *
 * --holdout DIR: the same campaign on the held-out kernels DIR/NAME.json
 * (kernels/holdout/: written by new users, never tuned against), each
 * set against the one worst input its author built by hand, made by
 * `sh DIR/NAME.worst.sh WARPHUNT OUTDIR` under --out; no known best.  The
 * tables go to bench/holdout.{md,json}, the runs under build/holdout.
 */
#include "core/clock.h"
#include "core/hash.h"
#include "core/image.h"
#include "core/results.h"
#include "core/stats.h"
#include "harness/harness.h"
#include "kernels/corpus/corpus.h"

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSTRATS 3
#define MAX_SEEDS 32
#define NRANDOM 5

static const char *const strategies[NSTRATS] = { "gdivan", "random-ga", "random" };

/* gdivan with one switch flipped: without one of its extensions (the
 * baseline it is judged against): the bench's option, the hunt's
 * arguments for it, the suffix of its runs' directories (in this order
 * after -noscout) and its key in the bench's JSON.  (Session 47's
 * --end-edits ran the ends edits while they were off by default; its
 * files say end_edits.) */
typedef struct {
    const char *option;
    const char *hunt_args[2];
    const char *suffix, *json_key;
} ablation;

static const ablation ablations[] = {
    { "--no-edit-screen", { "--no-edit-screen" }, "-noscreen", "no_edit_screen" },
    { "--no-location-feedback", { "--no-location-feedback" }, "-nofeedback", "no_location_feedback" },
    { "--no-lane-amplify", { "--no-lane-amplify" }, "-noamplify", "no_lane_amplify" },
    { "--no-saturation", { "--explore-saturation", "0" }, "-nosat", "no_saturation" },
    { "--no-warp-refine", { "--warp-refine", "0" }, "-norefine", "no_warp_refine" },
    { "--no-refine-dictionary", { "--no-refine-dictionary" }, "-nodict", "no_refine_dictionary" },
    { "--no-refine-work-ties", { "--no-refine-work-ties" }, "-noties", "no_refine_work_ties" },
    { "--no-scout-screen", { "--no-scout-screen" }, "-noscoutscreen", "no_scout_screen" },
    { "--no-end-edits", { "--no-end-edits" }, "-noends", "no_end_edits" },
};
#define NABLATIONS ((int)(sizeof ablations / sizeof *ablations))

typedef struct {
    bool quick, inputs_only, reuse, retry_failed;
    const char *kernels;        /* comma-separated names, or NULL: all */
    long evals;
    int seeds, jobs;
    int hunt_jobs;              /* evaluation threads per hunt; > 1: every gdivan seed explores */
    bool stage_each;            /* every gdivan seed explores (no cache), one thread each */
    bool no_scout;              /* gdivan without its scout (a baseline for it) */
    bool without[NABLATIONS];   /* gdivan with ablations[i] flipped (the same) */
    const char *order;          /* gdivan's symbolic stage order (hunt --order), NULL: hunt's default */
    double explore_time, timeout;
    const char *out, *md, *json, *csv, *warphunt; /* csv: NULL, none */
    const char *merge;          /* comma-separated saved JSON files: tables from them, no run */
    const char *holdout;        /* a folder of held-out specs (--holdout), or NULL: the corpus */
} args_t;

/* One `warphunt hunt`: what it was asked, and what it reported. */
typedef struct {
    char dir[1024], log[1100], summary[1100];
    char *argv[40];
    char argbuf[40][1100];
    int argc;
    int strategy;               /* index in strategies[] */
    bool ok;                    /* exited 0 with a summary */
    char why[1300];             /* when not ok */
    double best, remeasured;    /* search fitness, final re-measured mean */
    long evals;
    double explore_s;           /* gdivan: the symbolic stage's time */
    double search_offset;       /* history.csv's time 0 on the run's clock (its stage's start) */
    bool cached;                /* gdivan: the stage came from the cache (it ran for an earlier seed) */
    double stage_added;         /* a cached stage's seconds added to its walls (its first seed's) */
    bool scout_head;            /* gdivan on one core: scout.csv's rows came before the stage */
    char stage_failed[600];     /* gdivan: why the stage gave no atom (it searched on), or "" */
    long evals_to_99;           /* -1: never reached 99 % of the known worst */
    double wall_to_99;          /* seconds, symbolic stage included */
    double wall_to_own_99;      /* seconds to 99 % of the run's own best, likewise */
    double wall_to_random;      /* seconds to random's final best (time_to_random), likewise;
                                   -1 never, -2 unknown (a merged run saved without it) */
    double wall_to_random99;    /* seconds to 99 % of it, likewise */
    double wall_to_gdivan99;    /* seconds to 99 % of gdivan's final best (time_to_gdivan), likewise */
} run_t;

typedef struct {
    const corpus_kernel *k;
    /* A held-out kernel (--holdout): its name, and its one candidate worst
     * input, built by the user's script DIR/NAME.worst.sh; no known best. */
    corpus_kernel own;
    char own_name[128], script[600];
    char spec[512], ptx[1024];
    char spec_hash[17], ptx_hash[17];
    char unit[16];
    bool ok;
    char why[1100];
    double cand[CORPUS_MAX_WORST];  /* candidate worst inputs' times */
    int ncand, ref;                 /* ref: the longest candidate */
    double worst, best, random;
    run_t runs[NSTRATS][MAX_SEEDS];
} kernel_t;

static int usage(void)
{
    fprintf(stderr, "usage: bench_corpus [--quick] [--kernels a,b] [--evals N] [--seeds S] [--explore-time S]\n"
                    "                    [--timeout S] [--jobs J] [--hunt-jobs N] [--stage-each] [--no-scout]\n"
                    "                    [--no-edit-screen]\n"
                    "                    [--no-location-feedback] [--no-lane-amplify] [--no-saturation]\n"
                    "                    [--no-warp-refine]\n"
                    "                    [--no-refine-dictionary] [--no-refine-work-ties] [--no-scout-screen]\n"
                    "                    [--no-end-edits]\n"
                    "                    [--order O] [--inputs-only]\n"
                    "                    [--reuse]\n"
                    "                    [--out DIR]\n"
                    "                    [--retry-failed] [--md FILE] [--json FILE] [--csv FILE]\n"
                    "                    [--warphunt PATH] [--holdout DIR]\n"
                    "       bench_corpus --merge A.json,B.json [--md FILE] [--json FILE] [--csv FILE]\n");
    return 2;
}

/* ---- the hand-built inputs ------------------------------------------------ */

/* FNV-1a 64 of a file's bytes, in hex; "" when it cannot be read. */
static double sim_time(harness *h, wh_image *img, wh_error *err)
{
    harness_result r;
    if (!harness_measure(h, img, 1, &r, err))
        return -1;
    double t = r.status == HARNESS_OK ? r.mean : -1;
    if (t < 0)
        wh_error_set(err, WH_ERR_DEVICE, NULL, 0, 0, "%s: %s", harness_status_name(r.status), r.message);
    harness_result_free(&r);
    return t;
}

static double input_time(harness *h, wh_image *img, const corpus_input *in, wh_error *err)
{
    if (!corpus_build(in, img, err)) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        wh_error_set(err, err->kind, NULL, 0, 0, "input %s: %s", in->name, msg);
        return -1;
    }
    double t = sim_time(h, img, err);
    if (t < 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        wh_error_set(err, err->kind, NULL, 0, 0, "input %s: %s", in->name, msg);
    }
    return t;
}

/* The held-out kernel's candidate: its script builds the input into a
 * folder under --out, which is loaded and measured. */
static double script_input_time(const args_t *a, const kernel_t *kt, const wh_spec *s, harness *h, wh_error *err)
{
    char dir[1200], log[1300], cmd[8192];
    snprintf(dir, sizeof dir, "%s/inputs/%s-expert", a->out, kt->k->name);
    snprintf(log, sizeof log, "%s.log", dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p \"$(dirname '%s')\" && sh '%s' '%s' '%s' > '%s' 2>&1", dir, dir,
             kt->script, a->warphunt, dir, log);
    int st = system(cmd);
    if (st != 0) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "%s failed (exit status %d; see %s)", kt->script,
                     WIFEXITED(st) ? WEXITSTATUS(st) : -1, log);
        return -1;
    }
    wh_image *img = wh_image_load(s, dir, err);
    double t = img ? sim_time(h, img, err) : -1;
    wh_image_free(img);
    if (t < 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        wh_error_set(err, err->kind, NULL, 0, 0, "input %s (%s): %s", kt->k->worst[0].name, dir, msg);
    }
    return t;
}

static bool measure_inputs(const args_t *a, kernel_t *kt, wh_error *err)
{
    bool ok = false;
    wh_image *img = NULL;
    harness *h = NULL;
    wh_spec *s = wh_spec_load(kt->spec, err);
    if (!s)
        return false;
    snprintf(kt->spec_hash, sizeof kt->spec_hash, "%s", s->hash);
    if (!wh_spec_ptx_path(s, kt->ptx, sizeof kt->ptx, err))
        goto out;
    wh_file_hash_hex(kt->ptx, kt->ptx_hash);
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    if (!(h = harness_open(s, HARNESS_SIM, &o, err)))
        goto out;
    snprintf(kt->unit, sizeof kt->unit, "%s", harness_unit(h));
    wh_launch full = wh_spec_launch_full(s);
    if (!(img = wh_image_new(s, &full, err)))
        goto out;
    kt->worst = -1;
    kt->best = -1;
    if (kt->script[0]) {
        if ((kt->worst = kt->cand[0] = script_input_time(a, kt, s, h, err)) < 0) goto out;
        kt->ncand = 1;
    }
    for (; !kt->script[0] && kt->ncand < CORPUS_MAX_WORST && kt->k->worst[kt->ncand].build; kt->ncand++) {
        double t = input_time(h, img, &kt->k->worst[kt->ncand], err);
        if (t < 0)
            goto out;
        kt->cand[kt->ncand] = t;
        if (t > kt->worst) {
            kt->worst = t;
            kt->ref = kt->ncand;
        }
    }
    if (kt->k->best.build && (kt->best = input_time(h, img, &kt->k->best, err)) < 0)
        goto out;
    kt->random = 0;
    for (uint64_t seed = 1; seed <= NRANDOM; seed++) {
        pcg32 rng;
        pcg32_seed(&rng, seed, 0);
        double t;
        if (!wh_image_fill_random(img, &rng, err) || (t = sim_time(h, img, err)) < 0)
            goto out;
        if (t > kt->random)
            kt->random = t;
    }
    ok = kt->ncand > 0;
    if (!ok)
        wh_error_set(err, WH_ERR_INTERNAL, kt->spec, 0, 0, "no candidate worst input");
out:
    wh_image_free(img);
    harness_close(h);
    wh_spec_free(s);
    return ok;
}

/* ---- the searches ----------------------------------------------------------- */

static void add_arg(run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_arg(run_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->argbuf[r->argc], sizeof r->argbuf[0], fmt, ap);
    va_end(ap);
    r->argv[r->argc] = r->argbuf[r->argc];
    r->argv[++r->argc] = NULL;
}

/* Does every gdivan seed run its own symbolic stage (no cache)? */
static bool each_explores(const args_t *a)
{
    return a->hunt_jobs > 1 || a->stage_each;
}

static void plan_run(const args_t *a, kernel_t *kt, int st, int seed, run_t *r)
{
    memset(r, 0, sizeof *r);
    r->strategy = st;
    bool ordered = a->order && st == 0;
    char without[128] = "";
    for (int i = 0; i < NABLATIONS && st == 0; i++)
        if (a->without[i]) strncat(without, ablations[i].suffix, sizeof without - strlen(without) - 1);
    snprintf(r->dir, sizeof r->dir, "%s/runs/%s/e%ld-x%g%s/%s%s%s%s%s-s%d", a->out, kt->k->name, a->evals,
             a->explore_time, each_explores(a) ? "-each" : "", strategies[st], a->no_scout && !st ? "-noscout" : "",
             without, ordered ? "-order-" : "", ordered ? a->order : "", seed);
    snprintf(r->log, sizeof r->log, "%s.log", r->dir);
    snprintf(r->summary, sizeof r->summary, "%s.json", r->dir);
    add_arg(r, "%s", a->warphunt);
    add_arg(r, "hunt");
    add_arg(r, "%s", kt->spec);
    add_arg(r, "--backend");
    add_arg(r, "sim");
    add_arg(r, "--strategy");
    add_arg(r, "%s", strategies[st]);
    add_arg(r, "--seed");
    add_arg(r, "%d", seed);
    add_arg(r, "--evals");
    add_arg(r, "%ld", a->evals);
    add_arg(r, "--patience");
    add_arg(r, "0");
    add_arg(r, "--final-reps");
    add_arg(r, "1");            /* the sim is exact: one re-measurement is the time */
    add_arg(r, "--explore-time");
    add_arg(r, "%g", a->explore_time);
    add_arg(r, "--results");
    add_arg(r, "%s/results", a->out);
    add_arg(r, "-o");
    add_arg(r, "%s", r->dir);
    /* the campaign runs --jobs hunts at once: one evaluation thread each
     * keeps the cores from being shared twice over (the runs are the same) */
    add_arg(r, "--jobs");
    add_arg(r, "%d", a->hunt_jobs);
    if (each_explores(a) && st == 0)
        add_arg(r, "--no-cache");
    if (a->no_scout && st == 0)
        add_arg(r, "--no-scout");
    for (int i = 0; i < NABLATIONS && st == 0; i++)
        for (int k = 0; k < 2 && a->without[i] && ablations[i].hunt_args[k]; k++)
            add_arg(r, "%s", ablations[i].hunt_args[k]);
    if (ordered) {
        add_arg(r, "--order");
        add_arg(r, "%s", a->order);
    }
    add_arg(r, "--no-explain"); /* a campaign compares searches; explain one best input afterwards */
    add_arg(r, "--json");
    add_arg(r, "--quiet");
    r->evals_to_99 = -1;
    r->wall_to_random = -2;
    r->wall_to_random99 = -2;
}

static pid_t start_run(run_t *r)
{
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.failed'", r->dir, r->dir);
    if (system(cmd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    FILE *out = freopen(r->summary, "w", stdout);
    FILE *log = freopen(r->log, "w", stderr);
    if (out && log)
        execv(r->argv[0], r->argv);
    _exit(127);
}

/* Every evaluation of run r in order: scout.csv's (timed from the stage's
 * start) then history.csv's (shifted onto that clock), with the run's best
 * so far over both and its evaluation number among them; a cached stage's
 * seconds (stage_added) are added to every time after the stage (a head
 * start's scout rows came before it, but for its generation-1 row, the
 * warp-first composed individual measured after the stage).  false: no
 * history. */
static bool each_row(const run_t *r, void (*fn)(void *ctx, long ev, double wall, double best), void *ctx)
{
    static const char *const files[] = { "scout.csv", "history.csv" };
    double best_so_far = 0;
    long n = 0;
    for (int k = 0; k < 2; k++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", r->dir, files[k]);
        FILE *f = fopen(path, "r");
        if (!f) {
            if (k == 1) return false;
            continue;
        }
        char line[256];
        long ev;
        int gen;
        double wall, fit, best;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "%ld,%d,%lf,%lf,%lf", &ev, &gen, &wall, &fit, &best) == 5) {
                bool before_stage = k == 0 && r->scout_head && gen == 0;
                double shift = (before_stage ? 0 : r->stage_added) + (k == 1 ? r->search_offset : 0);
                if (best > best_so_far) best_so_far = best;
                fn(ctx, ++n, wall + shift, best_so_far);
            }
        fclose(f);
    }
    return true;
}

static void max_best(void *ctx, long ev, double wall, double best)
{
    double *own = ctx;
    (void)ev, (void)wall;
    if (best > *own) *own = best;
}

/* The first rows at 99 % of the run's own best and of the known worst. */
typedef struct {
    run_t *r;
    double own, worst;
    bool own_seen;
} reach_t;

static void first_reach(void *ctx, long ev, double wall, double best)
{
    reach_t *c = ctx;
    if (!c->own_seen && best >= 0.99 * c->own) {
        c->r->wall_to_own_99 = wall;
        c->own_seen = true;
    }
    if (c->r->evals_to_99 < 0 && best >= 0.99 * c->worst) {
        c->r->evals_to_99 = ev;
        c->r->wall_to_99 = wall;
    }
}

/* When run r's rows first reach 99 % of its own best and of the known
 * worst (on the clock stage_added says); false: no history. */
static bool find_reach(run_t *r, double worst)
{
    double own = 0;
    if (!each_row(r, max_best, &own)) return false;
    reach_t reach = { r, own, worst, false };
    r->evals_to_99 = -1;
    each_row(r, first_reach, &reach);
    return true;
}

/* Parse the summary and history of a finished run. */
static void read_run(run_t *r, double worst)
{
    json_error_t je;
    json_t *sum = json_load_file(r->summary, 0, &je);
    if (!json_is_object(sum)) {
        snprintf(r->why, sizeof r->why, "no summary (see %s)", r->log);
        json_decref(sum);
        return;
    }
    r->best = json_number_value(json_object_get(sum, "best"));
    r->remeasured = json_number_value(json_object_get(json_object_get(sum, "final"), "mean"));
    if (r->remeasured <= 0)
        r->remeasured = r->best;
    r->evals = (long)json_integer_value(json_object_get(sum, "evals"));
    const char *failed = json_string_value(json_object_get(json_object_get(sum, "explore"), "failed"));
    snprintf(r->stage_failed, sizeof r->stage_failed, "%s", failed ? failed : "");
    json_decref(sum);
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", r->dir);
    json_t *run = json_load_file(path, 0, &je);
    json_t *explore = json_object_get(run, "explore");
    r->explore_s = json_number_value(json_object_get(explore, "time_s"));
    /* runs made before search_offset_s: the stage's time when it ran */
    json_t *offset = json_object_get(run, "search_offset_s");
    r->cached = json_is_true(json_object_get(explore, "cached"));
    r->search_offset = offset ? json_number_value(offset) : r->cached ? 0 : r->explore_s;
    r->scout_head = json_is_true(json_object_get(json_object_get(run, "scout"), "head"));
    json_decref(run);
    r->ok = find_reach(r, worst);
    if (!r->ok) snprintf(r->why, sizeof r->why, "no %s/history.csv", r->dir);
}

/* A finished run records the PTX it measured, for --reuse, and drops its
 * search state (the benchmark never resumes; a random-ga pool.bin reaches
 * gigabytes on kernels with large shared inputs). */
static void stamp_run(const run_t *r, const kernel_t *kt)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/pool.bin", r->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/checkpoint.bin", r->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/bench-ptx-hash", r->dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", kt->ptx_hash);
        fclose(f);
    }
}

/* A failed run leaves DIR.failed: the PTX hash, then why. */
static void stamp_failure(const run_t *r, const kernel_t *kt)
{
    char path[1200];
    snprintf(path, sizeof path, "%s.failed", r->dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n%s\n", kt->ptx_hash, r->why);
        fclose(f);
    }
}

/* --reuse without --retry-failed: a recorded failure on the same PTX
 * bytes is reported again, not run again. */
static bool reuse_failure(run_t *r, const kernel_t *kt)
{
    char path[1200], stamp[32] = "", why[1000] = "";
    snprintf(path, sizeof path, "%s.failed", r->dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool same = fgets(stamp, sizeof stamp, f) && !strncmp(stamp, kt->ptx_hash, 16) && fgets(why, sizeof why, f);
    fclose(f);
    why[strcspn(why, "\n")] = 0;
    if (same)
        snprintf(r->why, sizeof r->why, "%s (an earlier run; --retry-failed runs it again)", why);
    return same;
}

/* --reuse: a run of the same budget that finished before, on the same
 * spec and the same PTX bytes, counts as done. */
static bool reuse_run(run_t *r, const kernel_t *kt)
{
    char path[1200], stamp[32] = "";
    snprintf(path, sizeof path, "%s/bench-ptx-hash", r->dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool stamped = fgets(stamp, sizeof stamp, f) && !strncmp(stamp, kt->ptx_hash, 16);
    fclose(f);
    snprintf(path, sizeof path, "%s/run.json", r->dir);
    json_error_t je;
    json_t *run = stamped ? json_load_file(path, 0, &je) : NULL;
    const char *state = json_string_value(json_object_get(run, "state"));
    const char *hash = json_string_value(json_object_get(run, "spec_hash"));
    bool same = state && !strcmp(state, "finished") && hash && !strcmp(hash, kt->spec_hash);
    json_decref(run);
    if (same)
        read_run(r, kt->worst);
    return same && r->ok;
}

typedef struct {
    run_t *run;
    pid_t pid;
    double started, sigint_at;
} slot_t;

/* Reap what ended; stop what ran too long.  Returns the slots still busy. */
static int poll_slots(slot_t *slots, int n, double timeout, const kernel_t *kt)
{
    int busy = 0;
    for (int i = 0; i < n; i++) {
        slot_t *s = &slots[i];
        if (!s->run)
            continue;
        int st;
        pid_t w = waitpid(s->pid, &st, WNOHANG);
        if (w == s->pid) {
            if (s->sigint_at > 0)
                snprintf(s->run->why, sizeof s->run->why, "stopped after %.0f s (--timeout)", timeout);
            else if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
                read_run(s->run, kt->worst);
                if (s->run->ok)
                    stamp_run(s->run, kt);
            }
            else {
                snprintf(s->run->why, sizeof s->run->why, "exit status %d (see %s)",
                         WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), s->run->log);
                stamp_failure(s->run, kt);
            }
            s->run = NULL;
            continue;
        }
        busy++;
        double now = wh_clock_s();
        if (s->sigint_at == 0 && now - s->started > timeout) {
            kill(s->pid, SIGINT);
            s->sigint_at = now;
        } else if (s->sigint_at > 0 && now - s->sigint_at > 20)
            kill(s->pid, SIGKILL);
    }
    return busy;
}

/* Run every run in list, at most `jobs` at a time. */
static void run_all(run_t **list, int n, int jobs, double timeout, const kernel_t *kt)
{
    slot_t slots[16];
    memset(slots, 0, sizeof slots);
    int next = 0;
    for (;;) {
        int busy = poll_slots(slots, jobs, timeout, kt);
        for (int i = 0; i < jobs && next < n; i++) {
            if (slots[i].run)
                continue;
            slots[i].run = list[next++];
            slots[i].started = wh_clock_s();
            slots[i].sigint_at = 0;
            slots[i].pid = start_run(slots[i].run);
            if (slots[i].pid < 0) {
                snprintf(slots[i].run->why, sizeof slots[i].run->why, "cannot start %s", slots[i].run->argv[0]);
                slots[i].run = NULL;
            } else
                busy++;
        }
        if (busy == 0 && next == n)
            return;
        usleep(100 * 1000);
    }
}

static void search_kernel(const args_t *a, kernel_t *kt)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/runs/%s/e%ld-x%g%s'", a->out, kt->k->name, a->evals, a->explore_time,
             each_explores(a) ? "-each" : "");
    if (system(cmd) != 0)
        return;
    run_t *rest[NSTRATS * MAX_SEEDS];
    int n = 0;
    bool first_done = false;
    for (int st = 0; st < NSTRATS; st++)
        for (int seed = 1; seed <= a->seeds; seed++) {
            run_t *r = &kt->runs[st][seed - 1];
            plan_run(a, kt, st, seed, r);
            if (a->reuse && (reuse_run(r, kt) || (!a->retry_failed && reuse_failure(r, kt)))) {
                first_done |= !st && seed == 1;
                continue;
            }
            if (st || seed > 1)
                rest[n++] = r;
        }
    run_t *first = &kt->runs[0][0];
    if (!first_done)
        run_all(&first, 1, 1, a->timeout, kt);
    /* The other gdivan seeds would meet the same symbolic stage, uncached:
     * when the first seed failed they are reported, not run again. */
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (!first->ok && rest[i]->strategy == 0) {
            snprintf(rest[i]->why, sizeof rest[i]->why, "not run: the first seed failed");
            continue;
        }
        rest[kept++] = rest[i];
    }
    run_all(rest, kept, a->jobs, a->timeout, kt);
    /* Every gdivan seed pays for the symbolic stage: a seed that found it
     * cached pays the first seed's (with --hunt-jobs, each explored).  A
     * cached seed's search_offset is the cache's load, not the stage. */
    double explore = first->ok ? first->explore_s : 0;
    for (int seed = 0; seed < a->seeds; seed++) {
        run_t *r = &kt->runs[0][seed];
        if (!r->ok || (r->search_offset > 0 && !r->cached))
            continue;
        r->explore_s = explore;
        r->stage_added = explore;
        find_reach(r, kt->worst);
    }
}

/* ---- the report ----------------------------------------------------------- */

typedef struct {
    int nok, reached;
    double mean, lo, hi;        /* re-measured best / known worst */
    double med_evals, med_wall; /* over the seeds that reached 99 % */
    double med_own;             /* median wall seconds to 99 % of a run's own best */
    /* wall seconds until the run's best reaches random's final best (the
     * median over random's seeds): median over the seeds that did, and
     * how many did */
    double med_to_random;
    int reached_random;
    /* the same to 99 % of random's final best, a level every strategy's
     * runs meet, random's too: the like-for-like race */
    double med_to_random99;
    int reached_random99;
    /* the same race at 99 % of gdivan's final best (the median of its
     * seeds' bests): the median over all seeds, a seed that never got
     * there counting as never (HUGE_VAL); -1 unknown (a merged run saved
     * without it) */
    double med_to_gdivan99;
    double x[MAX_SEEDS];        /* re-measured bests, for the rank tests */
} strat_stats;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void stats_of(const kernel_t *kt, int st, int seeds, strat_stats *s)
{
    memset(s, 0, sizeof *s);
    s->lo = 1e300;
    double ev[MAX_SEEDS], wall[MAX_SEEDS], own[MAX_SEEDS];
    for (int i = 0; i < seeds; i++) {
        const run_t *r = &kt->runs[st][i];
        if (!r->ok)
            continue;
        double f = r->remeasured / kt->worst;
        own[s->nok] = r->wall_to_own_99;
        s->x[s->nok++] = r->remeasured;
        s->mean += f;
        s->lo = f < s->lo ? f : s->lo;
        s->hi = f > s->hi ? f : s->hi;
        if (r->evals_to_99 >= 0) {
            ev[s->reached] = (double)r->evals_to_99;
            wall[s->reached++] = r->wall_to_99;
        }
    }
    if (s->nok) {
        s->mean /= s->nok;
        s->med_own = median(own, s->nok);
    }
    if (s->reached) {
        s->med_evals = median(ev, s->reached);
        s->med_wall = median(wall, s->reached);
    }
}

/* Wall seconds (its symbolic stage included) until run r's best reached
 * `level`; -1 if it never did. */
static void first_at_level(void *ctx, long ev, double wall, double best)
{
    double *c = ctx;   /* c[0]: the level, c[1]: when, -1 until reached */
    (void)ev;
    if (c[1] < 0 && best >= c[0]) c[1] = wall;
}

static double wall_to_level(const run_t *r, double level)
{
    double c[2] = { level, -1 };
    return each_row(r, first_at_level, c) ? c[1] : -1;
}

/* How soon each strategy's runs reach the level random testing ends at
 * (the median of its seeds' bests), from each run's history, kept in the
 * run for the JSON; a merged run uses the figure it was saved with, and a
 * strategy with a run saved without one has reached_random -1 (unknown). */
/* A strategy's final best: the median of its seeds' bests; false when
 * none of its runs is ok. */
static bool final_best(const kernel_t *kt, int st, int seeds, double *level)
{
    double bests[MAX_SEEDS];
    int n = 0;
    for (int i = 0; i < seeds; i++)
        if (kt->runs[st][i].ok) bests[n++] = kt->runs[st][i].best;
    if (n)
        *level = median(bests, n);
    return n > 0;
}

static void time_to_random(kernel_t *kt, int seeds, bool merged, strat_stats *s)
{
    double t[MAX_SEEDS], t99[MAX_SEEDS], level;
    if (!final_best(kt, NSTRATS - 1, seeds, &level))
        return;
    for (int st = 0; st < NSTRATS; st++) {
        int k = 0, k99 = 0;
        bool unknown = false, unknown99 = false;
        for (int i = 0; i < seeds; i++) {
            run_t *r = &kt->runs[st][i];
            if (!r->ok) continue;
            if (!merged) {
                r->wall_to_random = wall_to_level(r, level);
                r->wall_to_random99 = wall_to_level(r, 0.99 * level);
            }
            unknown |= r->wall_to_random == -2;
            unknown99 |= r->wall_to_random99 == -2;
            if (r->wall_to_random >= 0) t[k++] = r->wall_to_random;
            if (r->wall_to_random99 >= 0) t99[k99++] = r->wall_to_random99;
        }
        s[st].reached_random = unknown ? -1 : k;
        s[st].med_to_random = k ? median(t, k) : 0;
        s[st].reached_random99 = unknown99 ? -1 : k99;
        s[st].med_to_random99 = k99 ? median(t99, k99) : 0;
    }
}

/* How soon each strategy's runs reach 99 % of gdivan's final best (the
 * median of its seeds' bests): the level the wall-time goal is
 * about seen from gdivan's side, where the goal's "each to its own best"
 * asks a search that finds more to be as quick as one that stops early. */
static void time_to_gdivan(kernel_t *kt, int seeds, bool merged, strat_stats *s)
{
    double t[MAX_SEEDS], level;
    if (!final_best(kt, 0, seeds, &level))
        return;
    level *= 0.99;
    for (int st = 0; st < NSTRATS; st++) {
        int k = 0;
        bool unknown = false;
        for (int i = 0; i < seeds; i++) {
            run_t *r = &kt->runs[st][i];
            if (!r->ok) continue;
            if (!merged)
                r->wall_to_gdivan99 = wall_to_level(r, level);
            unknown |= r->wall_to_gdivan99 == -2;
            t[k++] = r->wall_to_gdivan99 >= 0 ? r->wall_to_gdivan99 : HUGE_VAL;
        }
        s[st].med_to_gdivan99 = unknown ? -1 : k ? median(t, k) : HUGE_VAL;
    }
}

typedef enum { V_NONE, V_WIN, V_TIE, V_LOSS } verdict;

static verdict against(const strat_stats *g, const strat_stats *b, wh_rank_test *t)
{
    if (!g->nok || !b->nok || !wh_rank_test_run(g->x, g->nok, b->x, b->nok, t))
        return V_NONE;
    if (t->p_value <= 0.05)
        return t->a12 > 0.5 ? V_WIN : V_LOSS;
    return V_TIE;
}

static const char *verdict_name(verdict v)
{
    static const char *const names[] = { "-", "wins", "ties", "loses" };
    return names[v];
}

typedef struct {
    int kernels, reach95, win, tie, loss, failed, faster;
    int as_soon;                /* gdivan reaches random's best no later than random its own */
    int level_first;            /* gdivan reaches 99 % of random's best no later than random */
    int level_known;            /* kernels where that is known (runs saved with the figure) */
    int gdivan_level_first;     /* gdivan reaches 99 % of its own final best no later than random */
    int gdivan_level_known;     /* kernels where that is known */
} summary_t;

/* One kernel's figures for the main table, computed once and written as
 * markdown (one row per kernel) or CSV (one row per kernel and strategy). */
typedef struct {
    strat_stats s[NSTRATS];
    verdict v[NSTRATS];         /* gdivan against strategy st; V_NONE for gdivan itself */
    wh_rank_test t[NSTRATS];
} kernel_row;

static void kernel_row_of(const args_t *a, kernel_t *kt, kernel_row *row)
{
    memset(row, 0, sizeof *row);
    for (int st = 0; st < NSTRATS; st++)
        stats_of(kt, st, a->seeds, &row->s[st]);
    if (!a->inputs_only) {
        time_to_random(kt, a->seeds, a->merge != NULL, row->s);
        time_to_gdivan(kt, a->seeds, a->merge != NULL, row->s);
    }
    for (int st = 1; st < NSTRATS; st++)
        row->v[st] = against(&row->s[0], &row->s[st], &row->t[st]);
}

/* Every kernel's row (computed for the kernels that were measured) and the summary. */
static void rows_of(const args_t *a, kernel_t *ks, int n, kernel_row *rows, summary_t *sum)
{
    memset(sum, 0, sizeof *sum);
    for (int i = 0; i < n; i++) {
        sum->kernels++;
        if (!ks[i].ok) {
            sum->failed++;
            continue;
        }
        kernel_row_of(a, &ks[i], &rows[i]);
        if (a->inputs_only)
            continue;
        const strat_stats *s = rows[i].s;
        verdict vr = rows[i].v[2];
        sum->failed += !s[0].nok;
        sum->reach95 += s[0].nok && s[0].mean >= 0.95;
        sum->win += vr == V_WIN;
        sum->tie += vr == V_TIE;
        sum->loss += vr == V_LOSS;
        sum->faster += s[0].nok && s[2].nok && s[0].med_own <= s[2].med_own;
        sum->as_soon += s[0].reached_random >= 0 && s[0].reached_random * 2 > s[0].nok && s[2].nok &&
                        s[0].med_to_random <= s[2].med_own;
        bool known = s[0].reached_random99 >= 0 && s[2].reached_random99 >= 0 && s[2].nok;
        sum->level_known += known;
        sum->level_first += known && s[0].reached_random99 * 2 > s[0].nok &&
                            s[0].med_to_random99 <= s[2].med_to_random99;
        bool gknown = s[0].nok && s[2].nok && s[0].med_to_gdivan99 >= 0 && s[2].med_to_gdivan99 >= 0;
        sum->gdivan_level_known += gknown;
        sum->gdivan_level_first += gknown && s[0].med_to_gdivan99 <= s[2].med_to_gdivan99 &&
                                   s[0].med_to_gdivan99 < HUGE_VAL;
    }
}

static void md_row(FILE *f, const args_t *a, const kernel_t *kt, const kernel_row *row)
{
    const strat_stats *s = row->s;
    fprintf(f, "| %s | %.0f (%s) |", kt->k->name, kt->worst, kt->k->worst[kt->ref].name);
    if (kt->best >= 0)
        fprintf(f, " %.0f |", kt->best);
    else
        fprintf(f, " - |");
    fprintf(f, " %.0f |", kt->random);
    for (int st = 0; st < NSTRATS; st++) {
        if (a->inputs_only)
            fprintf(f, " |");
        else if (!s[st].nok)
            fprintf(f, " failed: %s |", kt->runs[st][0].why);
        else {
            fprintf(f, " %.3f [%.3f-%.3f]; %d/%d reached", s[st].mean, s[st].lo, s[st].hi, s[st].reached, a->seeds);
            if (s[st].reached)
                fprintf(f, ", %.0f ev, %.1f s", s[st].med_evals, s[st].med_wall);
            if (s[st].nok < a->seeds)
                fprintf(f, "; %d seeds failed", a->seeds - s[st].nok);
            fprintf(f, " |");
        }
    }
    for (int st = 1; st < NSTRATS; st++)
        if (row->v[st] == V_NONE)
            fprintf(f, " - |");
        else
            fprintf(f, " %s (A12 %.2f, p %.3f) |", verdict_name(row->v[st]), row->t[st].a12, row->t[st].p_value);
    fprintf(f, "\n");
}

static void write_md(FILE *f, const args_t *a, const kernel_t *ks, const kernel_row *rows, int n,
                     const summary_t *sum, const char *when)
{
    const char *unit = n ? ks[0].unit : "cycles";
    if (a->holdout)
        fprintf(f, "# bench_corpus --holdout %s: the search on held-out kernels, against their users' worst inputs\n\n",
                a->holdout);
    else
        fprintf(f, "# bench_corpus: the search against the corpus's known worst inputs\n\n");
    fprintf(f, "%s; sim backend (default profile); %ld evaluations per run, %d seeds, symbolic stage %g s; ",
            when, a->evals, a->seeds, a->explore_time);
    if (a->hunt_jobs > 1)
        fprintf(f, "one hunt at a time on %d evaluation threads, every gdivan seed exploring%s; ", a->hunt_jobs,
                a->no_scout ? " (--no-scout)" : " with its scout");
    else if (a->stage_each)
        fprintf(f, "every gdivan seed exploring on its own (--stage-each, no cache); ");
    if (a->hunt_jobs <= 1 && a->no_scout)
        fprintf(f, "gdivan with --no-scout; ");
    for (int i = 0; i < NABLATIONS; i++)
        if (a->without[i])
            fprintf(f, "gdivan with %s%s%s; ", ablations[i].hunt_args[0], ablations[i].hunt_args[1] ? " " : "",
                    ablations[i].hunt_args[1] ? ablations[i].hunt_args[1] : "");
    if (a->order)
        fprintf(f, "gdivan's symbolic stage with --order %s; ", a->order);
    fprintf(f, "`bench_corpus%s%s%s`.\n\n", a->quick ? " --quick" : "", a->merge ? " --merge " : "",
            a->merge ? a->merge : "");
    if (a->holdout)
        fprintf(f, "Known worst: the input the kernel's author built by hand (%s/NAME.worst.sh), in sim %s. Each",
                a->holdout, unit);
    else
        fprintf(f, "Known worst: the longest of the kernel's hand-built candidates (its header), in sim %s. Each",
                unit);
    fprintf(f, " strategy's best input re-measured, as a fraction of it: mean over seeds [min-max]; "
               "reached: seeds within 99 %%, with the median evaluations and wall seconds to get there "
               "(gdivan's symbolic stage included). gdivan vs X: A12 and two-sided Mann-Whitney p of the "
               "re-measured times.\n\n");
    fprintf(f, "| kernel | known worst (input) | best | random x%d | gdivan | random-ga | random | "
               "gdivan vs random-ga | gdivan vs random |\n|---|---|---|---|---|---|---|---|---|\n", NRANDOM);
    for (int i = 0; i < n; i++) {
        if (ks[i].ok)
            md_row(f, a, &ks[i], &rows[i]);
        else
            fprintf(f, "| %s | failed: %s | | | | | | | |\n", ks[i].k->name, ks[i].why);
    }
    if (!a->inputs_only) {
        fprintf(f, "\n**Summary**: of %d kernels, gdivan reaches >= 95 %% of the known worst on %d; against random "
                   "it wins (p <= 0.05) on %d, ties on %d, loses on %d; gdivan failed on %d; gdivan's median "
                   "wall time to 99 %% of its own best is no more than random's on %d.\n",
                sum->kernels, sum->reach95, sum->win, sum->tie, sum->loss, sum->failed, sum->faster);
        fprintf(f, "Its median wall time to random's final best (the median of random's seeds) is no more than "
                   "random's to 99 %% of its own on %d.\n", sum->as_soon);
        if (sum->level_known)
            fprintf(f, "Its median wall time to 99 %% of random's final best is no more than random's own on %d of "
                       "%d.\n", sum->level_first, sum->level_known);
        if (sum->gdivan_level_known)
            fprintf(f, "Its median wall time to 99 %% of its own final best (the median of its seeds' bests) is no "
                       "more than random's to the same level (a seed that never gets there counting as never) on "
                       "%d of %d.\n", sum->gdivan_level_first, sum->gdivan_level_known);
        fprintf(f, "\nWall seconds (median over seeds; gdivan's symbolic stage included) to 99 %% of each run's "
                   "own best, and to random's final best (the median of random's seeds' bests; in brackets the "
                   "seeds that reached it), and to 99 %% of that level (two decimals); then to 99 %% of gdivan's "
                   "final best (the median of its seeds' bests; the median over all seeds, never when the median "
                   "seed never got there):\n\n| kernel | gdivan | "
                   "random-ga | random | gdivan to random's best | random-ga to random's best | gdivan to 99 %% of "
                   "it | random to 99 %% of it | gdivan to 99 %% of gdivan's best | random to it |\n"
                   "|---|---|---|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < n; i++) {
            if (!ks[i].ok)
                continue;
            fprintf(f, "| %s |", ks[i].k->name);
            for (int st = 0; st < NSTRATS; st++)
                if (rows[i].s[st].nok)
                    fprintf(f, " %.1f |", rows[i].s[st].med_own);
                else
                    fprintf(f, " - |");
            for (int st = 0; st < NSTRATS - 1; st++)
                if (rows[i].s[st].reached_random < 0)
                    fprintf(f, " n/a |");
                else if (rows[i].s[st].reached_random)
                    fprintf(f, " %.1f (%d/%d) |", rows[i].s[st].med_to_random, rows[i].s[st].reached_random,
                            rows[i].s[st].nok);
                else
                    fprintf(f, " never |");
            for (int st = 0; st < NSTRATS; st += NSTRATS - 1)
                if (rows[i].s[st].reached_random99 < 0)
                    fprintf(f, " n/a |");
                else if (rows[i].s[st].reached_random99)
                    fprintf(f, " %.2f (%d/%d) |", rows[i].s[st].med_to_random99, rows[i].s[st].reached_random99,
                            rows[i].s[st].nok);
                else
                    fprintf(f, " never |");
            for (int st = 0; st < NSTRATS; st += NSTRATS - 1)
                if (rows[i].s[st].med_to_gdivan99 < 0)
                    fprintf(f, " n/a |");
                else if (rows[i].s[st].med_to_gdivan99 < HUGE_VAL)
                    fprintf(f, " %.2f |", rows[i].s[st].med_to_gdivan99);
                else
                    fprintf(f, " never |");
            fprintf(f, "\n");
        }
    }
    bool any = false;
    for (int i = 0; i < n && !a->inputs_only; i++) {
        const run_t *r = &ks[i].runs[0][0];
        if (!ks[i].ok || !r->ok || !r->stage_failed[0])
            continue;
        if (!any)
            fprintf(f, "\nSymbolic stage without atoms (gdivan searched with random atoms instead):\n\n");
        any = true;
        fprintf(f, "- %s: %s\n", ks[i].k->name, r->stage_failed);
    }
    fprintf(f, "\nCandidate worst inputs (sim %s):\n\n", unit);
    for (int i = 0; i < n; i++) {
        if (!ks[i].ok)
            continue;
        fprintf(f, "- %s:", ks[i].k->name);
        for (int c = 0; c < ks[i].ncand; c++)
            fprintf(f, " %s %.0f%s", ks[i].k->worst[c].name, ks[i].cand[c], c + 1 < ks[i].ncand ? ";" : "");
        if (ks[i].best >= 0)
            fprintf(f, "; best (%s) %.0f", ks[i].k->best.name, ks[i].best);
        fprintf(f, "\n");
    }
}

/* The main table's cells of one strategy of a measured kernel, from
 * "strategy" on (the kernel's own cells come first). */
static void csv_strategy(FILE *f, const args_t *a, const kernel_t *kt, const kernel_row *row, int st)
{
    const strat_stats *s = &row->s[st];
    fprintf(f, ",%s", strategies[st]);
    if (!s->nok) {
        fprintf(f, ",,,,,%d,,,%d,", a->seeds, a->seeds);
        wh_csv_text(f, kt->runs[st][0].why);
    } else {
        fprintf(f, ",%.9g,%.9g,%.9g,%d,%d,", s->mean, s->lo, s->hi, s->reached, a->seeds);
        if (s->reached)
            fprintf(f, "%.9g,%.9g", s->med_evals, s->med_wall);
        else
            fprintf(f, ",");
        fprintf(f, ",%d,", a->seeds - s->nok);
    }
    if (row->v[st] == V_NONE)
        fprintf(f, ",,,\n");
    else
        fprintf(f, ",%s,%.9g,%.9g\n", verdict_name(row->v[st]), row->t[st].a12, row->t[st].p_value);
}

/* The main table as CSV: one row per kernel and strategy (one per kernel
 * with --inputs-only), numbers unrounded, a strategy's cell split into its
 * figures, "gdivan vs X" on X's row. */
static void write_csv(FILE *f, const args_t *a, const kernel_t *ks, const kernel_row *rows, int n)
{
    fprintf(f, "kernel,known worst,known worst input,best,random x%d,strategy,fraction of known worst,"
               "fraction min,fraction max,seeds reached,seeds,median evaluations to reach,median wall s to reach,"
               "seeds failed,failed,gdivan vs strategy,A12,p\n", NRANDOM);
    for (int i = 0; i < n; i++) {
        const kernel_t *kt = &ks[i];
        int nrows = a->inputs_only ? 1 : NSTRATS;
        for (int st = 0; st < nrows; st++) {
            wh_csv_text(f, kt->k->name);
            if (!kt->ok) {
                fprintf(f, ",,,,,%s,,,,,,,,,", a->inputs_only ? "" : strategies[st]);
                wh_csv_text(f, kt->why);
                fprintf(f, ",,,\n");
                continue;
            }
            fprintf(f, ",%.9g,", kt->worst);
            wh_csv_text(f, kt->k->worst[kt->ref].name);
            if (kt->best >= 0)
                fprintf(f, ",%.9g,%.9g", kt->best, kt->random);
            else
                fprintf(f, ",,%.9g", kt->random);
            if (a->inputs_only)
                fprintf(f, ",,,,,,,,,,,,,\n");
            else
                csv_strategy(f, a, kt, &rows[i], st);
        }
    }
}

static json_t *run_json_figures(const run_t *r);

static json_t *run_json(const run_t *r)
{
    json_t *o = run_json_figures(r);
    if (r->ok && r->stage_added > 0)
        json_object_set_new(o, "stage_added_s", json_real(r->stage_added));
    if (r->ok && r->wall_to_random != -2)
        json_object_set_new(o, "wall_to_random_best_s", json_real(r->wall_to_random));
    if (r->ok && r->wall_to_random99 != -2)
        json_object_set_new(o, "wall_to_random_best99_s", json_real(r->wall_to_random99));
    if (r->ok && r->wall_to_gdivan99 != -2)
        json_object_set_new(o, "wall_to_gdivan_best99_s", json_real(r->wall_to_gdivan99));
    return o;
}

static json_t *run_json_figures(const run_t *r)
{
    if (!r->ok)
        return json_pack("{s:b, s:s}", "ok", 0, "why", r->why);
    if (r->stage_failed[0])
        return json_pack("{s:b, s:f, s:f, s:I, s:f, s:I, s:f, s:f, s:s}", "ok", 1, "best", r->best, "remeasured",
                         r->remeasured, "evals", (json_int_t)r->evals, "explore_s", r->explore_s, "evals_to_99",
                         (json_int_t)r->evals_to_99, "wall_to_99_s", r->wall_to_99, "wall_to_own_99_s",
                         r->wall_to_own_99, "stage_failed", r->stage_failed);
    return json_pack("{s:b, s:f, s:f, s:I, s:f, s:I, s:f, s:f}", "ok", 1, "best", r->best, "remeasured", r->remeasured,
                     "evals", (json_int_t)r->evals, "explore_s", r->explore_s, "evals_to_99",
                     (json_int_t)r->evals_to_99, "wall_to_99_s", r->wall_to_99, "wall_to_own_99_s",
                     r->wall_to_own_99);
}

static json_t *kernel_json(const args_t *a, const kernel_t *kt)
{
    if (!kt->ok)
        return json_pack("{s:s, s:b, s:s}", "kernel", kt->k->name, "ok", 0, "why", kt->why);
    json_t *cands = json_array();
    for (int c = 0; c < kt->ncand; c++)
        json_array_append_new(cands, json_pack("{s:s, s:f}", "input", kt->k->worst[c].name, "time", kt->cand[c]));
    json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:f, s:s, s:o, s:f, s:f}", "kernel", kt->k->name, "family",
                          kt->k->family, "ok", 1, "unit", kt->unit, "known_worst", kt->worst, "known_worst_input",
                          kt->k->worst[kt->ref].name, "candidates", cands, "known_best", kt->best, "best_random",
                          kt->random);
    if (kt->best < 0) json_object_set_new(o, "known_best", json_null());   /* a held-out kernel has none */
    if (a->inputs_only)
        return o;
    json_t *runs = json_object();
    for (int st = 0; st < NSTRATS; st++) {
        json_t *arr = json_array();
        for (int i = 0; i < a->seeds; i++)
            json_array_append_new(arr, run_json(&kt->runs[st][i]));
        json_object_set_new(runs, strategies[st], arr);
    }
    json_object_set_new(o, "runs", runs);
    return o;
}

static void write_json(const char *path, const args_t *a, kernel_t *ks, int n, const summary_t *sum,
                       const char *when)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(arr, kernel_json(a, &ks[i]));
    json_t *doc = json_pack("{s:s, s:s, s:I, s:i, s:f, s:b, s:o}", "date", when, "backend", "sim", "evals",
                            (json_int_t)a->evals, "seeds", a->seeds, "explore_time_s", a->explore_time, "quick",
                            a->quick, "kernels", arr);
    json_object_set_new(doc, "hunt_jobs", json_integer(a->hunt_jobs));
    json_object_set_new(doc, "stage_each", json_boolean(a->stage_each));
    json_object_set_new(doc, "no_scout", json_boolean(a->no_scout));
    json_object_set_new(doc, "cached_stage_charged", json_true());
    for (int i = 0; i < NABLATIONS; i++)
        json_object_set_new(doc, ablations[i].json_key, json_boolean(a->without[i]));
    if (a->order)
        json_object_set_new(doc, "order", json_string(a->order));
    if (!a->inputs_only)
        json_object_set_new(doc, "summary",
                            json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "kernels", sum->kernels, "reach95",
                                      sum->reach95, "wins_vs_random", sum->win, "ties_vs_random", sum->tie,
                                      "losses_vs_random", sum->loss, "gdivan_failed", sum->failed,
                                      "gdivan_no_slower_than_random", sum->faster));
    json_t *summary = json_object_get(doc, "summary");
    if (summary)
        json_object_set_new(summary, "gdivan_at_random_best_as_soon", json_integer(sum->as_soon));
    if (summary && sum->level_known)
        json_object_set_new(summary, "gdivan_at_99_of_random_best_first",
                            json_pack("{s:i, s:i}", "kernels", sum->level_first, "of", sum->level_known));
    if (summary && sum->gdivan_level_known)
        json_object_set_new(summary, "gdivan_at_99_of_own_best_first",
                            json_pack("{s:i, s:i}", "kernels", sum->gdivan_level_first, "of",
                                      sum->gdivan_level_known));
    if (json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) != 0)
        fprintf(stderr, "bench_corpus: cannot write %s\n", path);
    json_decref(doc);
}

/* ---- --merge: tables from saved JSON ------------------------------------------ */

static const char *str(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

static double num(json_t *o, const char *key, double dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

static void run_from_json(json_t *o, int st, run_t *r)
{
    memset(r, 0, sizeof *r);
    r->strategy = st;
    r->ok = json_is_true(json_object_get(o, "ok"));
    snprintf(r->why, sizeof r->why, "%s", str(o, "why"));
    snprintf(r->stage_failed, sizeof r->stage_failed, "%s",
             str(o, "stage_failed"));
    r->best = num(o, "best", 0);
    r->remeasured = num(o, "remeasured", 0);
    r->evals = (long)num(o, "evals", 0);
    r->explore_s = num(o, "explore_s", 0);
    r->evals_to_99 = (long)num(o, "evals_to_99", -1);
    r->wall_to_99 = num(o, "wall_to_99_s", 0);
    r->wall_to_own_99 = num(o, "wall_to_own_99_s", 0);
    r->wall_to_random = num(o, "wall_to_random_best_s", -2);
    r->wall_to_random99 = num(o, "wall_to_random_best99_s", -2);
    r->wall_to_gdivan99 = num(o, "wall_to_gdivan_best99_s", -2);
}

/* Files saved between the scout (e879b81) and cached_stage_charged: their
 * gdivan seeds after the first found the stage cached and their walls left
 * it out; each is charged the stage's seconds here, as the bench now does. */
static void charge_cached_stage(run_t *r)
{
    if (!r->ok) return;
    double s = r->explore_s;
    r->stage_added = s;
    if (r->evals_to_99 >= 0) r->wall_to_99 += s;
    r->wall_to_own_99 += s;
    if (r->wall_to_random >= 0) r->wall_to_random += s;
    if (r->wall_to_random99 >= 0) r->wall_to_random99 += s;
}

/* One saved kernel object into kt; false (why) when it does not fit.
 * uncharged: the file's cached gdivan seeds are not charged the stage. */
static bool kernel_from_json(json_t *o, int seeds, bool uncharged, kernel_t *kt, char *why, size_t n)
{
    const char *name = json_string_value(json_object_get(o, "kernel"));
    memset(kt, 0, sizeof *kt);
    kt->k = name ? corpus_find(name) : NULL;
    if (!kt->k) return snprintf(why, n, "kernel %s is not in the corpus", name ? name : "(unnamed)"), false;
    kt->ok = json_is_true(json_object_get(o, "ok"));
    snprintf(kt->why, sizeof kt->why, "%s", str(o, "why"));
    if (!kt->ok) return true;
    snprintf(kt->unit, sizeof kt->unit, "%s", str(o, "unit")[0] ? str(o, "unit") : "cycles");
    kt->worst = num(o, "known_worst", 0);
    kt->best = num(o, "known_best", 0);
    kt->random = num(o, "best_random", 0);
    const char *ref = json_string_value(json_object_get(o, "known_worst_input"));
    size_t c;
    json_t *cand;
    json_array_foreach(json_object_get(o, "candidates"), c, cand) {
        if (c >= CORPUS_MAX_WORST || !kt->k->worst[c].name) break;
        kt->cand[kt->ncand++] = num(cand, "time", 0);
        if (ref && !strcmp(ref, kt->k->worst[c].name)) kt->ref = (int)c;
    }
    json_t *runs = json_object_get(o, "runs");
    for (int st = 0; st < NSTRATS; st++) {
        json_t *arr = json_object_get(runs, strategies[st]);
        if ((int)json_array_size(arr) != seeds)
            return snprintf(why, n, "%s: %zu %s runs, not %d", name, json_array_size(arr), strategies[st], seeds),
                   false;
        for (int i = 0; i < seeds; i++) {
            run_from_json(json_array_get(arr, (size_t)i), st, &kt->runs[st][i]);
            if (uncharged && st == 0 && i > 0) charge_cached_stage(&kt->runs[st][i]);
        }
    }
    return true;
}

/* The kernels of every file in a->merge (a later file's replace an earlier
 * one's), in corpus order; the files must agree on evaluations, seeds and
 * stage time.  Returns how many, or -1 (said why). */
static int merge_kernels(args_t *a, kernel_t **ks)
{
    char files[2048], why[1400];
    snprintf(files, sizeof files, "%s", a->merge);
    bool first = true;
    kernel_t *byidx = calloc((size_t)corpus_count(), sizeof *byidx);
    if (!byidx || !(*ks = calloc((size_t)corpus_count(), sizeof **ks))) {
        free(byidx);
        return -1;
    }
    int bad = 0;
    for (char *save = NULL, *file = strtok_r(files, ",", &save); file && !bad; file = strtok_r(NULL, ",", &save)) {
        json_error_t jerr;
        json_t *doc = json_load_file(file, 0, &jerr);
        if (!doc) {
            fprintf(stderr, "bench_corpus: --merge: %s: %s (line %d)\n", file, jerr.text, jerr.line);
            bad = 1;
            break;
        }
        long evals = (long)num(doc, "evals", 0);
        int seeds = (int)num(doc, "seeds", 0);
        double xt = num(doc, "explore_time_s", 0);
        int hj = (int)num(doc, "hunt_jobs", 1);   /* files saved before --hunt-jobs: 1 */
        bool uncharged = json_object_get(doc, "no_scout") && !json_object_get(doc, "cached_stage_charged") && hj <= 1;
        if (first) {
            a->evals = evals, a->seeds = seeds, a->explore_time = xt, a->hunt_jobs = hj, first = false;
        } else if (evals != a->evals || seeds != a->seeds || xt != a->explore_time || hj != a->hunt_jobs) {
            fprintf(stderr, "bench_corpus: --merge: %s has %ld evaluations, %d seeds, a %g s stage, %d threads per "
                    "hunt; the files before it %ld, %d, %g s, %d\n", file, evals, seeds, xt, hj, a->evals, a->seeds,
                    a->explore_time, a->hunt_jobs);
            bad = 1;
        }
        if (seeds < 1 || seeds > MAX_SEEDS) {
            fprintf(stderr, "bench_corpus: --merge: %s: %d seeds\n", file, seeds);
            bad = 1;
        }
        size_t i;
        json_t *ko;
        json_array_foreach(json_object_get(doc, "kernels"), i, ko) {
            kernel_t kt;
            if (bad) break;
            if (!kernel_from_json(ko, seeds, uncharged, &kt, why, sizeof why)) {
                fprintf(stderr, "bench_corpus: --merge: %s: %s\n", file, why);
                bad = 1;
                break;
            }
            for (int c = 0; c < corpus_count(); c++)
                if (corpus_at(c) == kt.k) byidx[c] = kt;
        }
        json_decref(doc);
    }
    int n = 0;
    for (int c = 0; c < corpus_count() && !bad; c++)
        if (byidx[c].k) (*ks)[n++] = byidx[c];
    free(byidx);
    return bad ? -1 : n;
}

/* ---- main ------------------------------------------------------------------- */

static bool selected(const args_t *a, const corpus_kernel *k)
{
    if (!a->kernels)
        return !a->quick || k->quick;
    size_t n = strlen(k->name);
    for (const char *p = a->kernels; (p = strstr(p, k->name)); p += n)
        if ((p == a->kernels || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
            return true;
    return false;
}

/* The held-out kernels: every DIR/NAME.json, with DIR/NAME.worst.sh as
 * the script of its one candidate worst input (checked when measured). */
static int list_holdout(const args_t *a, kernel_t **ks)
{
    char pattern[1100];
    snprintf(pattern, sizeof pattern, "%s/*.json", a->holdout);
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) {
        fprintf(stderr, "bench_corpus: --holdout: no spec (%s)\n", pattern);
        return -1;
    }
    *ks = calloc(g.gl_pathc, sizeof **ks);
    int n = 0;
    for (size_t i = 0; *ks && i < g.gl_pathc; i++) {
        kernel_t *kt = &(*ks)[n];
        const char *base = strrchr(g.gl_pathv[i], '/') ? strrchr(g.gl_pathv[i], '/') + 1 : g.gl_pathv[i];
        snprintf(kt->own_name, sizeof kt->own_name, "%.*s", (int)(strlen(base) - 5), base);
        kt->own = (corpus_kernel){ .name = kt->own_name, .family = "holdout", .quick = true,
                                   .worst = { { .name = "expert" } }, .best = { .name = "none" } };
        if (!selected(a, &kt->own)) continue;
        kt->k = &kt->own;
        snprintf(kt->spec, sizeof kt->spec, "%s", g.gl_pathv[i]);
        snprintf(kt->script, sizeof kt->script, "%s/%s.worst.sh", a->holdout, kt->own_name);
        n++;
    }
    globfree(&g);
    return *ks ? n : -1;
}

/* The kernels to measure and search: the corpus's, or the held-out ones;
 * those --kernels (or --quick) selects. */
static int list_kernels(const args_t *a, kernel_t **ks)
{
    if (a->holdout) return list_holdout(a, ks);
    if (!(*ks = calloc((size_t)corpus_count(), sizeof **ks))) return -1;
    int n = 0;
    for (int i = 0; i < corpus_count(); i++) {
        if (!selected(a, corpus_at(i))) continue;
        kernel_t *kt = &(*ks)[n++];
        kt->k = corpus_at(i);
        corpus_spec_path(kt->k, kt->spec, sizeof kt->spec);
    }
    return n;
}

static bool parse_args(int argc, char **argv, args_t *a)
{
    *a = (args_t){ .evals = 1000, .seeds = 5, .jobs = 2, .hunt_jobs = 1, .explore_time = 30, .timeout = 1800,
                   .out = "build/corpus", .md = "bench/corpus.md", .json = "bench/corpus.json",
                   .warphunt = "./warphunt" };
    bool evals = false, seeds = false, explore = false, md = false, json = false;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--quick")) {
            a->quick = true;
            continue;
        }
        if (!strcmp(o, "--reuse")) {
            a->reuse = true;
            continue;
        }
        if (!strcmp(o, "--retry-failed")) {
            a->retry_failed = true;
            continue;
        }
        if (!strcmp(o, "--no-scout")) {
            a->no_scout = true;
            continue;
        }
        if (!strcmp(o, "--stage-each")) {
            a->stage_each = true;
            continue;
        }
        int ab = 0;
        while (ab < NABLATIONS && strcmp(o, ablations[ab].option)) ab++;
        if (ab < NABLATIONS) {
            a->without[ab] = true;
            continue;
        }
        if (!strcmp(o, "--inputs-only")) {
            a->inputs_only = true;
            continue;
        }
        if (!v)
            return false;
        else if (!strcmp(o, "--kernels"))
            a->kernels = v;
        else if (!strcmp(o, "--evals"))
            a->evals = atol(v), evals = true;
        else if (!strcmp(o, "--seeds"))
            a->seeds = atoi(v), seeds = true;
        else if (!strcmp(o, "--jobs"))
            a->jobs = atoi(v);
        else if (!strcmp(o, "--hunt-jobs"))
            a->hunt_jobs = atoi(v);
        else if (!strcmp(o, "--explore-time"))
            a->explore_time = atof(v), explore = true;
        else if (!strcmp(o, "--timeout"))
            a->timeout = atof(v);
        else if (!strcmp(o, "--out"))
            a->out = v;
        else if (!strcmp(o, "--md"))
            a->md = v, md = true;
        else if (!strcmp(o, "--json"))
            a->json = v, json = true;
        else if (!strcmp(o, "--csv"))
            a->csv = v;
        else if (!strcmp(o, "--warphunt"))
            a->warphunt = v;
        else if (!strcmp(o, "--order"))
            a->order = v;
        else if (!strcmp(o, "--merge"))
            a->merge = v;
        else if (!strcmp(o, "--holdout"))
            a->holdout = v;
        else
            return false;
        i++;
    }
    bool held = a->holdout != NULL;
    if (held && a->merge) return false;   /* a merge reads the corpus's own saved tables */
    if (held && !strcmp(a->out, "build/corpus")) a->out = "build/holdout";
    /* a quick or inputs-only table never goes over a committed full one */
    if (a->inputs_only && !a->quick) {
        a->md = md ? a->md : held ? "build/holdout/inputs.md" : "build/corpus/inputs.md";
        a->json = json ? a->json : held ? "build/holdout/inputs.json" : "build/corpus/inputs.json";
    }
    if (a->quick) {
        a->md = md ? a->md : held ? "build/holdout/quick.md" : "build/corpus/quick.md";
        a->json = json ? a->json : held ? "build/holdout/quick.json" : "build/corpus/quick.json";
        a->evals = evals ? a->evals : 200;
        a->seeds = seeds ? a->seeds : 3;
        a->explore_time = explore ? a->explore_time : 10;
    }
    if (held) {
        a->md = md || a->quick || a->inputs_only ? a->md : "bench/holdout.md";
        a->json = json || a->quick || a->inputs_only ? a->json : "bench/holdout.json";
    }
    return a->evals > 0 && a->seeds >= 1 && a->seeds <= MAX_SEEDS && a->jobs >= 1 && a->jobs <= 16 &&
           a->hunt_jobs >= 1 && a->hunt_jobs <= 64 &&
           a->explore_time > 0 && a->timeout > 0;
}

int main(int argc, char **argv)
{
    args_t a;
    if (!parse_args(argc, argv, &a))
        return usage();
    if (!a.inputs_only && !a.merge && access(a.warphunt, X_OK) != 0) {
        fprintf(stderr, "bench_corpus: %s: %s (build it with `make`, or give --warphunt)\n", a.warphunt,
                strerror(errno));
        return 1;
    }
    kernel_t *ks = NULL;
    int n = a.merge ? merge_kernels(&a, &ks) : list_kernels(&a, &ks);
    if (n < 0) {
        free(ks);
        return 1;
    }
    for (int i = 0; i < n && !a.merge; i++) {
        kernel_t *kt = &ks[i];
        wh_error err;
        wh_error_clear(&err);
        double t0 = wh_clock_s();
        kt->ok = measure_inputs(&a, kt, &err);
        if (!kt->ok) {
            snprintf(kt->why, sizeof kt->why, "%s", err.msg);
            fprintf(stderr, "bench_corpus: %s: %s\n", kt->k->name, err.msg);
            continue;
        }
        fprintf(stderr, "bench_corpus: %s: known worst %.0f (%s), ", kt->k->name, kt->worst, kt->k->worst[kt->ref].name);
        if (kt->best >= 0) fprintf(stderr, "best %.0f, ", kt->best);
        fprintf(stderr, "random %.0f\n", kt->random);
        if (!a.inputs_only) {
            search_kernel(&a, kt);
            fprintf(stderr, "bench_corpus: %s: searches done in %.0f s\n", kt->k->name, wh_clock_s() - t0);
        }
    }
    if (n == 0) {
        fprintf(stderr, "bench_corpus: no %s kernel selected by --kernels %s\n", a.holdout ? "held-out" : "corpus",
                a.kernels ? a.kernels : "");
        free(ks);
        return 1;
    }
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, a.merge ? "merged %Y-%m-%d %H:%M UTC" : "%Y-%m-%d %H:%M UTC", gmtime(&now));
    summary_t sum;
    kernel_row *rows = calloc((size_t)n, sizeof *rows);
    if (!rows) {
        free(ks);
        return 2;
    }
    rows_of(&a, ks, n, rows, &sum);
    char mkdir_cmd[1100];
    snprintf(mkdir_cmd, sizeof mkdir_cmd, "mkdir -p \"$(dirname '%s')\" \"$(dirname '%s')\" \"$(dirname '%s')\"", a.md,
             a.json, a.csv ? a.csv : a.md);
    FILE *f = system(mkdir_cmd) == 0 ? fopen(a.md, "w") : NULL;
    FILE *csv = f && a.csv ? fopen(a.csv, "w") : NULL;
    if (!f || (a.csv && !csv)) {
        fprintf(stderr, "bench_corpus: cannot write %s: %s\n", f ? a.csv : a.md, strerror(errno));
        if (f)
            fclose(f);
        free(rows);
        free(ks);
        return 1;
    }
    write_md(f, &a, ks, rows, n, &sum, when);
    fclose(f);
    if (csv) {
        write_csv(csv, &a, ks, rows, n);
        fclose(csv);
    }
    free(rows);
    write_json(a.json, &a, ks, n, &sum, when);
    f = fopen(a.md, "r");
    for (int c; f && (c = fgetc(f)) != EOF;)
        putchar(c);
    if (f)
        fclose(f);
    free(ks);
    return 0;
}
