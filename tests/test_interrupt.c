/*
 * test_interrupt.c — Ctrl-C on a real `warphunt hunt` process: SIGINT stops
 * the search between two evaluations, everything found so far is written
 * (run.json finished and "interrupted", history.csv, best/), the exit
 * status is 130, and the run resumes from its checkpoint.
 *
 * The binary is the one of this test runner's build tree (its sibling
 * `warphunt`), so the test never runs a stale ./warphunt of another tree.
 */
#include "tests/support.h"

#include <criterion/criterion.h>

#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void tool_path(char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    cr_assert_gt(len, 0, "cannot read /proc/self/exe");
    self[len] = '\0';
    snprintf(out, n, "%s/warphunt", dirname(self));
    struct stat st;
    if (stat(out, &st) != 0) cr_skip_test("%s not built (make builds it with the tests)", out);
}

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long n = 0;
    int c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Runs `warphunt hunt` with args; returns its pid (stdout/stderr to /dev/null). */
static pid_t spawn(const char *tool, const char *const *args)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        FILE *null = freopen("/dev/null", "w", stderr);
        (void)null;
        null = freopen("/dev/null", "w", stdout);
        execv(tool, (char *const *)args);
        _exit(127);
    }
    return pid;
}

static int exit_status(pid_t pid)
{
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st), "the process did not exit (signal %d)", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return WEXITSTATUS(st);
}

Test(interrupt, sigint_writes_the_results_and_exits_130)
{
    struct stat st;
    if (stat("build/ptx/kernels/gt_loop.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    char tool[PATH_MAX + 16], base[] = "/tmp/wh_sigint_XXXXXX";
    tool_path(tool, sizeof tool);
    cr_assert(mkdtemp(base));
    char out[PATH_MAX], hist[PATH_MAX + 32], runj[PATH_MAX + 32], best[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/run", base);
    snprintf(hist, sizeof hist, "%s/history.csv", out);
    snprintf(runj, sizeof runj, "%s/run.json", out);
    snprintf(best, sizeof best, "%s/best/manifest.json", out);
    const char *args[] = { tool, "hunt", "tests/specs/hunt_loop_small.json", "--backend", "sim", "--evals",
                           "100000000", "--patience", "0", "--final-reps", "2", "--results", base, "-o", out,
                           NULL };
    pid_t pid = spawn(tool, args);
    /* Wait for the search to be well under way (a header + 20 rows). */
    for (int i = 0; i < 6000 && count_lines(hist) < 21; i++) sleep_ms(10);
    cr_assert_geq(count_lines(hist), 21, "the hunt did not start within 60 s");
    cr_assert_eq(kill(pid, SIGINT), 0);
    cr_expect_eq(exit_status(pid), 130);

    json_t *doc = ts_load_json(runj);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "state")), "interrupted");
    cr_expect_str_eq(json_string_value(json_object_get(doc, "stop_reason")), "interrupted");
    /* provenance: the command as typed, when, where, which files and build */
    json_t *cmd = json_object_get(doc, "command");
    cr_expect_eq(json_array_size(cmd), 15);
    cr_expect_str_eq(json_string_value(json_array_get(cmd, 0)), "warphunt");
    cr_expect_str_eq(json_string_value(json_array_get(cmd, 2)), "tests/specs/hunt_loop_small.json");
    const char *started = json_string_value(json_object_get(doc, "started_utc"));
    cr_expect(started && strlen(started) == 20 && started[10] == 'T' && started[19] == 'Z', "%s", started);
    cr_expect_gt(strlen(json_string_value(json_object_get(doc, "host"))), 0);
    cr_expect_eq(strlen(json_string_value(json_object_get(doc, "ptx_hash"))), 16);
    cr_expect_eq(strlen(json_string_value(json_object_get(doc, "build_id"))), 16);
    cr_expect_eq(json_string_value(json_object_get(doc, "spec"))[0], '/', "paths are absolute");
    cr_expect_null(strstr(json_string_value(json_object_get(doc, "ptx")), "/../"));
    json_t *hopt = json_object_get(json_object_get(doc, "options"), "harness");
    cr_expect_eq(json_integer_value(json_object_get(hopt, "step_limit")), 2000000000, "the value used, not 0");
    cr_expect_eq(json_integer_value(json_object_get(hopt, "warmup")), 2, "the value used, not -1");
    /* evals: the search's and the scout's (random testing during the stage) */
    long evals = (long)json_integer_value(json_object_get(doc, "evals"));
    long scouted = (long)json_integer_value(json_object_get(json_object_get(doc, "scout"), "evals"));
    char scout_csv[PATH_MAX + 32];
    snprintf(scout_csv, sizeof scout_csv, "%s/scout.csv", out);
    cr_expect_geq(evals, 20);
    cr_expect_lt(evals, 100000000);
    cr_expect_eq(json_integer_value(json_object_get(doc, "search_evals")), evals - scouted);
    cr_expect_eq(count_lines(hist), evals - scouted + 1, "one history row per evaluation of the search");
    if (scouted) cr_expect_eq(count_lines(scout_csv), scouted + 1, "one scout.csv row per scout evaluation");
    cr_expect(json_is_object(json_object_get(doc, "best")), "run.json names the best input");
    cr_expect_eq(stat(best, &st), 0, "best/ is written");
    json_decref(doc);

    /* The interrupted run continues from its last checkpoint. */
    char more[32];
    snprintf(more, sizeof more, "%ld", evals + 50);
    const char *resume[] = { tool, "hunt", "tests/specs/hunt_loop_small.json", "--resume", out, "--evals", more,
                             NULL };
    cr_expect_eq(exit_status(spawn(tool, resume)), 0);
    doc = ts_load_json(runj);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "stop_reason")), "evals");
    cr_expect_eq(json_integer_value(json_object_get(doc, "evals")), evals + 50, "the budget counts the scout's");
    /* stopped before its first checkpoint, the run starts again on the
     * cached stage: no scout then (test_scout.c checks a resumed one's) */
    scouted = (long)json_integer_value(json_object_get(json_object_get(doc, "scout"), "evals"));
    cr_expect_eq(count_lines(hist), evals - scouted + 51);
    if (!scouted) cr_expect_eq(access(scout_csv, F_OK), -1, "a restarted run leaves no stale scout.csv");
    json_decref(doc);

    ts_rmtree(base);
}

/* `hunt --resume DIR` without --evals keeps the run's own budget (the CLI's
 * default of 2000 used to replace it). */
Test(interrupt, resume_without_evals_keeps_the_runs_budget)
{
    struct stat st;
    if (stat("build/ptx/kernels/gt_loop.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    char tool[PATH_MAX + 16], base[] = "/tmp/wh_budget_XXXXXX";
    tool_path(tool, sizeof tool);
    cr_assert(mkdtemp(base));
    char out[PATH_MAX], runj[PATH_MAX + 32], ckp[PATH_MAX + 32];
    snprintf(out, sizeof out, "%s/run", base);
    snprintf(runj, sizeof runj, "%s/run.json", out);
    snprintf(ckp, sizeof ckp, "%s/checkpoint.bin", out);
    const char *args[] = { tool, "hunt", "tests/specs/hunt_loop_small.json", "--backend", "sim", "--strategy",
                           "random-ga", "--evals", "300", "--patience", "0", "--final-reps", "1", "--results", base,
                           "-o", out, NULL };
    cr_assert_eq(exit_status(spawn(tool, args)), 0);
    /* as a kill -9 in the first generation leaves it: no checkpoint */
    cr_assert_eq(unlink(ckp), 0);
    const char *resume[] = { tool, "hunt", "tests/specs/hunt_loop_small.json", "--resume", out, NULL };
    cr_expect_eq(exit_status(spawn(tool, resume)), 0);
    json_t *doc = ts_load_json(runj);
    cr_expect_eq(json_integer_value(json_object_get(doc, "evals")), 300);
    json_decref(doc);
    ts_rmtree(base);
}

/* Ctrl-C, then --resume: the run ends exactly where the uninterrupted run
 * with the same seed ends (the same history, row for row). */
Test(interrupt, sigint_then_resume_ends_where_the_uninterrupted_run_ends)
{
    struct stat st;
    if (stat("build/ptx/kernels/gt_loop.ptx", &st) != 0) cr_skip_test("PTX not built: run `make ptx`");
    char tool[PATH_MAX + 16], base[] = "/tmp/wh_exact_XXXXXX";
    tool_path(tool, sizeof tool);
    cr_assert(mkdtemp(base));
    char a[PATH_MAX], b[PATH_MAX], ha[PATH_MAX + 32], hb[PATH_MAX + 32];
    snprintf(a, sizeof a, "%s/a", base);
    snprintf(b, sizeof b, "%s/b", base);
    snprintf(ha, sizeof ha, "%s/history.csv", a);
    snprintf(hb, sizeof hb, "%s/history.csv", b);
    const char *run_a[] = { tool, "hunt", "tests/specs/hunt_loop_small.json", "--backend", "sim", "--strategy",
                            "random-ga", "--evals", "4000", "--patience", "0", "--final-reps", "1", "--results",
                            base, "-o", a, NULL };
    cr_assert_eq(exit_status(spawn(tool, run_a)), 0);
    const char *run_b[] = { tool, "hunt", "tests/specs/hunt_loop_small.json", "--backend", "sim", "--strategy",
                            "random-ga", "--evals", "4000", "--patience", "0", "--final-reps", "1", "--results",
                            base, "-o", b, NULL };
    pid_t pid = spawn(tool, run_b);
    for (int i = 0; i < 6000 && count_lines(hb) < 300; i++) sleep_ms(5);
    cr_assert_eq(kill(pid, SIGINT), 0);
    int status = exit_status(pid);
    if (status == 0) cr_skip_test("the run finished before the interrupt arrived");
    cr_assert_eq(status, 130);
    const char *resume[] = { tool, "hunt", "tests/specs/hunt_loop_small.json", "--resume", b, NULL };
    cr_assert_eq(exit_status(spawn(tool, resume)), 0);
    cr_expect_eq(count_lines(hb), 4001);
    FILE *fa = fopen(ha, "r"), *fb = fopen(hb, "r");
    cr_assert(fa && fb);
    char la[512], lb[512];
    int row = 0, differ = 0;
    while (fgets(la, sizeof la, fa) && fgets(lb, sizeof lb, fb)) {
        /* eval, generation, (time,) fitness...: compare all but the time column */
        char *ca = strchr(strchr(la, ',') + 1, ','), *cb = strchr(strchr(lb, ',') + 1, ',');
        char *ra = ca ? strchr(ca + 1, ',') : NULL, *rb = cb ? strchr(cb + 1, ',') : NULL;
        if (row > 0 && (!ra || !rb || strcmp(ra, rb)) && !differ++)
            cr_expect(false, "row %d differs: %s vs %s", row, la, lb);
        row++;
    }
    fclose(fa);
    fclose(fb);
    cr_expect_eq(differ, 0);
    ts_rmtree(base);
}
