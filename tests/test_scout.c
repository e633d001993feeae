/*
 * test_scout.c — gdivan's scout: random testing on a spare evaluation
 * worker while the symbolic stage explores.  It shares the --evals budget
 * (at most half), writes scout.csv before the search's history, its best
 * becomes the run's best (best/, run.json) when the search falls short,
 * its evaluation k is one input on any number of threads, and it stays
 * off with --no-scout and beside a cached stage; with one job it is a head
 * start of a fixed number of inputs before the stage, which leaves the
 * search repeatable.  With value edits the scout then screens its best
 * random input (each edit screen code, greedily; pairs of one kind on two
 * fields where no single code gains), on one job and on a spare core.
 *
 * scout_loop.json: gt_loop on 128 threads with trip counts up to 4096;
 * the stage cannot reach far in 2 s, while every random warp holds a lane
 * near 4096, so random testing beats the path atoms by far.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "cli/cli.h"
#include "core/results.h"
#include "ga/hunt.h"
#include "gen/gen.h"
#include "tests/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPEC "tests/specs/scout_loop.json"
#define BUDGET 60

static void need_two_cores(void)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) cr_skip_test("one core: the scout needs a spare one");
}

/* gdivan with only path atoms (no random-value genes, edits, warp-first,
 * families or strides), so that what is random is the scout's. */
static hunt_options scout_options(const char *base)
{
    hunt_options o;
    hunt_options_default(&o);
    o.ga.max_evals = BUDGET;
    o.ga.patience = 0;
    o.ga.population = 4;
    o.ga.random_frac = 0;
    o.ga.random_gene_prob = 0;
    o.value_edits = 0;
    o.warp_first = 0;
    o.explore.families = 0;
    o.tiling = HUNT_TILING_PLAIN;   /* a stride shifts trip counts towards 4096 */
    o.explore.time_s = 2;
    o.backend = HARNESS_SIM;
    o.harness.quiet = true;
    o.quiet = true;
    o.final_reps = 1;
    o.results_base = base;
    o.jobs = 2;
    return o;
}

static long data_rows(const char *dir, const char *file)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long n = -1;   /* the header */
    int c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

/* The largest time column of scout.csv. */
static double last_scout_time(const char *dir)
{
    char path[1200], line[256];
    snprintf(path, sizeof path, "%s/scout.csv", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    double latest = 0, t;
    long ev;
    int gen;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%ld,%d,%lf", &ev, &gen, &t) == 3 && t > latest) latest = t;
    fclose(f);
    return latest;
}

static double replay_time(const wh_spec *s, const char *run_dir)
{
    char best[1200];
    snprintf(best, sizeof best, "%s/best", run_dir);
    wh_error err;
    wh_image *img = wh_image_load(s, best, &err);
    cr_assert(img, "%s", err.msg);
    double t = ts_sim_time(s, img);
    wh_image_free(img);
    return t;
}

/* A scouted run of SPEC in a fresh results directory (base: 32 bytes). */
/* The spec, a fresh results directory base (32 bytes) and its options. */
static wh_spec *open_scout_spec(char *base, hunt_options *o)
{
    ts_need_ptx("build/ptx/kernels/gt_loop.ptx");
    wh_error err;
    wh_spec *s = wh_spec_load(SPEC, &err);
    cr_assert(s, "%s", err.msg);
    strcpy(base, "/tmp/wh_scout_XXXXXX");
    cr_assert(mkdtemp(base));
    *o = scout_options(base);
    return s;
}

static wh_spec *scouted_run(char *base, hunt_options *o, hunt_summary *r)
{
    need_two_cores();
    wh_spec *s = open_scout_spec(base, o);
    wh_error err;
    cr_assert(hunt_run(s, o, r, &err), "%s", err.msg);
    cr_assert_gt(r->scout_evals, 0, "the 2 s stage leaves time for random inputs");
    return s;
}

Test(scout, it_measures_during_the_stage_and_shares_the_budget)
{
    char base[32];
    hunt_options o;
    hunt_summary r;
    wh_spec *s = scouted_run(base, &o, &r);
    wh_error err;
    cr_expect_leq(r.scout_evals, BUDGET / 2, "at most half the budget");
    cr_expect_eq(r.evals, BUDGET, "the scout's evaluations are part of the budget");
    cr_expect_eq(data_rows(r.dir, "scout.csv"), r.scout_evals);
    cr_expect_eq(data_rows(r.dir, "history.csv"), BUDGET - r.scout_evals, "the search gets what is left");
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", r.dir);
    json_t *run = ts_load_json(path);
    double offset = json_number_value(json_object_get(run, "search_offset_s"));
    cr_expect_gt(offset, 0);
    cr_expect_leq(last_scout_time(r.dir), offset, "every scout row comes before the search starts");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(run, "scout"), "evals")), r.scout_evals);
    cr_expect_eq(json_integer_value(json_object_get(run, "search_evals")), BUDGET - r.scout_evals);
    json_decref(run);
    /* extended with --resume: the scout's record and share stay, the search
     * gets the new evaluations */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", r.dir);
    hunt_options more;
    hunt_options_default(&more);
    more.resume_dir = dir;
    more.ga.max_evals = BUDGET + 20;
    more.quiet = more.harness.quiet = true;
    hunt_summary x;
    cr_assert(hunt_run(s, &more, &x, &err), "%s", err.msg);
    cr_expect_eq(x.evals, BUDGET + 20);
    cr_expect_eq(x.scout_evals, r.scout_evals);
    cr_expect_eq(data_rows(dir, "history.csv"), BUDGET + 20 - r.scout_evals);
    cr_expect_eq(data_rows(dir, "scout.csv"), r.scout_evals);
    cr_expect_geq(x.best, r.best);
    ts_rmtree(base);
    wh_spec_free(s);
}

Test(scout, its_best_is_the_runs_when_the_search_falls_short)
{
    char base[32];
    hunt_options o;
    hunt_summary r;
    wh_spec *s = scouted_run(base, &o, &r);
    wh_error err;
    cr_expect(r.best_from_scout, "random trip counts near 4096 beat the stage's paths (best %g, scout %g)", r.best,
              r.scout_best);
    cr_expect_eq(r.best, r.scout_best);
    cr_expect(r.evals_to_best >= 1 && r.evals_to_best <= r.scout_evals, "numbered among the scout's, which come first");
    cr_expect_eq(replay_time(s, r.dir), r.best, "best/ is the scout's input");
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", r.dir);
    json_t *run = ts_load_json(path);
    json_t *best = json_object_get(run, "best");
    cr_expect_str_eq(json_string_value(json_object_get(best, "source")), "scout");
    cr_expect_eq(json_number_value(json_object_get(best, "fitness")), r.best);
    json_decref(run);
    /* the search alone, on the same cached stage, stays below */
    o.scout = false;
    hunt_summary alone;
    cr_assert(hunt_run(s, &o, &alone, &err), "%s", err.msg);
    cr_expect_lt(alone.best, r.best);
    cr_expect_eq(alone.scout_evals, 0);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* scout.csv's or history.csv's fitness of each evaluation number (index
 * ev; 0: absent). */
static void csv_fitness(const char *dir, const char *file, double *fit, long n)
{
    char path[1200], line[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    cr_assert(f, "no %s", path);
    long ev;
    int gen;
    double t, x;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%ld,%d,%lf,%lf", &ev, &gen, &t, &x) == 4 && ev >= 1 && ev < n) fit[ev] = x;
    fclose(f);
}

/* run.json's scout object of a run directory (the caller decrefs the
 * document it returns through doc). */
static json_t *scout_json(const char *dir, json_t **doc)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    *doc = ts_load_json(path);
    return json_object_get(*doc, "scout");
}

static bool scout_was_head(const char *dir)
{
    json_t *doc, *scout = scout_json(dir, &doc);   /* json_is_true reads its argument twice */
    bool head = json_is_true(json_object_get(scout, "head"));
    json_decref(doc);
    return head;
}

/* One job: no spare worker, so the scout is a head start of --scout-head
 * inputs before the stage (cached or not), out of the budget; the search
 * after it is the same in two runs; --scout-head 0 turns it off. */
static wh_spec *open_head_start_spec(char *base, hunt_options *o, long head)
{
    wh_spec *s = open_scout_spec(base, o);
    o->jobs = 1;
    o->scout_head = head;
    return s;
}

Test(scout, one_job_gets_a_head_start_of_a_fixed_size)
{
    char base[32];
    hunt_options o;
    wh_spec *s = open_head_start_spec(base, &o, 5);
    wh_error err;
    hunt_summary first, again, none;
    cr_assert(hunt_run(s, &o, &first, &err), "%s", err.msg);
    cr_expect_eq(first.scout_evals, 5);
    cr_expect_eq(data_rows(first.dir, "scout.csv"), 5);
    cr_expect_eq(data_rows(first.dir, "history.csv"), BUDGET - 5, "the search gets what is left");
    cr_expect(scout_was_head(first.dir), "run.json says the scout ran before the stage");
    cr_assert(hunt_run(s, &o, &again, &err), "%s", err.msg);   /* the stage now cached */
    cr_expect_eq(again.scout_evals, 5, "a cached stage still gets the head start");
    double a[BUDGET + 1] = { 0 }, b[BUDGET + 1] = { 0 }, h1[6] = { 0 }, h2[6] = { 0 };
    csv_fitness(first.dir, "history.csv", a, BUDGET + 1);
    csv_fitness(again.dir, "history.csv", b, BUDGET + 1);
    for (int ev = 1; ev <= BUDGET - 5; ev++) cr_expect_eq(a[ev], b[ev], "search evaluation %d", ev);
    csv_fitness(first.dir, "scout.csv", h1, 6);
    csv_fitness(again.dir, "scout.csv", h2, 6);
    for (int ev = 1; ev <= 5; ev++) cr_expect(h1[ev] > 0 && h1[ev] == h2[ev], "scout evaluation %d", ev);
    o.scout_head = 0;
    cr_assert(hunt_run(s, &o, &none, &err), "%s", err.msg);
    cr_expect_eq(none.scout_evals, 0, "--scout-head 0");
    cr_expect_eq(data_rows(none.dir, "scout.csv"), -1, "no scout.csv");
    ts_rmtree(base);
    wh_spec_free(s);
}

Test(scout, off_with_no_scout_and_beside_a_cached_stage)
{
    need_two_cores();
    char base[32];
    hunt_options o;
    wh_spec *s = open_scout_spec(base, &o);
    wh_error err;
    hunt_summary first, cached, off;
    o.jobs = 2;
    cr_assert(hunt_run(s, &o, &first, &err), "%s", err.msg);   /* explores: the stage is cached after */
    cr_expect_gt(first.scout_evals, 0, "a spare worker beside the stage");
    cr_expect_not(scout_was_head(first.dir));
    cr_assert(hunt_run(s, &o, &cached, &err), "%s", err.msg);
    cr_expect_eq(cached.scout_evals, 0, "a cached stage leaves no time to use");
    cr_expect_eq(data_rows(cached.dir, "history.csv"), BUDGET);
    o.scout = false;
    o.explore.reuse = false;
    cr_assert(hunt_run(s, &o, &off, &err), "%s", err.msg);
    cr_expect_eq(off.scout_evals, 0, "--no-scout");
    cr_expect_eq(data_rows(off.dir, "history.csv"), BUDGET);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* With two scout threads (three workers) evaluation k is still the k-th
 * input of the scout's stream: the numbers both runs measured agree. */
Test(scout, an_evaluation_is_the_same_input_on_any_number_of_threads)
{
    char base[32];
    hunt_options o;
    hunt_summary one;
    wh_spec *s = scouted_run(base, &o, &one);
    wh_error err;
    hunt_summary two;
    o.jobs = 3;
    o.explore.reuse = false;
    cr_assert(hunt_run(s, &o, &two, &err), "%s", err.msg);
    cr_assert_gt(two.scout_evals, 0);
    double a[BUDGET + 1] = { 0 }, b[BUDGET + 1] = { 0 };
    csv_fitness(one.dir, "scout.csv", a, BUDGET + 1);
    csv_fitness(two.dir, "scout.csv", b, BUDGET + 1);
    int both = 0;
    for (int k = 1; k <= BUDGET; k++)
        if (a[k] > 0 && b[k] > 0) {
            both++;
            cr_expect_eq(a[k], b[k], "evaluation %d: %g on one thread, %g on two", k, a[k], b[k]);
        }
    cr_expect_gt(both, 0);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* The scout's screen: with value edits, the head start's best random input
 * gets each screen code in turn (here the budget's tenth allows one: the
 * first, fill-high); "every trip count at 4096" is longer than any random
 * warp's slowest lane, so the scout's best becomes that edit of its best
 * random input, found before the stage.  The search's budget is its first
 * population, all special individuals (path atoms, no edits; the stage is
 * bounded by paths, which reach few trips), so the scouted input stays the
 * run's best: best/ must be the random input with the edit applied.  The
 * GA's own screen is off: the scout's does not need it. */
#define SCREEN_HEAD 5
#define SCREEN_BUDGET 10   /* 5 random inputs, 1 screened (a tenth), a population of 4 */
Test(scout, one_job_screens_the_head_starts_best)
{
    char base[32];
    hunt_options o;
    wh_spec *s = open_head_start_spec(base, &o, SCREEN_HEAD);
    wh_error err;
    o.ga.max_evals = SCREEN_BUDGET;
    o.value_edits = 3;
    o.edit_screen = false;
    o.ga.special_frac = 1;
    o.explore.time_s = 600;   /* bounded by paths: the same specials every run */
    o.explore.path_budget = 8;
    hunt_summary r, again, plain;
    cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
    json_t *doc, *scout = scout_json(r.dir, &doc);
    long screened = (long)json_integer_value(json_object_get(json_object_get(scout, "screen"), "evals"));
    cr_expect_eq(screened, SCREEN_BUDGET / 10, "as many codes as the budget's tenth allows");
    cr_expect_eq(r.scout_evals, SCREEN_HEAD + screened);
    cr_expect_eq(data_rows(r.dir, "scout.csv"), r.scout_evals);
    double fit[SCREEN_BUDGET + 1] = { 0 }, random_best = 0;
    csv_fitness(r.dir, "scout.csv", fit, SCREEN_BUDGET + 1);
    for (int ev = 1; ev <= SCREEN_HEAD; ev++) random_best = fit[ev] > random_best ? fit[ev] : random_best;
    cr_expect_gt(r.scout_best, random_best, "an edit of the best random input is longer than it");
    cr_expect_gt(json_integer_value(json_object_get(scout, "best_eval")), SCREEN_HEAD, "found by the screen");
    cr_expect_eq(json_array_size(json_object_get(scout, "best_edit_codes")), 1);
    cr_expect(r.best_from_scout, "the search's first population stays below (best %g, scout %g)", r.best, r.scout_best);
    cr_expect_eq(replay_time(s, r.dir), r.best, "best/ is the scouted input with its edit");
    const char *edit = json_string_value(json_array_get(json_object_get(json_object_get(doc, "best"), "value_edits"), 0));
    cr_expect(edit && !strncmp(edit, "fill-high n[", 12), "run.json names the edit: %s", edit ? edit : "(none)");
    json_decref(doc);
    /* repeatable: the same rows from a cached stage */
    cr_assert(hunt_run(s, &o, &again, &err), "%s", err.msg);
    double fit2[SCREEN_BUDGET + 1] = { 0 };
    csv_fitness(again.dir, "scout.csv", fit2, SCREEN_BUDGET + 1);
    for (int ev = 1; ev <= r.scout_evals; ev++) cr_expect_eq(fit[ev], fit2[ev], "scout evaluation %d", ev);
    cr_expect_eq(again.best, r.best);
    /* --no-scout-screen: the head start alone */
    o.scout_screen = false;
    cr_assert(hunt_run(s, &o, &plain, &err), "%s", err.msg);
    cr_expect_eq(plain.scout_evals, SCREEN_HEAD);
    cr_expect_eq(plain.scout_best, random_best, "the same random inputs, no edit");
    cr_expect_lt(plain.best, r.best);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* On a spare core the scout's first thread screens once it has measured
 * as many random inputs as a head start's, while the stage explores. */
Test(scout, a_spare_core_screens_during_the_stage)
{
    char base[32];
    hunt_options o;
    need_two_cores();
    wh_spec *s = open_scout_spec(base, &o);
    wh_error err;
    o.scout_head = SCREEN_HEAD;
    o.value_edits = 3;
    hunt_summary r;
    cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
    json_t *doc, *scout = scout_json(r.dir, &doc);
    cr_expect_not(json_is_true(json_object_get(scout, "head")));
    long screened = (long)json_integer_value(json_object_get(json_object_get(scout, "screen"), "evals"));
    cr_expect_gt(screened, 0, "the 2 s stage leaves time for the screen (%ld scout inputs)", r.scout_evals);
    cr_expect_gt(json_integer_value(json_object_get(scout, "best_eval")), SCREEN_HEAD);
    cr_expect_geq(json_array_size(json_object_get(scout, "best_edit_codes")), 1, "its best is a screened input");
    json_decref(doc);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* Where no single edit gains, a pair of one kind on two fields can:
 * substring_search's windows match only where the text and the shared
 * pattern agree, so random inputs fail at a window's first or second byte
 * and a fill of either buffer alone changes nothing; both filled alike,
 * every window matches.  One job, so the screen runs before the stage and
 * is repeatable; the screen's tenth of PAIR_BUDGET (30) holds the round of
 * single codes (20) and the first pairs. */
#define PAIR_SPEC "kernels/corpus/substring_search.json"
#define PAIR_BUDGET 300
Test(scout, a_pair_of_edits_where_no_single_one_gains)
{
    ts_need_ptx("build/ptx/kernels/corpus/substring_search.ptx");
    wh_error err;
    wh_spec *s = wh_spec_load(PAIR_SPEC, &err);
    cr_assert(s, "%s", err.msg);
    char base[] = "/tmp/wh_scout_XXXXXX";
    cr_assert(mkdtemp(base));
    hunt_options o = scout_options(base);
    o.ga.max_evals = PAIR_BUDGET;
    o.jobs = 1;
    o.scout_head = SCREEN_HEAD;
    o.value_edits = 3;
    o.edit_screen = false;
    o.explore.time_s = 600;   /* bounded by paths */
    o.explore.path_budget = 8;
    hunt_summary r;
    cr_assert(hunt_run(s, &o, &r, &err), "%s", err.msg);
    double fit[SCREEN_HEAD + 1] = { 0 }, random_best = 0;
    csv_fitness(r.dir, "scout.csv", fit, SCREEN_HEAD + 1);
    for (int ev = 1; ev <= SCREEN_HEAD; ev++) random_best = fit[ev] > random_best ? fit[ev] : random_best;
    cr_expect_gt(r.scout_best, 5 * random_best, "every window a match (scout %g, random %g)", r.scout_best,
                 random_best);
    json_t *doc, *scout = scout_json(r.dir, &doc);
    json_t *codes = json_object_get(scout, "best_edit_codes");
    cr_assert_eq(json_array_size(codes), 2, "a pair");
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(img, "%s", err.msg);
    gen_edit e[2];
    for (int k = 0; k < 2; k++)
        gen_edit_decode(img, (uint32_t)json_integer_value(json_array_get(codes, (size_t)k)), &e[k]);
    cr_expect_eq(e[0].kind, e[1].kind, "one kind of edit");
    cr_expect_neq(e[0].param, e[1].param, "on the text and on the pattern");
    wh_image_free(img);
    json_decref(doc);
    ts_rmtree(base);
    wh_spec_free(s);
}

/* `hunt --no-scout-screen` reaches the option: run.json's options say it,
 * and the scout measures its head start only. */
static long cli_screen_evals(const char *dir, bool off, bool *option)
{
    char res[128], run[128];
    snprintf(res, sizeof res, "%s/results", dir);
    snprintf(run, sizeof run, "%s/hunt-%d", dir, off);
    const char *args[] = { SPEC, "--backend", "sim", "--evals", "20", "--jobs", "1", "--scout-head", "5",
                           "--population", "4", "--explore-paths", "8", "--no-explain", "--results", res, "-o",
                           run, "--quiet", "--no-scout-screen" };
    cr_assert_eq(ts_run_cmd(cmd_hunt, "hunt", args, off ? 20 : 19, NULL, NULL), 0);
    json_t *doc, *scout = scout_json(run, &doc);
    *option = json_is_true(json_object_get(json_object_get(doc, "options"), "scout_screen"));
    long n = (long)json_integer_value(json_object_get(json_object_get(scout, "screen"), "evals"));
    json_decref(doc);
    return n;
}

Test(scout, hunt_takes_no_scout_screen, .init = cr_redirect_stderr)
{
    ts_need_ptx("build/ptx/kernels/gt_loop.ptx");
    char dir[] = "/tmp/wh_scout_cli_XXXXXX";
    cr_assert(mkdtemp(dir));
    bool option;
    cr_expect_gt(cli_screen_evals(dir, false, &option), 0, "on by default");
    cr_expect(option);
    cr_expect_eq(cli_screen_evals(dir, true, &option), 0, "off with --no-scout-screen");
    cr_expect_not(option);
    ts_rmtree(dir);
}
