/*
 * test_corpus.c — the benchmark corpus (kernels/corpus/) and its judge,
 * bench_corpus.
 *
 * Every kernel of the table has its spec, PTX, family and inputs; every
 * spec in the folder is in the table; every hand-built input lies in its
 * domains and runs to completion on the sim, and the longest candidate
 * worst input is slower than the known best.  bench_corpus (this build
 * tree's) measures the inputs, runs the three strategies, reports a run
 * that fails or outlives --timeout instead of stopping, and writes the
 * table and JSON it documents.
 */
#include "tests/support.h"

#include "harness/harness.h"
#include "kernels/corpus/corpus.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static double sim_cycles(harness *h, wh_image *img, const char *what)
{
    wh_error err;
    harness_result r;
    cr_assert(harness_measure(h, img, 1, &r, &err), "%s: %s", what, err.msg);
    cr_assert_eq(r.status, HARNESS_OK, "%s: %s %s", what, harness_status_name(r.status), r.message);
    double t = r.mean;
    harness_result_free(&r);
    return t;
}

Test(corpus, table_names_every_spec_once)
{
    cr_assert_geq(corpus_count(), 1);
    for (int i = 0; i < corpus_count(); i++) {
        const corpus_kernel *k = corpus_at(i);
        cr_assert(k->family && k->family[0], "%s: no family", k->name);
        cr_assert(k->worst[0].build && k->best.build, "%s: no worst or best input", k->name);
        cr_assert_eq(corpus_find(k->name), k, "%s: listed twice", k->name);
        char spec[512];
        corpus_spec_path(k, spec, sizeof spec);
        wh_error err;
        wh_spec *s = wh_spec_load(spec, &err);
        cr_assert(s, "%s", err.msg);
        cr_expect_str_eq(s->name, k->name, "%s: the spec's name differs from the table's", spec);
        wh_spec_free(s);
    }
    glob_t g;
    cr_assert_eq(glob("kernels/corpus/*.json", 0, NULL, &g), 0, "no corpus specs found (run from the repository root)");
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char stem[256];
        snprintf(stem, sizeof stem, "%s", basename(g.gl_pathv[i]));
        *strrchr(stem, '.') = '\0';
        cr_expect(corpus_find(stem), "%s has no entry in kernels/corpus/list.def", g.gl_pathv[i]);
    }
    globfree(&g);
}

Test(corpus, hand_inputs_in_domain_and_worst_beats_best, .timeout = 600)
{
    for (int i = 0; i < corpus_count(); i++) {
        const corpus_kernel *k = corpus_at(i);
        char spec[512];
        corpus_spec_path(k, spec, sizeof spec);
        wh_error err;
        wh_spec *s = wh_spec_load(spec, &err);
        cr_assert(s, "%s", err.msg);
        char ptx[1024];
        if (!wh_spec_ptx_path(s, ptx, sizeof ptx, &err)) cr_skip_test("%s: run `make ptx`", err.msg);
        harness_options o;
        harness_options_init(&o);
        o.quiet = true;
        harness *h = harness_open(s, HARNESS_SIM, &o, &err);
        cr_assert(h, "%s: %s", k->name, err.msg);
        wh_launch full = wh_spec_launch_full(s);
        wh_image *img = wh_image_new(s, &full, &err);
        cr_assert(img, "%s", err.msg);
        double worst = 0;
        for (int c = 0; c < CORPUS_MAX_WORST && k->worst[c].build; c++) {
            cr_assert(corpus_build(&k->worst[c], img, &err), "%s %s: %s", k->name, k->worst[c].name, err.msg);
            double t = sim_cycles(h, img, k->worst[c].name);
            worst = t > worst ? t : worst;
        }
        cr_assert(corpus_build(&k->best, img, &err), "%s %s: %s", k->name, k->best.name, err.msg);
        double best = sim_cycles(h, img, k->best.name);
        cr_log_info("%-18s known worst %8.0f  best %8.0f cycles", k->name, worst, best);
        cr_expect_gt(worst, best, "%s: known worst %g is not slower than the best %g", k->name, worst, best);
        wh_image_free(img);
        harness_close(h);
        wh_spec_free(s);
    }
}

Test(corpus, builders_refuse_unknown_buffers)
{
    wh_error err;
    wh_spec *s = wh_spec_load("kernels/corpus/spmv_scalar.json", &err);
    cr_assert(s, "%s", err.msg);
    wh_launch full = wh_spec_launch_full(s);
    wh_image *img = wh_image_new(s, &full, &err);
    cr_assert(img);
    cr_expect_not(corpus_set_int(img, "no_such", NULL, 0, 1, &err));
    cr_expect(strstr(err.msg, "no buffer 'no_such'"), "%s", err.msg);
    cr_expect_not(corpus_set_int(img, "row_len", "nofield", 0, 1, &err));
    cr_expect(strstr(err.msg, "no field"), "%s", err.msg);
    cr_expect_not(corpus_set_int(img, "row_len", NULL, full.grid[0] * full.block[0], 1, &err));
    cr_expect(strstr(err.msg, "past its"), "%s", err.msg);
    cr_expect_eq(corpus_var(img, "K"), 16);
    cr_expect_eq(corpus_var(img, "nothing"), -1);
    wh_image_free(img);
    wh_spec_free(s);
}

/* ---- bench_corpus, the program ---------------------------------------------- */

static void sibling(const char *name, char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    cr_assert_gt(len, 0);
    self[len] = '\0';
    snprintf(out, n, "%s/%s", dirname(self), name);
    if (access(out, X_OK) != 0) cr_skip_test("%s not built (make test builds it)", out);
}

static int run_bench(const char *extra, const char *tmp)
{
    char bench[PATH_MAX], tool[PATH_MAX], cmd[4 * PATH_MAX];
    sibling("bench/bench_corpus", bench, sizeof bench);
    sibling("warphunt", tool, sizeof tool);
    snprintf(cmd, sizeof cmd,
             "%s --kernels spmv_scalar --out %s/out --md %s/c.md --json %s/c.json --warphunt %s %s "
             ">%s/stdout 2>%s/stderr",
             bench, tmp, tmp, tmp, tool, extra, tmp, tmp);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* run_bench into tmp (made here), then its c.json. */
static json_t *bench_doc(const char *extra, char *tmp)
{
    cr_assert(mkdtemp(tmp));
    cr_assert_eq(run_bench(extra, tmp), 0, "bench_corpus %s (see %s/stderr)", extra, tmp);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/c.json", tmp);
    return ts_load_json(path);
}

static json_t *runs_of(json_t *doc, const char *strategy)
{
    json_t *k = json_array_get(json_object_get(doc, "kernels"), 0);
    return json_object_get(json_object_get(k, "runs"), strategy);
}

static void read_all(const char *path, char *text, size_t size)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    size_t n = fread(text, 1, size - 1, f);
    text[n] = '\0';
    fclose(f);
}

/* --merge of the run's own JSON writes the same main table (the merged
 * header aside), the wall seconds to random's best included (saved per
 * run); files that disagree on the budget are refused. */
static void expect_merge_reproduces(const char *tmp, const char *table)
{
    char bench[PATH_MAX], cmd[4 * PATH_MAX], path[PATH_MAX], merged[16384];
    sibling("bench/bench_corpus", bench, sizeof bench);
    snprintf(cmd, sizeof cmd, "%s --merge %s/c.json --md %s/m.md --json %s/m.json >/dev/null 2>&1", bench, tmp, tmp,
             tmp);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/m.md", tmp);
    read_all(path, merged, sizeof merged);
    const char *a = strstr(table, "| kernel | known worst"), *b = strstr(merged, "| kernel | known worst");
    cr_assert(a && b);
    cr_expect_eq(strcmp(a, b), 0, "the merged tables differ:\n%s\n---\n%s", a, b);
    snprintf(path, sizeof path, "%s/c.json", tmp);
    json_t *doc = ts_load_json(path);
    json_t *r = json_array_get(runs_of(doc, "random"), 0);
    cr_expect(json_is_number(json_object_get(r, "wall_to_random_best_s")), "saved per run");
    json_object_set_new(doc, "seeds", json_integer(3));
    snprintf(path, sizeof path, "%s/other.json", tmp);
    cr_assert_eq(json_dump_file(doc, path, 0), 0);
    json_decref(doc);
    snprintf(cmd, sizeof cmd, "%s --merge %s/c.json,%s/other.json --md %s/x.md --json %s/x.json 2>%s/merr", bench,
             tmp, tmp, tmp, tmp, tmp);
    int st = system(cmd);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "files with other budgets are refused");
    snprintf(path, sizeof path, "%s/merr", tmp);
    cr_expect(strstr(ts_read_text(path), "3 seeds"), "%s", ts_read_text(path));
}

Test(corpus, bench_runs_every_strategy_and_writes_its_table, .timeout = 300)
{
    char tmp[] = "/tmp/wh-corpus-XXXXXX";
    json_t *doc = bench_doc("--evals 30 --seeds 2 --explore-time 5", tmp);
    json_t *k = json_array_get(json_object_get(doc, "kernels"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(k, "kernel")), "spmv_scalar");
    double worst = json_number_value(json_object_get(k, "known_worst"));
    cr_expect_gt(worst, json_number_value(json_object_get(k, "known_best")));
    static const char *const strategies[] = { "gdivan", "random-ga", "random" };
    for (int st = 0; st < 3; st++) {
        json_t *runs = runs_of(doc, strategies[st]);
        cr_assert_eq(json_array_size(runs), 2, "%s", strategies[st]);
        for (size_t i = 0; i < 2; i++) {
            json_t *r = json_array_get(runs, i);
            cr_expect(json_is_true(json_object_get(r, "ok")), "%s seed %zu: %s", strategies[st], i + 1,
                      json_string_value(json_object_get(r, "why")));
            cr_expect_eq(json_integer_value(json_object_get(r, "evals")), 30);
            double t = json_number_value(json_object_get(r, "remeasured"));
            cr_expect_gt(t, 0.5 * worst, "%s: a best input of %g against a known worst of %g", strategies[st], t,
                         worst);
        }
    }
    cr_expect(json_is_true(json_object_get(json_array_get(runs_of(doc, "gdivan"), 1), "ok")));
    cr_expect_gt(json_number_value(json_object_get(json_array_get(runs_of(doc, "gdivan"), 1), "explore_s")), 0,
                 "the later seeds carry the symbolic stage's time");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(doc, "summary"), "kernels")), 1);
    json_t *soon = json_object_get(json_object_get(doc, "summary"), "gdivan_at_random_best_as_soon");
    cr_expect(json_is_integer(soon) && json_integer_value(soon) <= 1, "the summary counts gdivan at random's best");
    json_t *own = json_object_get(json_object_get(doc, "summary"), "gdivan_at_99_of_own_best_first");
    cr_expect_eq(json_integer_value(json_object_get(own, "of")), 1, "the race at gdivan's level is known");
    int gdivan_there = 0;
    for (int st = 0; st < 3; st++)
        for (size_t i = 0; i < 2; i++) {
            json_t *t = json_object_get(json_array_get(runs_of(doc, strategies[st]), i), "wall_to_gdivan_best99_s");
            cr_expect(json_is_number(t) && (json_number_value(t) >= 0 || json_number_value(t) == -1),
                      "%s seed %zu: saved as a time or -1 (never)", strategies[st], i + 1);
            gdivan_there += st == 0 && json_number_value(t) >= 0;
        }
    cr_expect_geq(gdivan_there, 1, "a gdivan seed reaches 99 %% of the median of the two bests");
    json_decref(doc);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/c.md", tmp);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    char text[16384] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    cr_expect(strstr(text, "| spmv_scalar |"), "%s", text);
    cr_expect(strstr(text, "**Summary**: of 1 kernels"), "%s", text);
    cr_expect(strstr(text, "| gdivan to random's best |"), "%s", text);
    cr_expect(strstr(text, "| gdivan to 99 % of gdivan's best | random to it |"), "%s", text);
    expect_merge_reproduces(tmp, text);
    ts_rmtree(tmp);
}

/* --stage-each: every gdivan seed explores on its own (no cache), so no
 * seed is charged another's stage: each carries its own. */
Test(corpus, stage_each_gives_every_gdivan_seed_its_own_stage, .timeout = 300)
{
    char tmp[] = "/tmp/wh-corpus-XXXXXX";
    json_t *doc = bench_doc("--evals 20 --seeds 2 --explore-time 2 --stage-each", tmp);
    cr_expect(json_is_true(json_object_get(doc, "stage_each")));
    json_t *runs = runs_of(doc, "gdivan");
    cr_assert_eq(json_array_size(runs), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *r = json_array_get(runs, i);
        cr_expect(json_is_true(json_object_get(r, "ok")), "seed %zu", i + 1);
        cr_expect_null(json_object_get(r, "stage_added_s"), "seed %zu explored: no stage charged", i + 1);
        cr_expect_gt(json_number_value(json_object_get(r, "explore_s")), 0, "seed %zu's own stage", i + 1);
        char run[PATH_MAX + 64];
        snprintf(run, sizeof run, "%s/out/runs/spmv_scalar/e20-x2-each/gdivan-s%zu/run.json", tmp, i + 1);
        json_t *rj = ts_load_json(run);
        cr_expect(json_is_false(json_object_get(json_object_get(rj, "explore"), "cached")), "seed %zu", i + 1);
        json_decref(rj);
    }
    json_decref(doc);
    ts_rmtree(tmp);
}

Test(corpus, bench_reports_failed_and_stopped_runs, .timeout = 300)
{
    char tmp[] = "/tmp/wh-corpus-XXXXXX";
    /* A search budget no run finishes in a second: every run is stopped. */
    json_t *doc = bench_doc("--evals 100000 --seeds 1 --explore-time 5 --timeout 1", tmp);
    json_t *r = json_array_get(runs_of(doc, "random"), 0);
    cr_expect(json_is_false(json_object_get(r, "ok")));
    cr_expect(strstr(json_string_value(json_object_get(r, "why")), "--timeout"), "%s",
              json_string_value(json_object_get(r, "why")));
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(doc, "summary"), "gdivan_failed")), 1);
    json_decref(doc);
    ts_rmtree(tmp);
}

/* ---- bench_corpus --holdout ------------------------------------------------- */

/* A held-out kernel in dir: NAME.json (kernels/artificial.json's kernel by
 * its built PTX) and NAME.worst.sh with the given body. */
static void holdout_kernel(const char *dir, const char *name, const char *script)
{
    char cwd[PATH_MAX], path[PATH_MAX + 64];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "{ \"name\": \"%s\", \"source\": \"artificial.cu\", \"ptx\": \"%s/build/ptx/kernels/artificial.ptx\", \"entry\": \"artificial\",\n"
               "  \"grid\": [4, 1, 1], \"block\": [64, 1, 1],\n"
               "  \"params\": [\n"
               "    { \"name\": \"values\", \"kind\": \"buffer\", \"type\": \"i32\", \"count\": \"threads\",\n"
               "      \"role\": \"input\", \"per_thread\": 1, \"range\": [0, 1000] },\n"
               "    { \"name\": \"result\", \"kind\": \"buffer\", \"type\": \"i32\",\n"
               "      \"count\": \"max(threads, blocks)\", \"role\": \"output\" } ] }\n",
            name, cwd);
    fclose(f);
    snprintf(path, sizeof path, "%s/%s.worst.sh", dir, name);
    cr_assert((f = fopen(path, "w")));
    fprintf(f, "%s\n", script);
    fclose(f);
}

/* --holdout DIR: each spec of DIR is set against the input its author's
 * script builds (measured as a search's input is), with no known best; a
 * script that fails fails its kernel, saying so, and the others go on. */
Test(corpus, holdout_sets_each_kernel_against_its_scripts_input, .timeout = 120)
{
    ts_need_ptx("build/ptx/kernels/artificial.ptx");
    char tmp[] = "/tmp/wh-holdout-XXXXXX", bench[PATH_MAX], tool[PATH_MAX], cmd[6 * PATH_MAX], path[PATH_MAX + 64];
    cr_assert(mkdtemp(tmp));
    sibling("bench/bench_corpus", bench, sizeof bench);
    sibling("warphunt", tool, sizeof tool);
    char dir[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s/ho", tmp);
    cr_assert_eq(mkdir(dir, 0755), 0);
    holdout_kernel(dir, "aa", "\"$1\" input import \"$(dirname \"$0\")/aa.json\" -o \"$2\" --set 'values=i % 1001'");
    holdout_kernel(dir, "bb", "echo no input today >&2; exit 3");
    snprintf(cmd, sizeof cmd, "%s --holdout %s --inputs-only --out %s/out --md %s/h.md --json %s/h.json "
             "--warphunt %s >%s/stdout 2>%s/stderr", bench, dir, tmp, tmp, tmp, tool, tmp, tmp);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/h.json", tmp);
    json_t *doc = ts_load_json(path);
    json_t *aa = json_array_get(json_object_get(doc, "kernels"), 0), *bb = json_array_get(json_object_get(doc, "kernels"), 1);
    cr_assert_str_eq(json_string_value(json_object_get(aa, "kernel")), "aa");
    cr_assert(json_is_true(json_object_get(aa, "ok")), "%s", json_string_value(json_object_get(aa, "why")));
    cr_expect_str_eq(json_string_value(json_object_get(aa, "known_worst_input")), "expert");
    cr_expect(json_is_null(json_object_get(aa, "known_best")), "no known best");
    snprintf(path, sizeof path, "%s/aa.json", dir);
    wh_error err;
    wh_spec *s = wh_spec_load(path, &err);
    cr_assert(s, "%s", err.msg);
    snprintf(path, sizeof path, "%s/out/inputs/aa-expert", tmp);
    wh_image *img = wh_image_load(s, path, &err);
    cr_assert(img, "%s", err.msg);
    cr_expect_eq(wh_image_int(img, 0, 200), 200, "the script's input");
    cr_expect_float_eq(json_number_value(json_object_get(aa, "known_worst")), ts_sim_time(s, img), 1e-9);
    wh_image_free(img);
    wh_spec_free(s);
    cr_expect_str_eq(json_string_value(json_object_get(bb, "kernel")), "bb");
    cr_expect(json_is_false(json_object_get(bb, "ok")));
    cr_expect(strstr(json_string_value(json_object_get(bb, "why")), "bb.worst.sh"), "%s",
              json_string_value(json_object_get(bb, "why")));
    json_decref(doc);
    snprintf(path, sizeof path, "%s/h.md", tmp);
    const char *md = ts_read_text(path);
    cr_expect(strstr(md, "# bench_corpus --holdout"), "%s", md);
    cr_expect(strstr(md, "(expert) | - |"), "no known best: %s", md);
    ts_rmtree(tmp);
}
