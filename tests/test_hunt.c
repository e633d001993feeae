/*
 * test_hunt.c — whole searches on the sim backend: gdivan reaches the known
 * worst input of Listing 1 while random does not, runs are reproducible by
 * seed, a killed run resumes to the same result, replay round-trips, every
 * strategy gets the same budget, and stride tiling reaches worst cases that
 * are relations between threads (where plain tiling falls short).
 */
#include <criterion/criterion.h>

#include "core/results.h"
#include "ga/hunt.h"
#include "tests/support.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void need_ptx(const char *ptx)
{
    struct stat st;
    if (stat(ptx, &st) != 0) cr_skip_test("%s not built: run `make ptx`", ptx);
}

static wh_spec *load(const char *path)
{
    wh_error err;
    wh_spec *s = wh_spec_load(path, &err);
    cr_assert(s, "%s", err.msg);
    return s;
}

static void tmpdir(char *dir)
{
    strcpy(dir, "/tmp/wh_hunt_XXXXXX");
    cr_assert(mkdtemp(dir));
}

static hunt_options quiet_options(const char *base, ga_strategy s, long evals, uint64_t seed)
{
    hunt_options o;
    hunt_options_default(&o);
    o.strategy = s;
    o.ga.max_evals = evals;
    o.ga.patience = 0;
    o.seed = seed;
    o.backend = HARNESS_SIM;
    o.harness.quiet = true;
    o.quiet = true;
    o.final_reps = 1;
    o.results_base = base;
    o.explore.time_s = 30;
    /* these tests are about the search; test_scout.c tests the scout */
    o.scout = false;
    return o;
}

/* The sim time of the input whose first buffer holds value(i) at element i. */
static double pattern_time(const wh_spec *s, int64_t (*value)(uint64_t i))
{
    wh_image *img = ts_pattern_image(s, value);
    double t = ts_sim_time(s, img);
    wh_image_free(img);
    return t;
}

/* The known worst input of Listing 1 and Fig. 1(b): every value is 7. */
static int64_t seven(uint64_t i)
{
    (void)i;
    return 7;
}

static double sevens_time(const wh_spec *s)
{
    return pattern_time(s, seven);
}

Test(hunt, gdivan_reaches_listing1_worst_random_does_not)
{
    need_ptx("build/ptx/kernels/artificial.ptx");
    wh_spec *s = load("kernels/artificial.json");
    double worst = sevens_time(s);
    char base[64];
    tmpdir(base);
    wh_error err;
    hunt_summary g, r;
    hunt_options o = quiet_options(base, GA_GDIVAN, 1000, 1);
    o.ga.patience = 3; /* it may stop early once it has the worst */
    cr_assert(hunt_run(s, &o, &g, &err), "%s", err.msg);
    cr_expect_geq(g.best, worst * 0.999, "gdivan best %g, known worst %g", g.best, worst);
    cr_expect_leq(g.evals_to_best, 1000);
    char paths[1200];
    struct stat st;
    snprintf(paths, sizeof paths, "%s/paths.json", g.dir);
    cr_expect(stat(paths, &st) == 0 && st.st_nlink >= 2, "paths.json is the cache entry's file, not a copy");
    o = quiet_options(base, GA_RANDOM, 1000, 1);
    cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
    cr_expect_lt(r.best, worst * 0.9, "random best %g, known worst %g", r.best, worst);
    ts_rmtree(base);
    wh_spec_free(s);
}

static char *read_column_file(const char *path)
{
    /* history.csv without the wall-clock column, for comparisons */
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    size_t cap = 1 << 20, n = 0;
    char *out = malloc(cap), line[512];
    while (fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL, *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
        if (!c3) continue;
        size_t a = (size_t)(c2 - line), b = strlen(c3);
        if (n + a + b + 1 >= cap) break;
        memcpy(out + n, line, a);
        memcpy(out + n + a, c3, b);
        n += a + b;
    }
    out[n] = '\0';
    fclose(f);
    return out;
}

Test(hunt, same_seed_same_run_on_sim)
{
    need_ptx("build/ptx/kernels/gt_loop.ptx");
    wh_spec *s = load("tests/specs/hunt_loop_small.json");
    char base[64], ha[1200], hb[1200];
    tmpdir(base);
    wh_error err;
    hunt_summary a, b;
    hunt_options o = quiet_options(base, GA_RANDOM_GA, 150, 5);
    cr_assert(hunt_run(s, &o, &a, &err), "%s", err.msg);
    cr_assert(hunt_run(s, &o, &b, &err), "%s", err.msg);
    cr_expect_str_neq(a.dir, b.dir, "a second run gets its own directory");
    snprintf(ha, sizeof ha, "%s/history.csv", a.dir);
    snprintf(hb, sizeof hb, "%s/history.csv", b.dir);
    char *x = read_column_file(ha), *y = read_column_file(hb);
    cr_expect_str_eq(x, y);
    cr_expect_eq(a.best, b.best);
    free(x);
    free(y);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* Evaluation threads change nothing but the wall time: the same seed gives
 * the same history with one thread or three, findings included, for the
 * strategies first..last (gdivan's symbolic stage is cached by the first
 * run; fault_small: some inputs store through a null pointer). */
static void same_run_with_threads(const char *spec, ga_strategy first, ga_strategy last)
{
    wh_spec *s = load(spec);
    char base[64];
    tmpdir(base);
    for (int st = (int)first; st <= (int)last; st++) {
        hunt_summary a, b;
        wh_error err;
        hunt_options o = quiet_options(base, (ga_strategy)st, 130, 4);
        o.jobs = 1;
        cr_assert(hunt_run(s, &o, &a, &err), "%s", err.msg);
        o.jobs = 3;
        cr_assert(hunt_run(s, &o, &b, &err), "%s", err.msg);
        cr_expect_eq(a.jobs, 1);
        cr_expect_eq(b.jobs, 3);
        char ha[1200], hb[1200], cmd[4400];
        snprintf(ha, sizeof ha, "%s/history.csv", a.dir);
        snprintf(hb, sizeof hb, "%s/history.csv", b.dir);
        char *x = read_column_file(ha), *y = read_column_file(hb);
        cr_expect_str_eq(x, y, "%s: the same evaluations with one thread and three", ga_strategy_name((ga_strategy)st));
        free(x);
        free(y);
        cr_expect_eq(a.best, b.best);
        cr_expect_eq(a.findings, b.findings);
        snprintf(cmd, sizeof cmd, "test \"$(ls '%s/findings' 2>/dev/null)\" = \"$(ls '%s/findings' 2>/dev/null)\" && "
                 "test $(ls '%s/findings' 2>/dev/null | wc -l) -eq %ld", a.dir, b.dir, b.dir, b.findings);
        cr_expect_eq(system(cmd), 0, "%s: the same findings, named by the same evaluations",
                     ga_strategy_name((ga_strategy)st));
    }
    ts_rmtree(base);
    wh_spec_free(s);
}

Test(hunt, evaluation_threads_give_the_same_run)
{
    need_ptx("build/ptx/tests/ptx/fake_inc.ptx");
    need_ptx("build/ptx/kernels/bfs.ptx");
    same_run_with_threads("tests/specs/fault_small.json", GA_GDIVAN, GA_RANDOM_GA);
    /* bfs1's node starts have a range that depends on the element index,
     * which the scaler evaluates per element on every thread at once */
    same_run_with_threads("kernels/bfs1.json", GA_RANDOM_GA, GA_RANDOM_GA);
}

static long count_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long n = -1;
    int c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

/* Two runs of hunt_loop_small.json in BASE/a and BASE/b: one uninterrupted,
 * one interrupted and resumed, whose histories must be equal. */
typedef struct {
    wh_spec *s;
    char base[64], dir_a[1100], dir_b[1100];
} run_pair;

static void pair_open(run_pair *p)
{
    need_ptx("build/ptx/kernels/gt_loop.ptx");
    p->s = load("tests/specs/hunt_loop_small.json");
    tmpdir(p->base);
    snprintf(p->dir_a, sizeof p->dir_a, "%s/a", p->base);
    snprintf(p->dir_b, sizeof p->dir_b, "%s/b", p->base);
}

static void pair_close_expecting_same_history(run_pair *p)
{
    char ha[1200], hb[1200];
    snprintf(ha, sizeof ha, "%s/history.csv", p->dir_a);
    snprintf(hb, sizeof hb, "%s/history.csv", p->dir_b);
    char *x = read_column_file(ha), *y = read_column_file(hb);
    cr_expect_str_eq(x, y, "the resumed history equals the uninterrupted one");
    free(x);
    free(y);
    ts_rmtree(p->base);
    wh_spec_free(p->s);
}

Test(hunt, killed_run_resumes_to_the_same_result)
{
    run_pair pr;
    pair_open(&pr);
    wh_spec *s = pr.s;
    char *base = pr.base, *dir_a = pr.dir_a, *dir_b = pr.dir_b, hist[1200];
    wh_error err;
    hunt_summary a, b;
    hunt_options o = quiet_options(base, GA_RANDOM_GA, 3000, 3);
    o.out_dir = dir_a;
    cr_assert(hunt_run(s, &o, &a, &err), "%s", err.msg);

    /* The same run in a child process, killed with SIGKILL part-way. */
    o.out_dir = dir_b;
    snprintf(hist, sizeof hist, "%s/history.csv", dir_b);
    pid_t pid = fork();
    if (pid == 0) {
        hunt_summary dummy;
        wh_error e2;
        _exit(hunt_run(s, &o, &dummy, &e2) ? 0 : 1);
    }
    while (count_rows(hist) < 250) {  /* past two generations */
        int st;
        cr_assert_eq(waitpid(pid, &st, WNOHANG), 0, "the child finished before it could be killed");
        usleep(2000);
    }
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st), "the child was killed mid-run");
    cr_assert_lt(count_rows(hist), 3000);

    hunt_options r = quiet_options(base, GA_RANDOM_GA, 0, 0);
    r.resume_dir = dir_b;
    cr_assert(hunt_run(s, &r, &b, &err), "%s", err.msg);
    cr_expect_eq(b.evals, 3000);
    cr_expect_eq(b.best, a.best);
    pair_close_expecting_same_history(&pr);
}

/* Killed before its first checkpoint (the state a kill -9 in the first
 * generation leaves: run.json and a partial history, no checkpoint or
 * pool): --resume starts it again with its saved options and budget, and
 * ends where the uninterrupted run ends. */
Test(hunt, run_killed_before_its_first_checkpoint_resumes_from_the_start)
{
    run_pair pr;
    pair_open(&pr);
    wh_spec *s = pr.s;
    char *base = pr.base, *dir_a = pr.dir_a, *dir_b = pr.dir_b, path[1200];
    wh_error err;
    hunt_summary a, b;
    hunt_options o = quiet_options(base, GA_RANDOM_GA, 600, 3);
    o.out_dir = dir_a;
    cr_assert(hunt_run(s, &o, &a, &err), "%s", err.msg);
    o.out_dir = dir_b;
    cr_assert(hunt_run(s, &o, &b, &err), "%s", err.msg);
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir_b);
    cr_assert_eq(unlink(path), 0);
    snprintf(path, sizeof path, "%s/pool.bin", dir_b);
    unlink(path);
    snprintf(path, sizeof path, "%s/history.csv", dir_b);
    cr_assert_eq(truncate(path, 40), 0);

    hunt_options r = quiet_options(base, GA_RANDOM_GA, 0, 0);   /* no budget given: the run's own */
    r.resume_dir = dir_b;
    cr_assert(hunt_run(s, &r, &b, &err), "%s", err.msg);
    cr_expect_eq(b.evals, 600);
    cr_expect_eq(b.best, a.best);
    pair_close_expecting_same_history(&pr);
}

/* Two runs never write one directory at once: the second is refused,
 * naming the first's pid; once the first ends the directory is free. */
Test(hunt, a_run_directory_in_use_is_refused)
{
    need_ptx("build/ptx/kernels/gt_loop.ptx");
    wh_spec *s = load("tests/specs/hunt_loop_small.json");
    char base[64], dir[1100], pid[64];
    tmpdir(base);
    snprintf(dir, sizeof dir, "%s/run", base);
    wh_error err;
    cr_assert(wh_make_dirs(dir, &err), "%s", err.msg);
    int held = wh_run_dir_lock(dir, &err);   /* as a running hunt holds it */
    cr_assert_geq(held, 0, "%s", err.msg);
    hunt_options o = quiet_options(base, GA_RANDOM, 20, 1);
    o.out_dir = dir;
    hunt_summary sum;
    wh_error_clear(&err);
    cr_expect_not(hunt_run(s, &o, &sum, &err));
    snprintf(pid, sizeof pid, "(pid %ld)", (long)getpid());
    cr_expect(strstr(err.msg, "in use by another warphunt process") && strstr(err.msg, pid), "%s", err.msg);
    wh_run_dir_unlock(held, dir);
    cr_expect(hunt_run(s, &o, &sum, &err), "%s", err.msg);
    char lock[1200];
    snprintf(lock, sizeof lock, "%s/.lock", dir);
    cr_expect_neq(access(lock, F_OK), 0, "the lock is removed when the run ends");
    ts_rmtree(base);
    wh_spec_free(s);
}

/* A history row that cannot be written (here: a full device) stops the run
 * at the next evaluation with the reason, instead of being lost silently. */
Test(hunt, a_history_write_error_stops_the_run)
{
    need_ptx("build/ptx/kernels/gt_loop.ptx");
    if (access("/dev/full", W_OK) != 0) cr_skip_test("no /dev/full on this machine");
    wh_spec *s = load("tests/specs/hunt_loop_small.json");
    char base[64], dir[1100], hist[1200];
    tmpdir(base);
    snprintf(dir, sizeof dir, "%s/run", base);
    wh_error err;
    cr_assert(wh_make_dirs(dir, &err), "%s", err.msg);
    snprintf(hist, sizeof hist, "%s/history.csv", dir);
    cr_assert_eq(symlink("/dev/full", hist), 0);
    hunt_options o = quiet_options(base, GA_RANDOM, 200, 1);
    o.out_dir = dir;
    hunt_summary sum;
    wh_error_clear(&err);
    bool ok = hunt_run(s, &o, &sum, &err);
    cr_expect_not(ok);
    cr_expect(strstr(err.msg, "cannot write") && strstr(err.msg, "No space left"), "%s", err.msg);
    ts_rmtree(base);
    wh_spec_free(s);
}

Test(hunt, best_input_replays_to_the_same_time)
{
    need_ptx("build/ptx/kernels/gt_atomic.ptx");
    wh_spec *s = load("kernels/gt_atomic.json");
    char base[64], best[1200];
    tmpdir(base);
    wh_error err;
    hunt_summary a;
    hunt_options o = quiet_options(base, GA_RANDOM, 40, 2);
    cr_assert(hunt_run(s, &o, &a, &err), "%s", err.msg);
    snprintf(best, sizeof best, "%s/best", a.dir);
    wh_image *img = wh_image_load(s, best, &err);
    cr_assert(img, "%s", err.msg);
    harness_options ho;
    harness_options_init(&ho);
    ho.quiet = true;
    harness *h = harness_open(s, HARNESS_SIM, &ho, &err);
    harness_result r;
    cr_assert(harness_measure(h, img, 3, &r, &err));
    cr_expect_eq(r.mean, a.best, "replayed %g, hunted %g", r.mean, a.best);
    harness_result_free(&r);
    harness_close(h);
    wh_image_free(img);
    ts_rmtree(base);
    wh_spec_free(s);
}

Test(hunt, every_strategy_spends_the_same_budget)
{
    need_ptx("build/ptx/kernels/gt_paths32.ptx");
    wh_spec *s = load("tests/specs/hunt_paths_small.json");
    char base[64];
    tmpdir(base);
    for (int st = 0; st < 3; st++) {
        wh_error err;
        hunt_summary r;
        hunt_options o = quiet_options(base, (ga_strategy)st, 230, 1);
        cr_assert(hunt_run(s, &o, &r, &err), "%s: %s", ga_strategy_name((ga_strategy)st), err.msg);
        cr_expect_eq(r.evals, 230, "%s used %ld", ga_strategy_name((ga_strategy)st), r.evals);
        char hist[1200];
        snprintf(hist, sizeof hist, "%s/history.csv", r.dir);
        cr_expect_eq(count_rows(hist), 230);
        cr_expect_eq(r.stop, GA_STOP_EVALS);
    }
    ts_rmtree(base);
    wh_spec_free(s);
}

/* Fig. 1(b): the atomic leg has fewer instructions than the register leg,
 * so the paper's special individual (most instructions) is the fast input;
 * measuring every path's uniform input in the first generation finds the
 * slow one at once. */
Test(hunt, gdivan_finds_fig1b_worst_in_the_first_generation)
{
    need_ptx("build/ptx/kernels/fig1b.ptx");
    wh_spec *s = load("kernels/fig1b.json");
    double worst = sevens_time(s);
    char base[64];
    tmpdir(base);
    wh_error err;
    hunt_summary g;
    hunt_options o = quiet_options(base, GA_GDIVAN, 100, 1);
    cr_assert(hunt_run(s, &o, &g, &err), "%s", err.msg);
    cr_expect_geq(g.best, worst * 0.999, "gdivan best %g, known worst %g", g.best, worst);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* ---- worst cases that are relations between threads' data -------------------
 * The known worst inputs of the kernels' header comments, on small launches:
 * 32 distinct leaves per warp, a new sector in every lane, distinct keys
 * with one home slot.  Plain tiling (the paper's scaler) repeats each
 * atom's values and cannot build them; stride tiling can. */

static int64_t lane_leaf(uint64_t i) { return (int64_t)(i % 32); }
static int64_t sector_apart(uint64_t i) { return (int64_t)(8 * i); }
static int64_t same_home(uint64_t i) { return (int64_t)(5 + 4096 * (i + 1)); }

static void relation_case(const char *spec, const char *ptx, int64_t (*worst_input)(uint64_t), double reach)
{
    need_ptx(ptx);
    wh_spec *s = load(spec);
    double worst = pattern_time(s, worst_input);
    char base[64];
    tmpdir(base);
    wh_error err;
    hunt_summary st, pl;
    hunt_options o = quiet_options(base, GA_GDIVAN, 600, 1);
    o.warp_first = 0;   /* stride tiling alone (warp-first is tested below) */
    cr_assert(hunt_run(s, &o, &st, &err), "%s", err.msg);
    cr_expect_geq(st.best, worst * reach, "%s: stride tiling best %g, known worst %g", spec, st.best, worst);
    cr_expect_gt(st.best_stride, 0, "%s: the best input is strided", spec);
    o.tiling = HUNT_TILING_PLAIN;   /* the paper's method */
    o.ga.segment_prob = 0;
    o.ga.random_frac = 0;
    o.value_edits = 0;
    o.explore.families = 0;
    cr_assert(hunt_run(s, &o, &pl, &err), "%s", err.msg);
    cr_expect_lt(pl.best, st.best, "%s: the paper's plain tiling %g, stride tiling %g", spec, pl.best, st.best);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* Warp-first composition (gen/warp.c): 32 distinct leaves in a warp is a
 * relation between the lanes of a warp that no X-thread atom states; the
 * warp built gene by gene on the sim, the first individual (evaluation 1,
 * nothing else evaluated), is within 1 % of the known worst, where the
 * best single allele in every gene of that warp is under half of it.
 * Off (--warp-first 0), run.json says nothing of it. */
Test(hunt, warp_first_builds_the_divergent_warp)
{
    need_ptx("build/ptx/kernels/gt_paths32.ptx");
    wh_spec *s = load("tests/specs/hunt_paths_small.json");
    double worst = pattern_time(s, lane_leaf);
    char base[64];
    tmpdir(base);
    wh_error err;
    hunt_summary r;
    hunt_options o = quiet_options(base, GA_GDIVAN, 1, 1);
    cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
    cr_expect_geq(r.best, worst * 0.99, "warp-first %g, known worst %g", r.best, worst);
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", r.dir);
    json_t *run = ts_load_json(path);
    json_t *w = json_object_get(run, "warp_first");
    cr_assert(w, "run.json has warp_first");
    cr_expect_eq(json_integer_value(json_object_get(w, "unit_threads")), 32);
    cr_expect_lt((double)json_integer_value(json_object_get(w, "uniform_cycles")),
                 0.5 * (double)json_integer_value(json_object_get(w, "cycles")));
    cr_expect(json_is_true(json_object_get(w, "individual")));
    json_decref(run);
    o.warp_first = 0;
    o.seed = 2;   /* a run directory of its own */
    cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
    cr_expect_lt(r.best, worst * 0.9, "without warp-first, one evaluation is not the worst: %g", r.best);
    snprintf(path, sizeof path, "%s/run.json", r.dir);
    run = ts_load_json(path);
    cr_expect_null(json_object_get(run, "warp_first"));
    json_decref(run);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* A loop whose trip count is each thread's own input: the longest trip in
 * every lane is already the slowest warp, so the composed unit gains
 * nothing over one allele everywhere and adds no individual (the first
 * population is the one --warp-first 0 gives: the same history). */
Test(hunt, warp_first_adds_nothing_where_lanes_need_not_disagree)
{
    need_ptx("build/ptx/kernels/gt_loop.ptx");
    wh_spec *s = load("tests/specs/hunt_loop_small.json");
    char base[64];
    tmpdir(base);
    wh_error err;
    hunt_summary on, off;
    hunt_options o = quiet_options(base, GA_GDIVAN, 40, 1);
    cr_assert(hunt_run(s, &o, &on, &err), "%s", err.msg);
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", on.dir);
    json_t *run = ts_load_json(path);
    json_t *w = json_object_get(run, "warp_first");
    cr_assert(w, "run.json has warp_first");
    cr_expect(json_is_false(json_object_get(w, "individual")));
    cr_expect_eq(json_integer_value(json_object_get(w, "cycles")),
                 json_integer_value(json_object_get(w, "uniform_cycles")));
    json_decref(run);
    o.warp_first = 0;
    o.seed = 1;
    char out[300];
    snprintf(out, sizeof out, "%s/off", base);
    o.out_dir = out;
    cr_assert(hunt_run(s, &o, &off, &err), "%s", err.msg);
    char a[1300], b[1300];
    snprintf(a, sizeof a, "%s/history.csv", on.dir);
    snprintf(b, sizeof b, "%s/history.csv", off.dir);
    char *ha = read_column_file(a), *hb = read_column_file(b);
    cr_expect_str_eq(ha, hb, "the same search with and without it");
    free(ha);
    free(hb);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* The fitness of a run's first two evaluations (history.csv). */
static void first_two_fitnesses(const char *dir, double fit[2])
{
    char path[1200], line[256];
    snprintf(path, sizeof path, "%s/history.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    fit[0] = fit[1] = 0;
    for (int k = 0; fgets(line, sizeof line, f);)
        if (k < 2 && sscanf(line, "%*d,%*d,%*f,%lf", &fit[k]) == 1) k++;
    fclose(f);
}

/* A gdivan hunt of two evaluations of corpus kernel `name` (a 3 s stage,
 * one thread, --warp-refine refine) under base; its spec. */
static wh_spec *two_evaluations(const char *base, const char *name, long refine, uint64_t seed, hunt_summary *r)
{
    char spec[128], ptx[160];
    snprintf(spec, sizeof spec, "kernels/corpus/%s.json", name);
    snprintf(ptx, sizeof ptx, "build/ptx/kernels/corpus/%s.ptx", name);
    need_ptx(ptx);
    wh_spec *s = load(spec);
    hunt_options o = quiet_options(base, GA_GDIVAN, 2, seed);
    o.explore.time_s = 3;
    o.jobs = 1;
    o.warp_refine = refine;
    wh_error err;
    cr_assert(hunt_run(s, &o, r, &err), "%s", err.msg);
    return s;
}

/* Element refinement of the warp-first unit (gen/warp.c): on fsm_lexer,
 * whose worst warp needs its 32 lanes in 32 states, the refined unit is
 * longer than the composed one by more than 2 %, and laid over the launch
 * it is the first individual and longer than the composed one, the second
 * (71782 cycles against 56608 in 5000 unit launches); run.json says so.
 * Off (--warp-refine 0), nothing is refined and the composed individual
 * is the first.  (sssp_relax was the kernel here until its distances had
 * to be a relaxation state, session 36: its refined unit laid over the
 * launch then measured 14372 cycles against the composed one's 17250.) */
Test(hunt, warp_refinement_lengthens_the_composed_warp, .timeout = 240)
{
    char base[64];
    tmpdir(base);
    hunt_summary r;
    wh_spec *s = two_evaluations(base, "fsm_lexer", 5000, 1, &r);
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", r.dir);
    json_t *run = ts_load_json(path);
    json_t *w = json_object_get(run, "warp_first"), *ref = json_object_get(w, "refine");
    cr_assert(json_is_true(json_object_get(w, "individual")), "warp-first kept its unit");
    cr_expect_gt(json_integer_value(json_object_get(ref, "sim_launches")), 0);
    cr_expect_gt(json_integer_value(json_object_get(ref, "elements_changed")), 0);
    cr_expect_gt((double)json_integer_value(json_object_get(ref, "cycles")),
                 1.02 * (double)json_integer_value(json_object_get(w, "cycles")));
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(run, "options"), "warp_refine")), 5000);
    json_decref(run);
    double fit[2];
    first_two_fitnesses(r.dir, fit);
    cr_expect_gt(fit[0], fit[1], "the refined individual (first) %g, the composed one %g", fit[0], fit[1]);
    wh_spec_free(s);
    s = two_evaluations(base, "fsm_lexer", 0, 2, &r);
    snprintf(path, sizeof path, "%s/run.json", r.dir);
    run = ts_load_json(path);
    ref = json_object_get(json_object_get(run, "warp_first"), "refine");
    cr_expect_eq(json_integer_value(json_object_get(ref, "sim_launches")), 0);
    cr_expect_eq(json_integer_value(json_object_get(ref, "cycles")), 0);
    json_decref(run);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* With a head start (one core), the composed individual is measured as
 * soon as it is composed, before refinement's launches: scout.csv's one
 * row of generation 1, before the search starts, the fitness the search
 * measures again for it (its second individual, after the refined one),
 * counted in the budget.  Without refinement the search's first
 * individual is the composed one: no such row. */
static int composed_rows(const char *base, long refine, uint64_t seed, double *fit, double *search_fit)
{
    wh_spec *s = load("kernels/corpus/fsm_lexer.json");
    hunt_options o = quiet_options(base, GA_GDIVAN, 8, seed);
    o.explore.time_s = 3;
    o.jobs = 1;
    o.scout = true;
    o.warp_refine = refine;
    hunt_summary r;
    wh_error err;
    cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
    cr_expect_eq(r.evals, 8, "the composed row is in the budget");
    char path[1200], line[256];
    snprintf(path, sizeof path, "%s/run.json", r.dir);
    json_t *run = ts_load_json(path);
    double offset = json_real_value(json_object_get(run, "search_offset_s"));
    json_int_t counted = json_integer_value(json_object_get(json_object_get(run, "scout"), "composed_evals"));
    json_decref(run);
    snprintf(path, sizeof path, "%s/scout.csv", r.dir);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    int n = 0, gen;
    double wall, fitness;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%*d,%d,%lf,%lf", &gen, &wall, &fitness) == 3 && gen == 1) {
            n++;
            *fit = fitness;
            cr_expect_lt(wall, offset, "measured before the search (%g s, search at %g s)", wall, offset);
        }
    fclose(f);
    cr_expect_eq(counted, n, "run.json's scout.composed_evals %lld, scout.csv's rows of generation 1 %d",
                 (long long)counted, n);
    double two[2];
    first_two_fitnesses(r.dir, two);
    *search_fit = refine ? two[1] : two[0];
    wh_spec_free(s);
    return n;
}

Test(hunt, the_composed_individual_is_measured_before_refinement, .timeout = 240)
{
    need_ptx("build/ptx/kernels/corpus/fsm_lexer.ptx");
    char base[64];
    tmpdir(base);
    double fit = 0, again = 0;
    cr_expect_eq(composed_rows(base, 5000, 1, &fit, &again), 1);
    cr_expect_gt(fit, 0);
    cr_expect_eq(fit, again, "the search measured the composed individual at %g, the early row %g", again, fit);
    cr_expect_eq(composed_rows(base, 0, 2, &fit, &again), 0, "no refinement: no early row");
    ts_rmtree(base);
}

/* Shared inputs as long in a warp's launch as in the full one are refined
 * too, a tree among them: bvh_traverse's tree (21 nodes, 63 items), whose
 * worst is a chain with every bound containing every query, where the
 * composed warp can only choose queries (its tree is an atom's).  In 2000
 * unit launches the refined input is a quarter longer than the composed
 * one and past 0.15 of the hand-built worst (34243 cycles,
 * kernels/corpus/bvh_traverse.cu), at evaluation 1: 9581 cycles against
 * 3858 in the plain build, 7327 against 4769 under the sanitizers, whose
 * slower 3 s stage finds other atoms to start from.  (Before nodes were a "tree", refinement
 * reached 0.64 of it by sharing leaves between parents, inputs no BVH is;
 * one field at a time, a tree grows more slowly: the screen's tree edits
 * build whole trees instead.) */
Test(hunt, warp_refinement_builds_a_shared_tree, .timeout = 240)
{
    char base[64];
    tmpdir(base);
    hunt_summary r;
    wh_spec *s = two_evaluations(base, "bvh_traverse", 2000, 1, &r);
    double fit[2];
    first_two_fitnesses(r.dir, fit);
    cr_expect_gt(fit[0], 1.25 * fit[1], "refined %g, the next individual %g", fit[0], fit[1]);
    cr_expect_gt(fit[0], 0.15 * 34243, "refined %g", fit[0]);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* sssp_relax's header input at any size: every node but 0 in the
 * frontier with 16 edges, 15 into node 0, which nothing reaches (at the
 * top), and the last into the node below (weight 0: the chain from the
 * source, node N - 1, that makes the distances a relaxation state); the
 * distances falling with the node, the weights with the slot by 2^14. */
static wh_image *sssp_expert(const wh_spec *s)
{
    wh_error err;
    wh_launch l = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &l, &err);
    cr_assert(img, "%s", err.msg);
    int32_t *deg = (int32_t *)img->bufs[wh_image_find(img, "degree")].data;
    int32_t *edges = (int32_t *)img->bufs[wh_image_find(img, "edges")].data;
    int32_t *w = (int32_t *)img->bufs[wh_image_find(img, "weights")].data;
    int32_t *dist = (int32_t *)img->bufs[wh_image_find(img, "dist")].data;
    uint8_t *frontier = img->bufs[wh_image_find(img, "frontier")].data;
    int32_t n = (int32_t)img->bufs[wh_image_find(img, "dist")].count;
    for (int32_t u = 0; u < n; u++) {
        deg[u] = 16;
        frontier[u] = u > 0;
        dist[u] = u == 0 ? 16777216 : n - 1 - u;
        for (int32_t k = 0; k < 16; k++) {
            bool chain = k == 15 && u > 0;   /* in the chain of edges that set the nodes from the source */
            edges[u * 16 + k] = chain ? u - 1 : 0;
            w[u * 16 + k] = chain ? 0 : (15 - k) * 16384;
        }
    }
    cr_assert(wh_image_restructure(img, &err), "%s", err.msg);
    cr_assert(wh_image_check_domains(img, &err), "%s", err.msg);
    return img;
}

/* Whether run.json's best input carries an edit whose words start so. */
static bool best_has_edit(const char *dir, const char *prefix)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_t *run = ts_load_json(path), *edits = json_object_get(json_object_get(run, "best"), "value_edits");
    bool found = false;
    for (size_t i = 0; i < json_array_size(edits); i++)
        found |= !strncmp(json_string_value(json_array_get(edits, i)), prefix, strlen(prefix));
    json_decref(run);
    return found;
}

/* sssp_relax's worst needs four relations at once (every edge into one
 * node, that node's distance at the top, the others' falling, the weights
 * falling with the slot) and, its distances being a relaxation state, a
 * chain of edges that reaches every node: fewer of them make the kernel
 * faster, so only the screen's contend-min edit reaches it.  At 8192 threads (at 2048 the
 * contention is no worst: random inputs run longer), 300
 * evaluations: gdivan gets within 5 % of the header's input with that
 * edit; without the screen it stays below 75 %. */
Test(hunt, the_screen_writes_a_relaxations_contention_worst_case, .timeout = 300)
{
    wh_spec *s = load("kernels/corpus/sssp_relax.json");
    wh_error err;
    cr_assert(wh_spec_assign(s, "G=32", &err), "%s", err.msg);
    wh_image *expert = sssp_expert(s);
    double worst = ts_sim_time(s, expert);
    wh_image_free(expert);
    char base[64];
    tmpdir(base);
    for (int screen = 1; screen >= 0; screen--) {
        hunt_summary r;
        hunt_options o = quiet_options(base, GA_GDIVAN, 300, 1);
        o.explore.time_s = 5;
        o.edit_screen = screen;
        cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
        if (screen) {
            cr_expect_geq(r.best, 0.95 * worst, "%g of the header's %g", r.best, worst);
            cr_expect(best_has_edit(r.dir, "contend-min dist[edges["), "the best is contend-min's");
        } else {
            cr_expect_lt(r.best, 0.75 * worst, "%g of the header's %g", r.best, worst);
        }
    }
    ts_rmtree(base);
    wh_spec_free(s);
}

/* union_find_roots's worst (its author's: one chain of parents, v - 1,
 * walked by thread 0 alone, the other queries at the root) needs the
 * whole parent array one step below the top of its domain [0, v] and one
 * query apart from the rest: the ends edits (on by default) say both.  At 4
 * blocks (1024 threads, 4096 nodes; a 2 s stage, which found no path there
 * before session 48's word cases and finds one or two since), 1,000
 * evaluations with the scout's head start, as a one-core hunt runs: with
 * them gdivan reaches the author's input (at evaluation 596 in session
 * 47); without them it stays below a tenth of it (no other edit makes a
 * chain: fill-high makes every node a root).  At 300 evaluations without the scout it reached 0.91 of it: a
 * random edit of the first population, kept beside the screen's two,
 * cut the chain. */
Test(hunt, end_edits_build_one_walker_on_a_chain, .timeout = 300)
{
    need_ptx("build/ptx/kernels/holdout/union_find_roots.ptx");
    wh_spec *s = load("kernels/holdout/union_find_roots.json");
    wh_error err;
    cr_assert(wh_spec_assign(s, "G=4", &err), "%s", err.msg);
    wh_launch l = wh_spec_launch_full(s);
    wh_image *author = wh_image_new(s, &l, &err);
    cr_assert(author, "%s", err.msg);
    int32_t *parent = (int32_t *)author->bufs[wh_image_find(author, "parent")].data;
    int32_t *queries = (int32_t *)author->bufs[wh_image_find(author, "queries")].data;
    int32_t n = (int32_t)author->bufs[wh_image_find(author, "parent")].count;
    for (int32_t v = 0; v < n; v++) parent[v] = v > 0 ? v - 1 : 0;
    for (uint64_t t = 0; t < author->bufs[wh_image_find(author, "queries")].count; t++) queries[t] = t ? 0 : n - 1;
    double worst = ts_sim_time(s, author);
    wh_image_free(author);
    char base[64];
    tmpdir(base);
    for (int ends = 1; ends >= 0; ends--) {
        hunt_summary r;
        hunt_options o = quiet_options(base, GA_GDIVAN, 1000, 1);
        o.explore.time_s = 2;
        o.scout = true;
        o.jobs = 1;
        o.end_edits = ends;
        cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
        if (ends) {
            cr_expect_geq(r.best, 0.99 * worst, "%g of the author's %g", r.best, worst);
            cr_expect(best_has_edit(r.dir, "below-high parent[0..4096)"), "the chain is below-high's");
            cr_expect(best_has_edit(r.dir, "one-high queries[0..1024)"), "the one walker is one-high's");
        } else {
            cr_expect_lt(r.best, 0.1 * worst, "%g of the author's %g", r.best, worst);
        }
    }
    ts_rmtree(base);
    wh_spec_free(s);
}

/* gen_warp_tile: thread t of the launch takes unit thread t mod 32's
 * per-thread elements (its edges: its row, where the running sum brought
 * back puts it). */
Test(hunt, a_refined_warp_is_laid_over_the_launch)
{
    wh_spec *s = load("kernels/corpus/sssp_relax.json");
    wh_error err;
    wh_launch ul = wh_launch_threads(32), fl = wh_spec_launch_full(s);
    wh_image *cell = wh_image_new(s, &ul, &err), *full = wh_image_new(s, &fl, &err);
    cr_assert(cell && full, "%s", err.msg);
    pcg32 rng;
    pcg32_seed(&rng, 7, 1);
    cr_assert(wh_image_fill_random(cell, &rng, &err), "%s", err.msg);
    cr_assert(gen_warp_tile(cell, full, &err), "%s", err.msg);
    int deg = wh_image_find(full, "degree"), edges = wh_image_find(full, "edges"), rs = wh_image_find(full, "row_start");
    cr_assert(deg >= 0 && edges >= 0 && rs >= 0);
    const int32_t *fd = (const int32_t *)full->bufs[deg].data, *cd = (const int32_t *)cell->bufs[deg].data;
    const int32_t *fe = (const int32_t *)full->bufs[edges].data, *ce = (const int32_t *)cell->bufs[edges].data;
    cr_expect(wh_image_check_structure(full, rs, &err), "row_start is degree's running sum: %s", err.msg);
    const int32_t *fr = (const int32_t *)full->bufs[rs].data, *cr = (const int32_t *)cell->bufs[rs].data;
    for (uint64_t t = 0; t < full->bufs[deg].count; t++) {
        cr_assert_eq(fd[t], cd[t % 32], "degree[%llu]", (unsigned long long)t);
        for (int k = 0; k < fd[t]; k++) cr_assert_eq(fe[fr[t] + k], ce[cr[t % 32] + k], "node %llu edge %d",
                                                     (unsigned long long)t, k);
    }
    cr_expect(!gen_warp_refinable(&s->params[rs]), "a running sum is not refined: it is recomputed");
    cr_expect(gen_warp_refinable(&s->params[deg]));
    wh_image_free(cell);
    wh_image_free(full);
    wh_spec_free(s);
}

Test(hunt, stride_tiling_reaches_32_paths_per_warp)
{
    relation_case("tests/specs/hunt_paths_small.json", "build/ptx/kernels/gt_paths32.ptx", lane_leaf, 0.999);
}

Test(hunt, stride_tiling_reaches_the_sector_spread_worst)
{
    relation_case("tests/specs/hunt_gather_small.json", "build/ptx/kernels/gt_gather.ptx", sector_apart, 0.999);
}

/* The search may beat the header's input (keys in one contiguous run of
 * home slots cost about as much, and contention differs); it must reach
 * most of it. */
Test(hunt, stride_tiling_reaches_the_hash_collision_worst)
{
    relation_case("tests/specs/hunt_hash_small.json", "build/ptx/kernels/gt_hash.ptx", same_home, 0.95);
}

/* A kernel that faults on some inputs: every faulting evaluation is saved
 * under findings/ with the harness's message, and the search goes on to
 * inputs that run (fault_small: 1000001 stores through a null pointer). */
Test(hunt, faulting_inputs_are_findings_and_the_search_goes_on)
{
    need_ptx("build/ptx/tests/ptx/fake_inc.ptx");
    wh_spec *s = load("tests/specs/fault_small.json");
    char base[64];
    tmpdir(base);
    wh_error err;
    hunt_summary g;
    hunt_options o = quiet_options(base, GA_GDIVAN, 30, 1);
    cr_assert(hunt_run(s, &o, &g, &err), "%s", err.msg);
    cr_expect_eq(g.evals, 30);
    cr_expect_gt(g.best, 0, "inputs that run were found");
    cr_expect_gt(g.findings, 0, "random combinations of atoms fault");
    cr_expect_lt(g.findings, 30);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "test $(ls '%s/findings' | wc -l) -eq %ld && grep -l '^fault: out-of-bounds global store' "
             "'%s'/findings/*/message.txt | wc -l | grep -qx %ld && ls '%s'/findings/*/manifest.json >/dev/null",
             g.dir, g.findings, g.dir, g.findings, g.dir);
    cr_expect_eq(system(cmd), 0, "one directory per finding, each with its input and message");
    snprintf(cmd, sizeof cmd, "grep -c ',fault$' '%s/history.csv' | grep -qx %ld", g.dir, g.findings);
    cr_expect_eq(system(cmd), 0, "history.csv marks each faulting evaluation");
    ts_rmtree(base);
    wh_spec_free(s);
}

static bool same_inputs(const wh_image *a, const wh_image *b)
{
    for (int i = 0; i < a->nbufs; i++)
        if (a->bufs[i].param->role == WH_ROLE_INPUT &&
            (a->bufs[i].bytes != b->bufs[i].bytes || memcmp(a->bufs[i].data, b->bufs[i].data, a->bufs[i].bytes)))
            return false;
    return true;
}

/* --keep: top/ holds the longest-running distinct inputs, best first, the
 * first being best/, each re-measured to the time recorded for it. */
Test(hunt, keep_saves_the_longest_running_distinct_inputs)
{
    need_ptx("build/ptx/kernels/gt_paths32.ptx");
    wh_spec *s = load("tests/specs/hunt_paths_small.json");
    char base[64];
    tmpdir(base);
    for (int st = 0; st < 3; st++) {
        wh_error err;
        hunt_summary r;
        hunt_options o = quiet_options(base, (ga_strategy)st, 200, 2);
        o.ga.keep = 4;
        cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
        char path[1200];
        snprintf(path, sizeof path, "%s/run.json", r.dir);
        json_t *doc = ts_load_json(path);
        json_t *top = json_object_get(doc, "top");
        cr_assert_eq(json_array_size(top), 4, "%s", ga_strategy_name((ga_strategy)st));
        json_t *summary = hunt_summary_json(&r);
        cr_expect(json_equal(json_object_get(summary, "top"), top), "--json has the same top list");
        json_decref(summary);
        wh_image *img[4];
        for (int k = 0; k < 4; k++) {
            json_t *e = json_array_get(top, (size_t)k);
            double fit = json_number_value(json_object_get(e, "fitness"));
            if (k == 0) cr_expect_eq(fit, r.best, "the first is the best");
            else cr_expect_leq(fit, json_number_value(json_object_get(json_array_get(top, (size_t)k - 1), "fitness")));
            img[k] = wh_image_load(s, json_string_value(json_object_get(e, "dir")), &err);
            cr_assert(img[k], "%s", err.msg);
            double t = ts_sim_time(s, img[k]);
            cr_expect_eq(t, fit, "top %d replays to its recorded time", k + 1);
            cr_expect_eq(t, json_number_value(json_object_get(json_object_get(e, "final"), "mean")));
            for (int j = 0; j < k; j++) cr_expect_not(same_inputs(img[j], img[k]), "top %d == top %d", j + 1, k + 1);
        }
        snprintf(path, sizeof path, "%s/best", r.dir);
        wh_image *best = wh_image_load(s, path, &err);
        cr_assert(best, "%s", err.msg);
        cr_expect(same_inputs(best, img[0]), "top/01 is best/");
        wh_image_free(best);
        for (int k = 0; k < 4; k++) wh_image_free(img[k]);
        json_decref(doc);
    }
    ts_rmtree(base);
    wh_spec_free(s);
}

/* gdivan's value edits: their number is an option run.json keeps (a
 * resume needs it), and the best input's edits are described there. */
Test(hunt, value_edits_are_recorded_in_run_json)
{
    need_ptx("build/ptx/kernels/gt_paths32.ptx");
    wh_spec *s = load("tests/specs/hunt_paths_small.json");
    char base[64];
    tmpdir(base);
    for (int n = 0; n <= 2; n += 2) {
        wh_error err;
        hunt_summary r;
        hunt_options o = quiet_options(base, GA_GDIVAN, 200, 2);
        o.value_edits = n;
        cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
        cr_expect_eq(r.value_edits, n);
        char path[1200];
        snprintf(path, sizeof path, "%s/run.json", r.dir);
        json_t *doc = ts_load_json(path);
        cr_expect_eq(json_integer_value(json_object_get(json_object_get(doc, "options"), "value_edits")), n);
        json_t *edits = json_object_get(json_object_get(doc, "best"), "value_edits");
        cr_assert(json_is_array(edits));
        cr_expect_leq(json_array_size(edits), (size_t)n);
        for (size_t k = 0; k < json_array_size(edits); k++) {
            const char *text = json_string_value(json_array_get(edits, k));
            cr_expect(text && strstr(text, " sel["), "an edit of the only input: %s", text);
        }
        json_decref(doc);
    }
    ts_rmtree(base);
    wh_spec_free(s);
}

/* The edit screen: on by default with edit genes, every operator on the
 * one input field (sel) a code and the ends edits' four variants, at
 * least one round in 200 evaluations;
 * --no-edit-screen (edit_screen false) and no edit genes: none.  run.json
 * keeps the option (a resume needs it) and what the screen did. */
Test(hunt, edit_screen_is_recorded_in_run_json)
{
    need_ptx("build/ptx/kernels/gt_paths32.ptx");
    wh_spec *s = load("tests/specs/hunt_paths_small.json");
    char base[64];
    tmpdir(base);
    for (int c = 0; c < 3; c++) {
        wh_error err;
        hunt_summary r;
        hunt_options o = quiet_options(base, GA_GDIVAN, 200, 3);
        cr_expect(o.edit_screen, "on by default");
        o.edit_screen = c != 1;
        o.value_edits = c == 2 ? 0 : 2;
        cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
        char path[1200];
        snprintf(path, sizeof path, "%s/run.json", r.dir);
        json_t *doc = ts_load_json(path);
        cr_expect_eq(json_is_true(json_object_get(json_object_get(doc, "options"), "edit_screen")), c != 1);
        json_t *screen = json_object_get(doc, "edit_screen");
        int codes = (int)json_integer_value(json_object_get(screen, "codes"));
        int rounds = (int)json_integer_value(json_object_get(screen, "rounds"));
        cr_expect_eq(codes, c == 0 ? GEN_EDIT_RUN_KINDS - 1 + GEN_ENDS_VARIANTS : 0, "run %d: %d codes", c, codes);
        if (c == 0) cr_expect_geq(rounds, 1);
        else cr_expect_eq(rounds, 0);
        json_decref(doc);
    }
    ts_rmtree(base);
    wh_spec_free(s);
}

/* Under emulated GPU-like noise the search's own best is a maximum over
 * noisy measurements and overstates the input's time; the final
 * re-measurement does not (why compare ranks re-measured times). */
Test(hunt, under_noise_the_search_best_overstates_and_the_remeasurement_does_not)
{
    need_ptx("build/ptx/kernels/gt_paths32.ptx");
    wh_spec *s = load("tests/specs/hunt_paths_small.json");
    char base[64];
    tmpdir(base);
    wh_error err;
    hunt_summary r;
    hunt_options o = quiet_options(base, GA_RANDOM, 300, 4);
    o.final_reps = 400;
    o.harness.sim_noise = 0.05;
    cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
    cr_expect_gt(r.best, r.final_mean * 1.05, "search best %g, re-measured %g", r.best, r.final_mean);
    /* the re-measured input's exact time: the same input without noise */
    char path[1200];
    snprintf(path, sizeof path, "%s/best", r.dir);
    wh_image *img = wh_image_load(s, path, &err);
    cr_assert(img, "%s", err.msg);
    double exact = ts_sim_time(s, img);
    cr_expect(fabs(r.final_mean / exact - 1) < 0.01, "re-measured %g, exact %g", r.final_mean, exact);
    wh_image_free(img);
    snprintf(path, sizeof path, "%s/run.json", r.dir);
    json_t *doc = ts_load_json(path);
    cr_expect_float_eq(json_number_value(json_object_get(json_object_get(json_object_get(doc, "options"), "harness"),
                                                         "sim_noise")), 0.05, 1e-12);
    json_decref(doc);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* A resumed run measures as the run did: its harness options (here the
 * emulated noise) come from run.json, not from the resuming command. */
Test(hunt, resume_keeps_the_runs_harness_options)
{
    need_ptx("build/ptx/kernels/gt_paths32.ptx");
    wh_spec *s = load("tests/specs/hunt_paths_small.json");
    char base[64], dir[128];
    tmpdir(base);
    snprintf(dir, sizeof dir, "%s/run", base);
    wh_error err;
    hunt_summary r;
    hunt_options o = quiet_options(base, GA_RANDOM, 50, 3);
    o.out_dir = dir;
    o.harness.sim_noise = 0.05;
    o.harness.step_limit = 123456789;
    cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
    hunt_options again = quiet_options(base, GA_RANDOM, 80, 3);
    again.resume_dir = dir;
    cr_assert(hunt_run(s, &again, &r, &err), "%s", err.msg);
    cr_expect_eq(r.evals, 80);
    char path[300];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_t *doc = ts_load_json(path);
    json_t *h = json_object_get(json_object_get(doc, "options"), "harness");
    cr_expect_float_eq(json_number_value(json_object_get(h, "sim_noise")), 0.05, 1e-12);
    cr_expect_eq(json_integer_value(json_object_get(h, "step_limit")), 123456789);
    json_decref(doc);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* A symbolic stage that gives no atom (tests/specs/fault_always.json:
 * every path stores through a null pointer, an error path, which gets no
 * atom) does not end a gdivan hunt: it searches with random atoms, says
 * why in its summary and run.json, records every faulting evaluation as
 * a finding, and a resumed run picks the same alleles up again.  (Before
 * session 39 a millisecond's budget on binary_search left it no atom; its
 * paths now keep their own models as atoms past the deadline,
 * tests/test_explore.c.  An instruction the executor cannot model no
 * longer fails the stage: it cuts its path, tests/test_symexec.c.) */
Test(hunt, gdivan_goes_on_when_the_symbolic_stage_gives_nothing)
{
    need_ptx("build/ptx/tests/ptx/fake_inc.ptx");
    wh_spec *s = load("tests/specs/fault_always.json");
    char base[64];
    tmpdir(base);
    wh_error err;
    wh_error_clear(&err);
    hunt_summary r;
    hunt_options o = quiet_options(base, GA_GDIVAN, 120, 1);
    cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
    cr_expect_eq(r.evals, 120);
    cr_expect(strstr(r.explore_failure, "0 atoms"), "the summary names the cause: '%s'", r.explore_failure);
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", r.dir);
    json_t *run = ts_load_json(path);
    json_t *x = json_object_get(run, "explore");
    const char *why = json_string_value(json_object_get(x, "failed"));
    cr_expect(why && strstr(why, "0 atoms"), "%s", why ? why : "(none)");
    cr_expect_eq(json_integer_value(json_object_get(x, "fallback_atoms")), 64);
    json_decref(run);
    snprintf(path, sizeof path, "%s/findings", r.dir);
    cr_expect_eq(access(path, F_OK), 0, "its faults are findings");
    hunt_options ro = quiet_options(base, GA_GDIVAN, 220, 1);
    ro.resume_dir = r.dir;
    hunt_summary rr;
    cr_assert(hunt_run(s, &ro, &rr, &err), "resume: %s", err.msg);
    cr_expect_eq(rr.evals, 220);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* An access the symbolic stage finds may leave its buffer becomes a
 * finding: its triggering input, replayed on the sim, faults there, and
 * lands in findings/symbolic-issue-K-fault/ with the sim's message and the
 * stage's condition; a second hunt served from the explore cache gets it
 * too. */
Test(hunt, symbolic_issues_become_findings)
{
    need_ptx("build/ptx/kernels/gt_gather.ptx");
    wh_spec *s = load("tests/specs/sym_gather_oob.json");
    char base[64];
    tmpdir(base);
    for (uint64_t seed = 1; seed <= 2; seed++) {
        wh_error err;
        hunt_summary g;
        hunt_options o = quiet_options(base, GA_GDIVAN, 10, seed);
        cr_assert(hunt_run(s, &o, &g, &err), "%s", err.msg);
        cr_expect_eq(g.explore_cached, seed == 2, "the second hunt reuses the exploration");
        cr_expect_geq(g.findings, 1);
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "grep -q '^fault: out-of-bounds global load' '%s'/findings/symbolic-issue-0-fault/"
                 "message.txt && grep -q \"may fall outside 'data'\" '%s'/findings/symbolic-issue-0-fault/message.txt"
                 " && test -f '%s'/findings/symbolic-issue-0-fault/manifest.json", g.dir, g.dir, g.dir);
        cr_expect_eq(system(cmd), 0, "seed %llu: the issue's input and messages in findings/", (unsigned long long)seed);
    }
    ts_rmtree(base);
    wh_spec_free(s);
}

/* A run that fails before writing anything (here: no PTX) leaves no empty
 * run directory, so the next run is not pushed to NAME-2. */
Test(hunt, a_run_that_fails_at_once_leaves_no_directory)
{
    char base[64], spec_path[1200], run[1300];
    tmpdir(base);
    snprintf(spec_path, sizeof spec_path, "%s/k.json", base);
    FILE *f = fopen(spec_path, "w");
    cr_assert(f);
    fprintf(f, "{\"name\":\"k\",\"source\":\"k.cu\",\"entry\":\"k\",\"grid\":[1],\"block\":[4],\"params\":[]}\n");
    fclose(f);
    wh_spec *s = load(spec_path);
    hunt_options o = quiet_options(base, GA_RANDOM, 10, 1);
    hunt_summary sum;
    wh_error err;
    cr_expect_not(hunt_run(s, &o, &sum, &err));
    cr_expect(strstr(err.msg, "no PTX"), "%s", err.msg);
    snprintf(run, sizeof run, "%s/k/random-s1", base);
    cr_expect_neq(access(run, F_OK), 0, "%s was left behind", run);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* drop_state: a finished run removes checkpoint.bin and pool.bin, says so
 * in run.json, and a resume is refused with the reason (not restarted). */
Test(hunt, a_dropped_state_is_removed_and_refuses_a_resume)
{
    need_ptx("build/ptx/kernels/gt_loop.ptx");
    wh_spec *s = load("tests/specs/hunt_loop_small.json");
    char base[64], dir[128], path[300];
    tmpdir(base);
    snprintf(dir, sizeof dir, "%s/run", base);
    hunt_options o = quiet_options(base, GA_RANDOM_GA, 150, 2);
    o.out_dir = dir;
    o.drop_state = true;
    hunt_summary sum;
    wh_error err;
    cr_assert(hunt_run(s, &o, &sum, &err), "%s", err.msg);
    cr_expect_eq(sum.state_mb, 0);
    snprintf(path, sizeof path, "%s/checkpoint.bin", dir);
    cr_expect_neq(access(path, F_OK), 0, "checkpoint.bin removed");
    snprintf(path, sizeof path, "%s/pool.bin", dir);
    cr_expect_neq(access(path, F_OK), 0, "pool.bin removed");
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_t *doc = ts_load_json(path);
    cr_expect(json_is_true(json_object_get(doc, "state_dropped")));
    json_decref(doc);
    hunt_options again = quiet_options(base, GA_RANDOM_GA, 300, 2);
    again.resume_dir = dir;
    cr_expect_not(hunt_run(s, &again, &sum, &err));
    cr_expect(strstr(err.msg, "search state was removed"), "%s", err.msg);
    /* kept by default, and its size reported */
    o.drop_state = false;
    snprintf(dir, sizeof dir, "%s/kept", base);
    cr_assert(hunt_run(s, &o, &sum, &err), "%s", err.msg);
    cr_expect_gt(sum.state_mb, 0);
    ts_rmtree(base);
    wh_spec_free(s);
}


/* Save a full-size input of s filled by value(i) (first buffer) under dir. */
static void save_pattern(const wh_spec *s, int64_t (*value)(uint64_t i), const char *dir)
{
    wh_error err;
    wh_image *img = ts_pattern_image(s, value);
    cr_assert(wh_image_save(img, dir, &err), "%s", err.msg);
    wh_image_free(img);
}

static int64_t spread(uint64_t i) { return (int64_t)((i * 37) % 1001); }

/* The seeds are the first evaluations, as given (their measured times are
 * those of the saved inputs), in directory-name order; run.json records
 * them; the known worst given as a seed is the best at evaluation 2. */
Test(hunt, seed_inputs_are_the_first_evaluations_as_given)
{
    need_ptx("build/ptx/kernels/artificial.ptx");
    wh_spec *s = load("kernels/artificial.json");
    char base[64], a[128], b[128], seeds[128], path[1200];
    tmpdir(base);
    snprintf(seeds, sizeof seeds, "%s/seeds", base);
    snprintf(a, sizeof a, "%s/seeds/1-spread", base);
    snprintf(b, sizeof b, "%s/seeds/2-sevens", base);
    save_pattern(s, spread, a);
    save_pattern(s, seven, b);
    hunt_options o = quiet_options(base, GA_GDIVAN, 60, 1);
    o.seed_inputs[o.nseed_inputs++] = seeds;
    wh_error err;
    hunt_summary sum;
    cr_assert(hunt_run(s, &o, &sum, &err), "%s", err.msg);
    snprintf(path, sizeof path, "%s/history.csv", sum.dir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    char line[256];
    double fit[2] = { 0, 0 };
    cr_assert(fgets(line, sizeof line, f));
    for (int k = 0; k < 2 && fgets(line, sizeof line, f); k++)
        cr_assert_eq(sscanf(line, "%*d,%*d,%*f,%lf", &fit[k]), 1, "%s", line);
    fclose(f);
    cr_expect_eq(fit[0], pattern_time(s, spread), "evaluation 1 is the first seed");
    cr_expect_eq(fit[1], sevens_time(s), "evaluation 2 is the second seed");
    cr_expect_geq(sum.best, sevens_time(s));
    cr_expect_eq(sum.evals_to_best, 2, "the known worst, given, is the best from evaluation 2");
    snprintf(path, sizeof path, "%s/run.json", sum.dir);
    json_t *doc = ts_load_json(path);
    json_t *rec = json_object_get(doc, "seed_inputs");
    cr_assert_eq(json_array_size(rec), 2);
    cr_expect(strstr(json_string_value(json_object_get(json_array_get(rec, 1), "dir")), "2-sevens"));
    cr_expect(json_is_true(json_object_get(json_array_get(rec, 1), "exact")));
    json_decref(doc);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* A run stopped before its first checkpoint starts again with the seeds
 * it was given (run.json's seed_inputs_given), not without them. */
Test(hunt, a_run_restarted_from_scratch_keeps_its_seed_inputs)
{
    need_ptx("build/ptx/kernels/artificial.ptx");
    wh_spec *s = load("kernels/artificial.json");
    char base[64], seed[128], path[1200];
    tmpdir(base);
    snprintf(seed, sizeof seed, "%s/sevens", base);
    save_pattern(s, seven, seed);
    hunt_options o = quiet_options(base, GA_RANDOM_GA, 20, 1);
    o.ga.population = 10;
    o.seed_inputs[o.nseed_inputs++] = seed;
    wh_error err;
    hunt_summary sum;
    cr_assert(hunt_run(s, &o, &sum, &err), "%s", err.msg);
    snprintf(path, sizeof path, "%s/checkpoint.bin", sum.dir);
    cr_assert_eq(unlink(path), 0);
    hunt_options r = quiet_options(base, GA_RANDOM_GA, 20, 1);
    r.resume_dir = sum.dir;
    hunt_summary again;
    cr_assert(hunt_run(s, &r, &again, &err), "%s", err.msg);
    cr_expect_eq(again.evals_to_best, 1, "the seed (the known worst) is evaluation 1 again");
    cr_expect_geq(again.best, sevens_time(s));
    snprintf(path, sizeof path, "%s/run.json", sum.dir);
    json_t *doc = ts_load_json(path);
    cr_expect_eq(json_array_size(json_object_get(doc, "seed_inputs")), 1);
    json_decref(doc);
    ts_rmtree(base);
    wh_spec_free(s);
}

Test(hunt, seed_inputs_are_refused_where_they_cannot_go)
{
    need_ptx("build/ptx/kernels/artificial.ptx");
    wh_spec *s = load("kernels/artificial.json");
    char base[64], a[128];
    tmpdir(base);
    snprintf(a, sizeof a, "%s/seed", base);
    save_pattern(s, seven, a);
    wh_error err;
    hunt_summary sum;
    hunt_options o = quiet_options(base, GA_RANDOM, 20, 1);
    o.seed_inputs[o.nseed_inputs++] = a;
    cr_expect_not(hunt_run(s, &o, &sum, &err), "random testing takes no seeds");
    cr_expect(strstr(err.msg, "random testing"), "%s", err.msg);
    o = quiet_options(base, GA_RANDOM_GA, 20, 1);
    o.ga.population = 2;
    for (int k = 0; k < 3; k++) o.seed_inputs[o.nseed_inputs++] = a;
    cr_expect_not(hunt_run(s, &o, &sum, &err), "3 seeds, a population of 2");
    cr_expect(strstr(err.msg, "more than a population"), "%s", err.msg);
    o = quiet_options(base, GA_RANDOM_GA, 20, 1);
    o.seed_inputs[o.nseed_inputs++] = base; /* holds seed/, which is one */
    o.seed_inputs[o.nseed_inputs++] = "/nonexistent/seeds";
    cr_expect_not(hunt_run(s, &o, &sum, &err));
    cr_expect(strstr(err.file, "/nonexistent/seeds") && strstr(err.msg, "no saved input"), "%s: %s", err.file, err.msg);
    ts_rmtree(base);
    wh_spec_free(s);
}
