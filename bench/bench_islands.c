/*
 * bench_islands.c — the island model's figures: `warphunt hunt` as one
 * island and as K islands under mpirun, on the sim, over several seeds.
 *
 *   bench_islands [--spec SPEC] [--target T] [--ranks 1,2] [--seeds S]
 *                 [--evals N] [--patience P] [--jobs J] [--migrate-every G]
 *                 [--out DIR] [--md FILE] [--reuse] [--warphunt PATH]
 *
 * Per island count K and seed: the evaluations per island until the run's
 * best reached the target and the search's seconds to get there (the
 * first island to reach it; islands run in lockstep, a generation at a
 * time), the best found, the wall time (process start, symbolic stage or
 * its cache, search and final re-measurement), the evaluations per second
 * of the whole run, and the share of its time the islands spent in their
 * exchanges and stop agreements (run.json's island.comm_s: waiting for a
 * slower island counts there too).  The target defaults to the spec's
 * known worst input (kernels/groundtruth.h) measured on the sim.  Every
 * island gets --jobs evaluation threads (default 1: K islands on K
 * cores); --patience P is passed to the hunts (default: hunt's own, 2;
 * 0 spends the whole budget).  The runs go under --out (default build/islands), each with its
 * wall time in DIR.wall; --reuse reads a finished run from there instead
 * of running it again.  --md FILE writes the table, and a row per run, as
 * markdown.  Without mpirun (or an MPI build) the K > 1 rows are skipped,
 * said.
 */
#include "core/clock.h"
#include "core/image.h"
#include "core/spec.h"
#include "harness/harness.h"
#include "kernels/groundtruth.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define MAX_RANKS 8
#define MAX_SEEDS 64

typedef struct {
    const char *spec, *out, *md, *warphunt;
    double target;              /* <= 0: the known worst */
    int ranks[MAX_RANKS], nranks;
    int seeds, evals, jobs, migrate_every;
    int patience;               /* < 0: hunt's default */
    bool reuse;
} args_t;

/* One run's figures. */
typedef struct {
    bool ok;
    long evals_to_target;       /* per island; -1: not reached */
    double s_to_target;         /* the search's seconds to it */
    long evals;                 /* all islands */
    double best, wall_s, comm_share;
} run_t;

static int usage(void)
{
    fprintf(stderr, "usage: bench_islands [--spec SPEC] [--target T] [--ranks 1,2] [--seeds S] [--evals N] "
                    "[--patience P] [--jobs J] [--migrate-every G] [--out DIR] [--md FILE] [--reuse]\n"
                    "                     [--warphunt PATH]\n");
    return 2;
}

static bool parse_ranks(const char *s, args_t *a)
{
    a->nranks = 0;
    for (char *end; *s && a->nranks < MAX_RANKS; s = *end == ',' ? end + 1 : end) {
        long k = strtol(s, &end, 10);
        if (end == s || k < 1 || k > 64) return false;
        a->ranks[a->nranks++] = (int)k;
        if (!*end) return true;
    }
    return false;
}

static bool parse_args(int argc, char **argv, args_t *a)
{
    *a = (args_t){ .spec = "kernels/gt_hash.json", .out = "build/islands", .warphunt = "build/warphunt",
                   .ranks = { 1, 2 }, .nranks = 2, .seeds = 3, .evals = 300, .jobs = 1, .migrate_every = 5,
                   .patience = -1 };
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--reuse")) {
            a->reuse = true;
            continue;
        }
        if (!v) return false;
        i++;
        if (!strcmp(o, "--spec")) a->spec = v;
        else if (!strcmp(o, "--target")) a->target = atof(v);
        else if (!strcmp(o, "--ranks")) { if (!parse_ranks(v, a)) return false; }
        else if (!strcmp(o, "--seeds")) a->seeds = atoi(v);
        else if (!strcmp(o, "--evals")) a->evals = atoi(v);
        else if (!strcmp(o, "--jobs")) a->jobs = atoi(v);
        else if (!strcmp(o, "--patience")) a->patience = atoi(v);
        else if (!strcmp(o, "--migrate-every")) a->migrate_every = atoi(v);
        else if (!strcmp(o, "--out")) a->out = v;
        else if (!strcmp(o, "--md")) a->md = v;
        else if (!strcmp(o, "--warphunt")) a->warphunt = v;
        else return false;
    }
    return a->seeds >= 1 && a->seeds <= MAX_SEEDS && a->evals >= 1 && a->jobs >= 1 && a->migrate_every >= 1;
}

/* The spec's known worst input (groundtruth.h) on the sim; < 0 when the
 * spec has none or it cannot be measured. */
static double known_worst(const char *spec_path)
{
    const gt_kernel *g = NULL;
    for (int k = 0; k < GT_KERNELS; k++)
        if (!strcmp(gt_kernels[k].spec, spec_path)) g = &gt_kernels[k];
    if (!g) return -1;
    wh_error err;
    double t = -1;
    wh_spec *s = wh_spec_load(spec_path, &err);
    harness *h = s ? harness_open(s, HARNESS_SIM, NULL, &err) : NULL;
    wh_launch full = s ? wh_spec_launch_full(s) : (wh_launch){ 0 };
    wh_image *img = h ? wh_image_new(s, &full, &err) : NULL;
    int p = img ? wh_image_find(img, g->input) : -1;
    harness_result r;
    if (p >= 0 && gt_fill(img, p, g->worst, &err) && harness_measure(h, img, 1, &r, &err)) {
        t = r.status == HARNESS_OK ? r.mean : -1;
        harness_result_free(&r);
    }
    wh_image_free(img);
    harness_close(h);
    wh_spec_free(s);
    return t;
}

/* First eval of dir/history.csv whose best reached target (-1: none) and
 * its wall_s in *at; adds its rows to *evals and keeps the highest best in
 * *best. */
static long history_reach(const char *dir, double target, long *evals, double *best, double *at)
{
    char path[1200], line[512];
    snprintf(path, sizeof path, "%s/history.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f) return -2;
    long reach = -1;
    while (fgets(line, sizeof line, f)) {
        long e;
        int gen;
        double wall, fit, b;
        if (sscanf(line, "%ld,%d,%lf,%lf,%lf", &e, &gen, &wall, &fit, &b) != 5) continue;
        (*evals)++;
        if (b > *best) *best = b;
        if (reach < 0 && b >= target) reach = e, *at = wall;
    }
    fclose(f);
    return reach;
}

/* island.comm_s of dir/run.json (0 when absent) */
static double comm_s(const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_t *doc = json_load_file(path, 0, NULL);
    double s = json_number_value(json_object_get(json_object_get(doc, "island"), "comm_s"));
    json_decref(doc);
    return s;
}

/* The figures of a finished run of k islands in dir. */
static void read_run(const char *dir, int k, double target, run_t *r)
{
    r->evals_to_target = -1;
    r->evals = 0;
    r->best = 0;
    double comm = 0;
    for (int i = 0; i < k; i++) {
        char d[1100];
        if (k > 1) snprintf(d, sizeof d, "%s/island-%02d", dir, i);
        else snprintf(d, sizeof d, "%s", dir);
        double at = 0;
        long reach = history_reach(d, target, &r->evals, &r->best, &at);
        if (reach == -2) { r->ok = false; return; }
        if (reach >= 0 && (r->evals_to_target < 0 || reach < r->evals_to_target))
            r->evals_to_target = reach, r->s_to_target = at;
        comm += comm_s(d);
    }
    r->comm_share = r->wall_s > 0 ? comm / k / r->wall_s : 0;
}

static bool have_mpi(const args_t *a)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "command -v mpirun >/dev/null 2>&1 && '%s' --version | grep -q 'MPI islands: yes'",
             a->warphunt);
    return system(cmd) == 0;
}

/* A finished run's wall time from DIR.wall; false when there is none. */
static bool reused(const char *dir, run_t *r)
{
    char path[1100];
    snprintf(path, sizeof path, "%s.wall", dir);
    FILE *f = fopen(path, "r");
    bool ok = f && fscanf(f, "%lf", &r->wall_s) == 1;
    if (f) fclose(f);
    return ok;
}

static void record_wall(const char *dir, double wall_s)
{
    char path[1100];
    snprintf(path, sizeof path, "%s.wall", dir);
    FILE *f = fopen(path, "w");
    if (f) fprintf(f, "%.3f\n", wall_s), fclose(f);
}

static void run_one(const args_t *a, int k, int seed, double target, run_t *r)
{
    char dir[1024], cmd[4096], mpi[64] = "", patience[32] = "";
    snprintf(dir, sizeof dir, "%s/k%d-s%d", a->out, k, seed);
    if (a->reuse && reused(dir, r)) {
        r->ok = true;
        read_run(dir, k, target, r);
        return;
    }
    if (k > 1) snprintf(mpi, sizeof mpi, "mpirun --oversubscribe -np %d ", k);
    if (a->patience >= 0) snprintf(patience, sizeof patience, " --patience %d", a->patience);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && %s'%s' hunt '%s' --backend sim --seed %d --evals %d --jobs %d "
             "--migrate-every %d%s --no-explain --quiet -o '%s' >'%s.log' 2>&1", dir, mpi, a->warphunt, a->spec,
             seed, a->evals, a->jobs, a->migrate_every, patience, dir, dir);
    double t0 = wh_clock_s();
    int rc = system(cmd);
    r->wall_s = wh_clock_s() - t0;
    r->ok = WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
    if (r->ok) record_wall(dir, r->wall_s);
    if (r->ok) read_run(dir, k, target, r);
    if (!r->ok) fprintf(stderr, "bench_islands: %d island(s), seed %d failed: see %s.log\n", k, seed, dir);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* the median of v[0..n) as text, "-" when n is 0 */
static void median_text(double *v, int n, const char *fmt, char *out, size_t len)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    if (n) snprintf(out, len, fmt, n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
    else snprintf(out, len, "-");
}

/* One row: K islands over every seed. */
static void report(FILE *f, bool md, int k, const run_t *runs, int n)
{
    double reach[MAX_SEEDS], secs[MAX_SEEDS];
    int nreach = 0;
    double best = 0, wall = 0, evals = 0, comm = 0;
    for (int i = 0; i < n; i++) {
        if (!runs[i].ok) continue;
        if (runs[i].evals_to_target >= 0) {
            secs[nreach] = runs[i].s_to_target;
            reach[nreach++] = (double)runs[i].evals_to_target;
        }
        best += runs[i].best / n;
        wall += runs[i].wall_s;
        evals += (double)runs[i].evals;
        comm += runs[i].comm_share / n;
    }
    char med[32], med_s[32];
    median_text(reach, nreach, "%.0f", med, sizeof med);
    median_text(secs, nreach, "%.2f", med_s, sizeof med_s);
    const char *fmt = md ? "| %d | %d/%d | %s | %s | %.0f | %.1f | %.1f | %.2f %% |\n"
                         : "%7d  %5d/%-3d  %15s  %9s  %12.0f  %8.1f  %9.1f  %8.2f %%\n";
    fprintf(f, fmt, k, nreach, n, med, med_s, best, wall / n, wall > 0 ? evals / wall : 0, 100 * comm);
}

static void header(FILE *f, bool md)
{
    if (md)
        fputs("| islands | seeds reaching | evals/island to target (median) | search s to target (median) | "
              "best (mean) | wall s (mean) | evals/s | time in exchanges |\n|---|---|---|---|---|---|---|---|\n", f);
    else
        fputs("islands  reached   evals/island(med)  s to tgt     best(mean)    wall s    evals/s  exchanges\n", f);
}

/* A row per run of the markdown file. */
static void per_run(FILE *f, const args_t *a, const run_t (*runs)[MAX_SEEDS])
{
    fputs("\n| islands | seed | evals/island to target | search s to target | best | evals | wall s |\n"
          "|---|---|---|---|---|---|---|\n", f);
    for (int i = 0; i < a->nranks; i++)
        for (int s = 0; s < a->seeds; s++) {
            const run_t *r = &runs[i][s];
            if (!r->ok) continue;
            if (r->evals_to_target >= 0)
                fprintf(f, "| %d | %d | %ld | %.2f | %.0f | %ld | %.1f |\n", a->ranks[i], s + 1, r->evals_to_target,
                        r->s_to_target, r->best, r->evals, r->wall_s);
            else
                fprintf(f, "| %d | %d | - | - | %.0f | %ld | %.1f |\n", a->ranks[i], s + 1, r->best, r->evals,
                        r->wall_s);
        }
}

int main(int argc, char **argv)
{
    args_t a;
    if (!parse_args(argc, argv, &a)) return usage();
    double target = a.target > 0 ? a.target : known_worst(a.spec);
    if (target <= 0) {
        fprintf(stderr, "bench_islands: %s has no known worst input in kernels/groundtruth.h: give --target\n",
                a.spec);
        return 2;
    }
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    mkdir(a.out, 0777);
    bool mpi = have_mpi(&a);
    char patience[32] = "hunt's default";
    if (a.patience >= 0) snprintf(patience, sizeof patience, "%d", a.patience);
    printf("%s on the sim, target %.0f, %d evaluations per island, %d seed(s), --jobs %d per island, "
           "migration every %d generations, patience %s\n", a.spec, target, a.evals, a.seeds, a.jobs,
           a.migrate_every, patience);
    static run_t runs[MAX_RANKS][MAX_SEEDS];
    for (int i = 0; i < a.nranks; i++)
        for (int s = 0; s < a.seeds && (a.ranks[i] == 1 || mpi); s++)
            run_one(&a, a.ranks[i], s + 1, target, &runs[i][s]);
    FILE *md = a.md ? fopen(a.md, "w") : NULL;
    header(stdout, false);
    if (md) header(md, true);
    for (int i = 0; i < a.nranks; i++) {
        if (a.ranks[i] > 1 && !mpi) {
            printf("%7d  skipped: mpirun missing or %s built without MPI\n", a.ranks[i], a.warphunt);
            continue;
        }
        report(stdout, false, a.ranks[i], runs[i], a.seeds);
        if (md) report(md, true, a.ranks[i], runs[i], a.seeds);
    }
    if (md) per_run(md, &a, (const run_t(*)[MAX_SEEDS])runs);
    if (md) fclose(md);
    return 0;
}
