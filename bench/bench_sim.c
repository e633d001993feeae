/*
 * bench_sim.c — speed of the sim backend on the bundled kernels.
 *
 * For each kernel: a random input (PCG32 seed 1), harness_measure repeated
 * until about one second has passed (at least 3 runs, at most 100,000), and the
 * emulator's throughput: lane-instructions and warp-instructions per second
 * of wall time (the PTX parsing and pre-decoding of harness_open are not
 * timed; each run includes copying the image in and out).  Prints a table
 * and one CSV line per kernel (date, commit, kernel, ...) that can be
 * appended to bench/sim_history.csv by hand; it writes no file itself.
 *
 * --jobs N runs N such loops at once, each on a thread of its own with its
 * own harness (as a hunt's evaluation threads do), started together after
 * every one has loaded: the table then gives their summed instructions over
 * the wall time of the slowest, the emulator's throughput on N cores.
 *
 * --locations measures with the location counters on (harness_options
 * .want_locations, the feedback of gdivan's archive): their cost is the
 * difference from a run without.
 *
 * Usage: build/bench/bench_sim [--locations] [--jobs N] [SECONDS_PER_KERNEL] [KERNEL ...]
 */
#include "core/clock.h"
#include "core/image.h"
#include "core/pcg32.h"
#include "core/spec.h"
#include "harness/harness.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const default_kernels[] = {
    "artificial", "fig1a", "fig1b", "gt_atomic", "gt_bank", "gt_gather", "gt_hash",
    "gt_loop", "gt_paths32", "bfs1", "bfs2", "lbm", "nsichneu",
};

static void git_commit(char *buf, size_t n)
{
    snprintf(buf, n, "unknown");
    FILE *p = popen("git rev-parse --short HEAD 2>/dev/null", "r");
    if (!p)
        return;
    char line[64];
    if (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0])
            snprintf(buf, n, "%s", line);
    }
    pclose(p);
}

typedef struct {
    const char *name;
    bool ok;
    char why[1200];
    int runs;
    double seconds;
    uint64_t warp, lane, cycles;
} result;

/* One loop's work: what it measures, and the barrier it starts timing at
 * (NULL: alone). */
typedef struct {
    const char *name;
    double budget;
    bool locations;
    pthread_barrier_t *start;
    result r;
} job;

static void bench_one(const char *name, double budget, bool locations, pthread_barrier_t *start, result *r)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    bool waited = false;
    char path[256];
    snprintf(path, sizeof path, "kernels/%s.json", name);
    wh_error err;
    wh_error_clear(&err);
    wh_spec *spec = wh_spec_load(path, &err);
    wh_image *img = NULL;
    harness *h = NULL;
    if (!spec)
        goto fail;
    char ptx[4096];
    if (!wh_spec_ptx_path(spec, ptx, sizeof ptx, &err))
        goto fail;
    wh_launch L = wh_spec_launch_full(spec);
    img = wh_image_new(spec, &L, &err);
    if (!img)
        goto fail;
    pcg32 rng;
    pcg32_seed(&rng, 1, 0);
    if (!wh_image_fill_random(img, &rng, &err))
        goto fail;
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.want_locations = locations;
    h = harness_open(spec, HARNESS_SIM, &o, &err);
    if (!h)
        goto fail;
    if (start)
        pthread_barrier_wait(start);
    waited = true;
    double t0 = wh_clock_s();
    while (r->runs < 100000) {
        harness_result res;
        if (!harness_measure(h, img, 1, &res, &err))
            goto fail;
        r->runs++;
        r->warp += res.warp_instructions;
        r->lane += res.lane_instructions;
        r->cycles = res.cycles;
        if (res.status != HARNESS_OK) {
            snprintf(r->why, sizeof r->why, "status %s: %s", harness_status_name(res.status), res.message);
            harness_result_free(&res);
            goto done;
        }
        harness_result_free(&res);
        r->seconds = wh_clock_s() - t0;
        if (r->runs >= 3 && r->seconds >= budget)
            break;
    }
    r->ok = true;
    goto done;
fail:
    wh_error_format(&err, r->why, (int)sizeof r->why);
done:
    if (start && !waited)   /* the others wait for every loop, failed or not */
        pthread_barrier_wait(start);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(spec);
}

static void *run_job(void *arg)
{
    job *j = arg;
    bench_one(j->name, j->budget, j->locations, j->start, &j->r);
    return NULL;
}

/* The kernel measured by `jobs` loops at once, summed into *r. */
static void bench_parallel(const char *name, double budget, bool locations, int jobs, result *r)
{
    if (jobs == 1) {
        bench_one(name, budget, locations, NULL, r);
        return;
    }
    job *js = calloc((size_t)jobs, sizeof *js);
    pthread_t *tids = calloc((size_t)jobs, sizeof *tids);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)jobs);
    int started = 0;
    for (int k = 0; js && tids && k < jobs; k++) {
        js[k] = (job){ name, budget, locations, &start, { 0 } };
        if (pthread_create(&tids[k], NULL, run_job, &js[k]) != 0)
            break;
        started++;
    }
    memset(r, 0, sizeof *r);
    r->name = name;
    if (started < jobs) {   /* the started ones wait at the barrier forever: give up */
        fprintf(stderr, "bench_sim: cannot start %d threads\n", jobs);
        exit(2);
    }
    r->ok = true;
    for (int k = 0; k < jobs; k++) {
        pthread_join(tids[k], NULL);
        const result *q = &js[k].r;
        if (!q->ok && r->ok) {
            r->ok = false;
            snprintf(r->why, sizeof r->why, "%s", q->why);
        }
        r->runs += q->runs;
        r->warp += q->warp;
        r->lane += q->lane;
        r->cycles = q->cycles;
        if (q->seconds > r->seconds)
            r->seconds = q->seconds;
    }
    pthread_barrier_destroy(&start);
    free(js);
    free(tids);
}

int main(int argc, char **argv)
{
    double budget = 1.0;
    int first = 1, jobs = 1;
    bool locations = false;
    for (;;) {
        if (argc > first && !strcmp(argv[first], "--locations")) {
            locations = true;
            first++;
        } else if (argc > first + 1 && !strcmp(argv[first], "--jobs")) {
            jobs = atoi(argv[first + 1]);
            if (jobs < 1 || jobs > 256) {
                fprintf(stderr, "bench_sim: --jobs takes 1 to 256, not '%s'\n", argv[first + 1]);
                return 2;
            }
            first += 2;
        } else {
            break;
        }
    }
    if (argc > first && strtod(argv[first], NULL) > 0) {
        budget = strtod(argv[first], NULL);
        first++;
    }
    const char *const *names = default_kernels;
    int n = (int)(sizeof default_kernels / sizeof *default_kernels);
    if (argc > first) {
        names = (const char *const *)(argv + first);
        n = argc - first;
    }
    char commit[64], date[32];
    git_commit(commit, sizeof commit);
    time_t tt = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&tt));
    if (jobs == 1)
        printf("sim backend speed (commit %s, %s, ~%.1f s per kernel, one core%s)\n\n", commit, date, budget,
               locations ? ", location counters on" : "");
    else
        printf("sim backend speed (commit %s, %s, ~%.1f s per kernel, %d loops at once: runs and instructions "
               "summed, over the slowest loop's wall time%s)\n\n", commit, date, budget, jobs,
               locations ? "; location counters on" : "");
    printf("%-11s %5s %9s %11s %11s %9s %9s %6s\n", "kernel", "runs", "s/run", "Mlane/s", "Mwarp/s",
           "lanes/w", "cycles", "");
    result *rs = calloc((size_t)n, sizeof *rs);
    uint64_t tl = 0, tw = 0;
    double ts = 0;
    int failed = 0;
    for (int i = 0; i < n; i++) {
        result *r = &rs[i];
        bench_parallel(names[i], budget, locations, jobs, r);
        if (!r->ok) {
            printf("%-11s skipped: %s\n", names[i], r->why);
            if (!strstr(r->why, "not built") && !strstr(r->why, "looked"))
                failed++;
            continue;
        }
        tl += r->lane;
        tw += r->warp;
        ts += r->seconds;
        printf("%-11s %5d %9.4f %11.1f %11.2f %9.1f %9llu\n", r->name, r->runs, r->seconds * jobs / r->runs,
               (double)r->lane / r->seconds / 1e6, (double)r->warp / r->seconds / 1e6,
               (double)r->lane / (double)(r->warp ? r->warp : 1), (unsigned long long)r->cycles);
        fflush(stdout);
    }
    if (ts > 0)
        printf("%-11s %5s %9s %11.1f %11.2f %9.1f\n", "all", "", "", (double)tl / ts / 1e6, (double)tw / ts / 1e6,
               (double)tl / (double)(tw ? tw : 1));
    printf("\nCSV (date,commit,kernel,runs,seconds_per_run,mlane_per_s,mwarp_per_s,cycles%s):\n",
           jobs > 1 ? "; runs of every loop, seconds per run of one" : "");
    for (int i = 0; i < n; i++) {
        const result *r = &rs[i];
        if (!r->ok)
            continue;
        printf("%s,%s,%s,%d,%.5f,%.2f,%.3f,%llu\n", date, commit, r->name, r->runs, r->seconds * jobs / r->runs,
               (double)r->lane / r->seconds / 1e6, (double)r->warp / r->seconds / 1e6,
               (unsigned long long)r->cycles);
    }
    free(rs);
    return failed ? 1 : 0;
}
