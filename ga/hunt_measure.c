/*
 * hunt_measure.c — one evaluation's fitness, measured so that noise and a
 * throttled GPU do not decide the ranking.
 *
 * Two rules, in the spirit of nvbench's measurement hygiene:
 *   - a measurement taken while the device was throttled (its SM clock
 *     under 75 % of the default, or a thermal, hardware or power-brake
 *     slowdown: harness_read_clocks) is thrown away and taken again after
 *     a pause, up to HUNT_THROTTLE_RETRIES times; an evaluation still throttled
 *     then gets fitness 0, so a slowed-down run is never ranked above a
 *     clean one (a throttled GPU makes every input look slower);
 *   - with --noise-rsd F, while the relative standard error of the mean
 *     of the runs (stddev / (mean sqrt n), the noise of the fitness itself,
 *     which more runs shrink; the runs' own spread does not) is above F,
 *     `reps` more are taken, up to --max-reps in all; the fitness is the
 *     mean of every run kept.
 * On the sim the clock never moves, and without --sim-noise the runs never
 * vary: both rules then cost nothing.
 */
#include "core/clock.h"
#include "core/stats.h"
#include "ga/hunt_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define THROTTLE_PAUSE_NS 200000000L   /* 0.2 s for the clocks to recover */
#define DEFAULT_MAX_REPS_FACTOR 10

/* harness_measure, taken again while the device reports it throttled. */
static bool measure_unthrottled(const hunt *h, hunt_worker *w, int reps, harness_result *res, bool *throttled,
                                wh_error *err)
{
    for (int attempt = 0;; attempt++) {
        double t0 = wh_clock_s();
        bool ok = harness_measure(w->h, w->img, reps, res, err);
        w->measure_s += wh_clock_s() - t0;
        if (!ok) return false;
        w->reps += res->reps;
        harness_clocks c;
        harness_read_clocks(w->h, &c);
        *throttled = res->status == HARNESS_OK && c.throttled;
        if (!*throttled || attempt == HUNT_THROTTLE_RETRIES) return true;
        harness_result_free(res);
        w->throttle_retries++;
        nanosleep(&(struct timespec){ 0, THROTTLE_PAUSE_NS }, NULL);
    }
}

/* The relative standard error of the mean of t[0..n). */
static double noise_of(const double *t, int n)
{
    wh_summary s;
    if (n < 2 || !wh_summarize(t, n, &s) || s.mean <= 0) return 0;
    return s.stddev / (s.mean * sqrt((double)n));
}

/* More runs until the noise criterion holds or max_reps were taken; *mean
 * of them all.  A fault in a later run replaces res (it is a finding). */
static bool add_runs_until_quiet(const hunt *h, hunt_worker *w, harness_result *res, double *mean, wh_error *err)
{
    *mean = res->mean;
    int cap = h->opt.max_reps > 0 ? h->opt.max_reps : DEFAULT_MAX_REPS_FACTOR * h->reps;
    if (h->opt.noise_rsd <= 0 || res->status != HARNESS_OK || noise_of(res->times, res->reps) <= h->opt.noise_rsd ||
        res->reps >= cap)
        return true;
    double *t = malloc((size_t)cap * sizeof *t);
    if (!t) {
        wh_error_set(err, WH_ERR_USER, NULL, 0, 0, "out of memory for %d runs of one evaluation (--max-reps)", cap);
        return false;
    }
    int n = res->reps;
    memcpy(t, res->times, (size_t)n * sizeof *t);
    w->noisy++;
    bool ok = true;
    while (ok && n < cap && noise_of(t, n) > h->opt.noise_rsd) {
        harness_result more;
        bool throttled;
        int k = cap - n < h->reps ? cap - n : h->reps;
        ok = measure_unthrottled(h, w, k, &more, &throttled, err);
        if (!ok) break;
        if (more.status != HARNESS_OK) {
            harness_result_free(res);
            *res = more;
            free(t);
            return true;
        }
        if (!throttled) {
            memcpy(t + n, more.times, (size_t)more.reps * sizeof *t);
            n += more.reps;
        }
        harness_result_free(&more);
        if (throttled) break;
    }
    if (ok && noise_of(t, n) > h->opt.noise_rsd) w->noisy_capped++;
    double sum = 0;
    for (int i = 0; i < n; i++) sum += t[i];
    *mean = sum / n;
    free(t);
    return ok;
}

bool hunt_measure_fitness(const hunt *h, hunt_worker *w, harness_result *res, double *fitness, wh_error *err)
{
    bool throttled;
    if (!measure_unthrottled(h, w, h->reps, res, &throttled, err)) return false;
    *fitness = 0;
    if (res->status != HARNESS_OK) return true;
    if (throttled) {
        w->throttled++;
        return true;
    }
    if (!add_runs_until_quiet(h, w, res, fitness, err)) {
        harness_result_free(res);
        return false;
    }
    if (res->status != HARNESS_OK) *fitness = 0;
    return true;
}
