/*
 * test_compare_cli.c — `warphunt compare`: every strategy (row) with the
 * same budget and seeds, the table in row order, compare.json naming each
 * run's variant, and gdivan-paper running with the paper's scaler and
 * mutation.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "cli/cli.h"
#include "tests/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int run_compare(int n, const char **args)
{
    return ts_run_cmd(cmd_compare, "compare", args, n, NULL, NULL);
}

Test(compare_cli, rows_seeds_table_and_the_papers_variant, .init = cr_redirect_stderr)
{
    struct stat st;
    if (stat("build/ptx/kernels/gt_paths32.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    char dir[] = "/tmp/wh_compare_XXXXXX";
    cr_assert(mkdtemp(dir));
    char out[128], res[128], path[300];
    snprintf(out, sizeof out, "%s/cmp", dir);
    snprintf(res, sizeof res, "%s/results", dir);
    const char *args[] = { "tests/specs/hunt_paths_small.json", "--backend", "sim", "--strategies",
                           "gdivan-paper,gdivan,random", "--evals", "40", "--seeds", "2", "--results", res, "-o",
                           out, "--quiet" };
    cr_assert_eq(run_compare(14, args), 0);

    snprintf(path, sizeof path, "%s/compare.json", out);
    json_t *doc = ts_load_json(path);
    json_t *runs = json_object_get(doc, "strategies");
    cr_assert_eq(json_array_size(runs), 6, "3 rows x 2 seeds");
    static const char *const want[6] = { "gdivan-paper", "gdivan-paper", "gdivan", "gdivan", "random", "random" };
    for (size_t i = 0; i < 6; i++) {
        json_t *r = json_array_get(runs, i);
        cr_expect_str_eq(json_string_value(json_object_get(r, "variant")), want[i], "run %zu", i);
        cr_expect_eq(json_integer_value(json_object_get(r, "evals")), 40, "run %zu: the same budget", i);
        cr_expect_eq(json_integer_value(json_object_get(r, "seed")), 1 + (long)(i % 2), "run %zu", i);
    }
    /* each strategy's better run of its two explains its best input */
    for (size_t i = 0; i < 6; i += 2) {
        json_t *a = json_array_get(runs, i), *b = json_array_get(runs, i + 1);
        bool second = json_number_value(json_object_get(b, "best")) > json_number_value(json_object_get(a, "best"));
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/explain/explain.md",
                     json_string_value(json_object_get(k ? b : a, "dir")));
            cr_expect_eq(access(path, R_OK) == 0, k == (int)second, "%s: only the best run of %s", path, want[i]);
        }
    }
    /* rank_tests: each later row against the first, A12 from the runs' best
     * inputs re-measured */
    snprintf(path, sizeof path, "%s/table.csv", out);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "table_csv")), path);
    json_t *tests = json_object_get(doc, "rank_tests");
    cr_assert_eq(json_array_size(tests), 2, "gdivan and random against gdivan-paper");
    for (size_t t = 0; t < 2; t++) {
        json_t *rt = json_array_get(tests, t);
        cr_expect_str_eq(json_string_value(json_object_get(rt, "strategy")), want[2 + 2 * t]);
        cr_expect_str_eq(json_string_value(json_object_get(rt, "against")), "gdivan-paper");
        double wins = 0;
        for (size_t i = 0; i < 2; i++)
            for (size_t j = 0; j < 2; j++) {
                json_t *fr = json_object_get(json_array_get(runs, i), "final");
                json_t *fo = json_object_get(json_array_get(runs, 2 + 2 * t + j), "final");
                double ref = json_number_value(json_object_get(fr, "mean"));
                double other = json_number_value(json_object_get(fo, "mean"));
                wins += ref > other ? 1 : ref == other ? 0.5 : 0;
            }
        cr_expect_float_eq(json_number_value(json_object_get(rt, "a12")), wins / 4, 1e-12, "test %zu", t);
        double p = json_number_value(json_object_get(rt, "p_value"));
        /* compare.json keeps 10 significant digits */
        cr_expect(p >= 2.0 / 6.0 - 1e-9 && p <= 1, "2 seeds against 2: p >= 1/3, got %g", p);
    }
    json_decref(doc);

    /* gdivan-paper: the paper's plain tiling and one-gene mutation */
    snprintf(path, sizeof path, "%s/gdivan-paper-s1/run.json", out);
    doc = ts_load_json(path);
    json_t *opt = json_object_get(doc, "options");
    cr_expect_str_eq(json_string_value(json_object_get(opt, "strategy")), "gdivan");
    cr_expect_str_eq(json_string_value(json_object_get(opt, "tiling")), "plain");
    cr_expect_float_eq(json_number_value(json_object_get(opt, "segment")), 0, 1e-12);
    /* ... with every extension off, and run.json saying so */
    static const char *const extensions[] = { "scout", "edit_screen", "end_edits", "location_feedback",
                                              "lane_amplify" };
    for (size_t k = 0; k < sizeof extensions / sizeof *extensions; k++)
        cr_expect(json_is_false(json_object_get(opt, extensions[k])), "gdivan-paper's %s is off", extensions[k]);
    cr_expect_eq(json_integer_value(json_object_get(opt, "warp_first")), 0);
    json_decref(doc);
    snprintf(path, sizeof path, "%s/gdivan-s1/run.json", out);
    doc = ts_load_json(path);
    opt = json_object_get(doc, "options");
    cr_expect_str_eq(json_string_value(json_object_get(opt, "tiling")), "stride");
    for (size_t k = 0; k < sizeof extensions / sizeof *extensions; k++)
        cr_expect(json_is_true(json_object_get(opt, extensions[k])), "gdivan's %s is on by default", extensions[k]);
    json_decref(doc);

    /* table.md: one row per strategy, in the order asked */
    snprintf(path, sizeof path, "%s/table.md", out);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    char *a = strstr(text, "| gdivan-paper |"), *b = strstr(text, "| gdivan |"), *c = strstr(text, "| random |");
    cr_expect(a && b && c && a < b && b < c, "rows in order:\n%s", text);
    cr_expect(strstr(text, "| A12 (gdivan-paper) | p |"), "the rank test's columns:\n%s", text);
    /* the symbolic stage's time is a column of its own: gdivan-paper's first
     * run computed it, random has none */
    cr_expect(strstr(text, "| symbolic stage (s) | reached after, stage included (s) |"), "%s", text);
    double cells[2][10];
    const char *rows[2] = { a, c };
    for (int r = 0; r < 2; r++) {
        const char *p = rows[r];
        for (int k = 0; k < 10 && p; k++) {
            p = strchr(p + 1, '|');
            cells[r][k] = p ? strtod(p + 1, NULL) : -1;
        }
    }
    cr_expect_gt(cells[0][4], 0, "gdivan-paper's stage took time:\n%s", text);
    cr_expect_geq(cells[0][5], cells[0][4] + cells[0][3] - 0.011, "stage included = search + stage:\n%s", text);
    cr_expect_eq(cells[1][4], 0, "random has no symbolic stage:\n%s", text);

    /* table.csv: the same rows, in the same order, under a header; the
     * column whose name holds a comma is quoted */
    snprintf(path, sizeof path, "%s/table.csv", out);
    const char *csv = ts_read_text(path);
    cr_expect(!strncmp(csv, "strategy,WCET found (cycles),", 29), "the header first:\n%s", csv);
    cr_expect(strstr(csv, ",\"reached after, stage included (s)\","), "%s", csv);
    static const char *const csv_rows[3] = { "\ngdivan-paper,", "\ngdivan,", "\nrandom," };
    const char *at = csv;
    for (int r = 0; r < 3; r++) {
        const char *row = strstr(at, csv_rows[r]);
        cr_expect(row, "row %d (%s) in order:\n%s", r, csv_rows[r] + 1, csv);
        at = row ? row + 1 : at;
    }
    int lines = 0;
    for (const char *q = csv; *q; q++) lines += *q == '\n';
    cr_expect_eq(lines, 4, "a header and one line per row of table.md:\n%s", csv);
    /* random's symbolic stage (column 8) is 0, as in table.md */
    const char *rnd = strstr(csv, "\nrandom,");
    for (int k = 0; rnd && k < 7; k++) rnd = strchr(rnd + 1, ',');
    cr_expect(rnd && strtod(rnd + 1, NULL) == 0, "%s", csv);
    char find[1300];
    snprintf(find, sizeof find, "test -z \"$(find '%s' -name checkpoint.bin -o -name pool.bin)\"", out);
    cr_expect_eq(system(find), 0, "a comparison's runs drop their search state");

    const char *bad[] = { "tests/specs/hunt_paths_small.json", "--strategies", "gdivan,gdivan" };
    cr_expect_eq(run_compare(3, bad), 1, "a repeated strategy is a user error");
    const char *unknown[] = { "tests/specs/hunt_paths_small.json", "--strategies", "annealing" };
    cr_expect_eq(run_compare(3, unknown), 1);
    ts_rmtree(dir);
}

/* One run that cannot start (its directory locked by another process, as
 * this test holds it) is a row of the table, not the end of the
 * comparison: the other strategy still runs, table.md and compare.json
 * name the failure and its reason, and the exit status is 2. */
Test(compare_cli, a_failed_run_does_not_stop_the_others, .init = cr_redirect_stderr)
{
    struct stat st;
    if (stat("build/ptx/kernels/gt_paths32.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    char dir[] = "/tmp/wh_compare_XXXXXX";
    cr_assert(mkdtemp(dir));
    char out[128], res[128], path[300];
    snprintf(out, sizeof out, "%s/cmp", dir);
    snprintf(res, sizeof res, "%s/results", dir);
    snprintf(path, sizeof path, "%s/random-s1", out);
    cr_assert_eq(mkdir(out, 0755), 0);
    cr_assert_eq(mkdir(path, 0755), 0);
    char lock[320];
    snprintf(lock, sizeof lock, "%s/.lock", path);
    int fd = open(lock, O_RDWR | O_CREAT, 0644);
    cr_assert(fd >= 0 && flock(fd, LOCK_EX) == 0);

    const char *args[] = { "tests/specs/hunt_paths_small.json", "--backend", "sim", "--strategies",
                           "random,gdivan", "--evals", "20", "--seeds", "1", "--results", res, "-o", out, "--quiet",
                           "--no-explain" };
    cr_expect_eq(run_compare(15, args), 2);
    close(fd);

    snprintf(path, sizeof path, "%s/compare.json", out);
    json_t *doc = ts_load_json(path);
    json_t *runs = json_object_get(doc, "strategies");
    cr_assert_eq(json_array_size(runs), 2, "both rows are listed");
    json_t *failed = json_array_get(runs, 0), *ran = json_array_get(runs, 1);
    cr_expect_str_eq(json_string_value(json_object_get(failed, "variant")), "random");
    cr_expect(strstr(json_string_value(json_object_get(failed, "failed")), "in use by another warphunt process"));
    cr_expect_str_eq(json_string_value(json_object_get(ran, "variant")), "gdivan");
    cr_expect_eq(json_integer_value(json_object_get(ran, "evals")), 20, "the other strategy ran its budget");
    snprintf(path, sizeof path, "%s/explain", json_string_value(json_object_get(ran, "dir")));
    cr_expect(access(path, F_OK) != 0, "--no-explain: no %s", path);
    json_decref(doc);

    snprintf(path, sizeof path, "%s/table.md", out);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    cr_expect(strstr(text, "| gdivan |"), "gdivan's row: %s", text);
    cr_expect(strstr(text, "- random seed 1: the run directory is in use"), "the failure listed: %s", text);
    ts_rmtree(dir);
}

/* Usage errors of the search commands: one line pointing to --help, not
 * the whole help; `hunt --resume DIR` finds its spec in the run and says
 * which given options the run ignores. */
Test(search_cli, usage_errors_point_to_the_help_and_resume_needs_no_spec)
{
    char base[] = "/tmp/wh_usage_XXXXXX", errp[200], run[200];
    cr_assert(mkdtemp(base));
    snprintf(errp, sizeof errp, "%s/stderr", base);
    const char *bogus[] = { "--bogus" };
    cr_expect_eq(ts_run_cmd(cmd_hunt, "hunt", bogus, 1, NULL, errp), 1);
    const char *text = ts_read_text(errp);
    cr_expect(strstr(text, "--help` lists the options"), "%s", text);
    cr_expect_null(strstr(text, "strategies:"), "the whole help was printed: %s", text);
    const char *none[] = { "--evals", "5" };
    cr_expect_eq(ts_run_cmd(cmd_compare, "compare", none, 2, NULL, errp), 1);
    cr_expect(strstr(ts_read_text(errp), "expected a SPEC"), "%s", ts_read_text(errp));

    if (access("build/ptx/kernels/fig1b.ptx", R_OK) != 0) cr_skip_test("PTX not built: run `make ptx`");
    snprintf(run, sizeof run, "%s/run", base);
    const char *first[] = { "kernels/fig1b.json", "--backend", "sim", "--strategy", "random", "--evals", "20",
                            "--final-reps", "1", "-o", run, "--quiet" };
    cr_assert_eq(ts_run_cmd(cmd_hunt, "hunt", first, 12, NULL, errp), 0);
    const char *again[] = { "--resume", run, "--evals", "40", "--population", "7", "--backend", "sim" };
    cr_expect_eq(ts_run_cmd(cmd_hunt, "hunt", again, 8, NULL, errp), 0, "%s", ts_read_text(errp));
    text = ts_read_text(errp);
    cr_expect(strstr(text, "ignored: --population"), "%s", text);
    cr_expect(strstr(text, " s of search; stopped: "), "the summary's seconds are the search's: %s", text);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "grep -q '\"evals\": 40' '%s/run.json'", run);
    cr_expect_eq(system(cmd), 0, "the resumed run went on to 40 evaluations");
    ts_rmtree(base);
}


/* gdivan's summary says when its search began: after the symbolic stage,
 * the warp-first composition and refinement, whose seconds the search's
 * own do not count (a new user read a 2-minute smoke hunt's "23.56 s"). */
Test(compare_cli, a_gdivan_hunt_says_when_its_search_began, .timeout = 120)
{
    if (access("build/ptx/kernels/artificial.ptx", R_OK) != 0) cr_skip_test("PTX not built: run `make ptx`");
    char base[] = "/tmp/wh_hunt_sum_XXXXXX", run[128], errp[128];
    cr_assert(mkdtemp(base));
    snprintf(run, sizeof run, "%s/run", base);
    snprintf(errp, sizeof errp, "%s/err", base);
    const char *args[] = { "kernels/artificial.json", "--backend", "sim", "--evals", "20", "--explore-time", "5",
                           "--final-reps", "1", "--no-explain", "-o", run };
    cr_assert_eq(ts_run_cmd(cmd_hunt, "hunt", args, 12, NULL, errp), 0, "%s", ts_read_text(errp));
    const char *text = ts_read_text(errp);
    cr_expect(strstr(text, " s of search, begun ") && strstr(text, " s after the symbolic stage began; stopped: "),
              "%s", text);
    ts_rmtree(base);
}
