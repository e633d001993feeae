/*
 * test_symexec_cli.c — `warphunt explore`: options, exit statuses, the
 * --json summary and paths.json (paths with formulas, metrics, decisions,
 * up to K atoms per path validated on the sim, legs, coverage per X), and
 * the cache it shares with `hunt`.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "cli/cli.h"
#include "tests/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_explore(int n, const char **args)
{
    return ts_run_cmd(cmd_explore, "explore", args, n, NULL, NULL);
}

static int run_hunt(int n, const char **args)
{
    return ts_run_cmd(cmd_hunt, "hunt", args, n, NULL, NULL);
}

static void tmp_dir(char *buf, size_t size)
{
    snprintf(buf, size, "/tmp/wh_sx_cli_XXXXXX");
    cr_assert(mkdtemp(buf), "mkdtemp");
}

/* Output in dir, results base (the cache) in dir/results: nothing is left
 * in the source tree's results/. */
static void results_in(const char *dir, char *buf, size_t size)
{
    snprintf(buf, size, "%s/results", dir);
}

static json_t *load_paths(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/paths.json", dir);
    return ts_load_json(path);
}

static json_t *stdout_json(void)
{
    fflush(stdout);
    FILE *f = cr_get_redirected_stdout();
    char buf[16384] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    json_error_t je;
    json_t *o = json_loads(buf, 0, &je);
    cr_assert(o, "stdout is not JSON: %s (%s)", je.text, buf);
    return o;
}

/* Every path of fig1a at X = 2 has natoms_min..natoms_max atoms, all valid, two input values each;
 * returns the number of atoms. */
static int check_fig1a_paths(json_t *doc, size_t natoms_min, size_t natoms_max)
{
    json_t *paths = json_object_get(doc, "paths");
    cr_assert_eq(json_array_size(paths), 4);
    int total = 0;
    for (size_t i = 0; i < 4; i++) {
        json_t *p = json_array_get(paths, i);
        const char *f = json_string_value(json_object_get(p, "formula"));
        cr_expect(f && strstr(f, "input[0]"), "formula %zu: %s", i, f ? f : "(none)");
        cr_expect(json_is_number(json_object_get(p, "brdiv")));
        cr_expect(json_integer_value(json_object_get(p, "instr")) > 0);
        cr_expect(json_integer_value(json_object_get(p, "warp_instr")) > 0);
        cr_expect_eq(json_array_size(json_object_get(p, "decisions")), 2);
        json_t *atoms = json_object_get(p, "atoms");
        size_t na = json_array_size(atoms);
        cr_expect(na >= natoms_min && na <= natoms_max, "path %zu: %zu atoms", i, na);
        for (size_t k = 0; k < na; k++) {
            json_t *atom = json_array_get(atoms, k);
            cr_expect(json_is_true(json_object_get(atom, "valid")), "path %zu atom %zu", i, k);
            cr_expect_eq(json_array_size(json_object_get(json_object_get(atom, "inputs"), "input")), 2);
            /* distinct models: duplicates are dropped */
            for (size_t j = 0; j < k; j++)
                cr_expect_not(json_equal(json_object_get(atom, "inputs"),
                                         json_object_get(json_array_get(atoms, j), "inputs")),
                              "path %zu: atoms %zu and %zu are equal", i, j, k);
        }
        total += (int)na;
    }
    return total;
}

Test(symexec_cli, fig1a_writes_paths_json_with_valid_atoms)
{
    char dir[64], res[96];
    tmp_dir(dir, sizeof dir);
    results_in(dir, res, sizeof res);
    /* one atom per path: one valid atom for each of the 4 paths */
    const char *args[] = { "kernels/fig1a.json", "--threads", "2", "--models", "1", "-o", dir,
                           "--results", res, "--quiet" };
    cr_assert_eq(run_explore(10, args), 0);
    json_t *doc = load_paths(dir);
    cr_expect_eq(json_integer_value(json_object_get(doc, "threads")), 2);
    cr_expect_eq(json_integer_value(json_object_get(doc, "legs_total")), 2);
    cr_expect_eq(json_integer_value(json_object_get(doc, "legs_covered")), 2);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "validation")), "sim");
    cr_expect_eq(json_integer_value(json_object_get(doc, "atoms_valid")), 4);
    cr_expect_eq(check_fig1a_paths(doc, 1, 1), 4);
    json_t *legs = json_object_get(doc, "legs");
    cr_expect_eq(json_array_size(legs), 2);
    cr_expect(json_integer_value(json_object_get(json_array_get(legs, 0), "line")) > 0);
    cr_expect_eq(json_array_size(json_object_get(doc, "coverage_per_x")), 1);
    json_decref(doc);
    ts_rmtree(dir);
}

Test(symexec_cli, several_atoms_per_path_by_default)
{
    char dir[64], res[96];
    tmp_dir(dir, sizeof dir);
    results_in(dir, res, sizeof res);
    const char *args[] = { "kernels/fig1a.json", "--threads", "2", "-o", dir, "--results", res, "--quiet" };
    cr_assert_eq(run_explore(8, args), 0);
    json_t *doc = load_paths(dir);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "validation")), "sim");
    int natoms = check_fig1a_paths(doc, 1, 4);
    cr_expect_gt(natoms, 4, "more than one atom for some path");
    cr_expect_eq(json_integer_value(json_object_get(doc, "atoms_valid")), natoms);
    json_decref(doc);
    ts_rmtree(dir);
}

Test(symexec_cli, json_summary_on_stdout, .init = cr_redirect_stdout)
{
    char dir[64], res[96];
    tmp_dir(dir, sizeof dir);
    results_in(dir, res, sizeof res);
    const char *args[] = { "kernels/artificial.json", "-o", dir, "--results", res, "--json", "--quiet" };
    cr_assert_eq(run_explore(7, args), 0);
    json_t *o = stdout_json();
    static const char *keys[] = { "kernel", "threads", "paths", "coverage", "legs_total", "legs_covered",
                                  "models", "atoms", "atoms_valid", "atoms_invalid", "atoms_unvalidated",
                                  "validation", "cut", "errors", "pending", "coverage_per_x", "from_cache",
                                  "cache", "time_s", "dir" };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        cr_expect(json_object_get(o, keys[k]), "missing key %s", keys[k]);
    cr_expect_str_eq(json_string_value(json_object_get(o, "kernel")), "artificial");
    cr_expect_eq(json_integer_value(json_object_get(o, "paths")), 4);
    cr_expect_float_eq(json_number_value(json_object_get(o, "coverage")), 100.0, 1e-9);
    cr_expect_eq(json_integer_value(json_object_get(o, "atoms_invalid")), 0);
    cr_expect_eq(json_integer_value(json_object_get(o, "atoms_valid")),
                 json_integer_value(json_object_get(o, "atoms")));
    cr_expect_str_eq(json_string_value(json_object_get(o, "validation")), "sim");
    cr_expect_str_eq(json_string_value(json_object_get(o, "dir")), dir);
    json_decref(o);
    ts_rmtree(dir);
}

Test(symexec_cli, no_validate_counts_atoms_as_unvalidated, .init = cr_redirect_stdout)
{
    char dir[64], res[96];
    tmp_dir(dir, sizeof dir);
    results_in(dir, res, sizeof res);
    const char *args[] = { "kernels/fig1a.json", "--threads", "2", "--models", "2", "--no-validate",
                           "-o", dir, "--results", res, "--json", "--quiet" };
    cr_assert_eq(run_explore(12, args), 0);
    json_t *o = stdout_json();
    cr_expect_str_eq(json_string_value(json_object_get(o, "validation")), "none");
    cr_expect_eq(json_integer_value(json_object_get(o, "models")), 2);
    json_int_t n = json_integer_value(json_object_get(o, "atoms"));
    cr_expect(n >= 4 && n <= 8, "%lld atoms", (long long)n);
    cr_expect_eq(json_integer_value(json_object_get(o, "atoms_valid")), 0);
    cr_expect_eq(json_integer_value(json_object_get(o, "atoms_unvalidated")), n);
    json_decref(o);
    json_t *doc = load_paths(dir);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "validation")), "none");
    json_decref(doc);
    ts_rmtree(dir);
}

/* explore caches under RESULTS/<kernel>/.cache/<key>/; a second explore, and
 * a hunt with the same exploration options, reuse it; --no-cache does not. */
Test(symexec_cli, explore_cache_is_shared_with_hunt, .init = cr_redirect_stdout)
{
    char dir[64], res[96], out[128], run[128], path[700];
    tmp_dir(dir, sizeof dir);
    results_in(dir, res, sizeof res);
    snprintf(out, sizeof out, "%s/explore", dir);
    const char *args[] = { "kernels/fig1a.json", "-o", out, "--results", res, "--json", "--quiet" };
    cr_assert_eq(run_explore(7, args), 0);
    cr_assert_eq(run_explore(7, args), 0);
    const char *fresh[] = { "kernels/fig1a.json", "-o", out, "--results", res, "--json", "--quiet", "--no-cache" };
    cr_assert_eq(run_explore(8, fresh), 0);
    /* three compact summaries, one a line */
    fflush(stdout);
    FILE *f = cr_get_redirected_stdout();
    char line[16384];
    const bool want_cached[3] = { false, true, false };
    char cache[3][600];
    for (int i = 0; i < 3; i++) {
        cr_assert(fgets(line, sizeof line, f), "summary %d", i);
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        cr_assert(o, "summary %d is not JSON: %s", i, je.text);
        cr_expect_eq(json_is_true(json_object_get(o, "from_cache")), want_cached[i], "summary %d", i);
        snprintf(cache[i], sizeof cache[i], "%s", json_string_value(json_object_get(o, "cache")));
        json_decref(o);
    }
    char prefix[200];
    snprintf(prefix, sizeof prefix, "%s/fig1a/.cache/", res);
    cr_expect(!strncmp(cache[0], prefix, strlen(prefix)), "cache %s not under %s", cache[0], prefix);
    cr_expect_str_eq(cache[1], cache[0]);
    cr_expect_str_eq(cache[2], cache[0]);
    snprintf(path, sizeof path, "%s/atoms.bin", cache[0]);
    cr_expect_eq(access(path, R_OK), 0, "%s", path);
    json_t *doc = load_paths(out);
    const char *key = json_string_value(json_object_get(doc, "cache_key"));
    cr_assert(key);
    snprintf(run, sizeof run, "%s/hunt", dir);
    const char *hunt[] = { "kernels/fig1a.json", "--backend", "sim", "--evals", "10", "--results", res,
                           "-o", run, "--quiet" };
    cr_assert_eq(run_hunt(10, hunt), 0);
    snprintf(path, sizeof path, "%s/run.json", run);
    json_t *rj = ts_load_json(path);
    json_t *ex = json_object_get(rj, "explore");
    cr_expect(json_is_true(json_object_get(ex, "cached")), "hunt reused the exploration");
    cr_expect_str_eq(json_string_value(json_object_get(ex, "cache_key")), key);
    json_decref(rj);
    json_decref(doc);
    ts_rmtree(dir);
}

Test(symexec_cli, deepening_stops_at_full_coverage)
{
    char dir[64];
    tmp_dir(dir, sizeof dir);
    /* bfs2 never covers the tid < n guard's other leg: every X is tried */
    char res[96];
    results_in(dir, res, sizeof res);
    const char *args[] = { "kernels/bfs2.json", "-o", dir, "--results", res, "--quiet", "--time", "20" };
    cr_assert_eq(run_explore(8, args), 0);
    json_t *doc = load_paths(dir);
    cr_expect_eq(json_array_size(json_object_get(doc, "coverage_per_x")), 3);
    cr_expect_eq(json_integer_value(json_object_get(doc, "threads")), 4);
    json_decref(doc);
    ts_rmtree(dir);
    /* fig1a is covered at X = 2 already */
    tmp_dir(dir, sizeof dir);
    results_in(dir, res, sizeof res);
    const char *args2[] = { "kernels/fig1a.json", "-o", dir, "--results", res, "--quiet" };
    cr_assert_eq(run_explore(6, args2), 0);
    doc = load_paths(dir);
    cr_expect_eq(json_array_size(json_object_get(doc, "coverage_per_x")), 1);
    json_decref(doc);
    ts_rmtree(dir);
}

Test(symexec_cli, options_and_exit_statuses, .init = cr_redirect_stderr)
{
    const char *help[] = { "--help" };
    cr_expect_eq(run_explore(1, help), 0);
    const char *bad[] = { "kernels/fig1a.json", "--bogus" };
    cr_expect_eq(run_explore(2, bad), 1);
    const char *none[] = { "--quiet" };
    cr_expect_eq(run_explore(1, none), 1);
    const char *missing[] = { "no/such/spec.json", "--quiet" };
    cr_expect_eq(run_explore(2, missing), 1);
    const char *badx[] = { "kernels/fig1a.json", "--threads", "0" };
    cr_expect_eq(run_explore(3, badx), 1);
    const char *badk[] = { "kernels/fig1a.json", "--models", "0" };
    cr_expect_eq(run_explore(3, badk), 1);
    const char *nok[] = { "kernels/fig1a.json", "--models" };
    cr_expect_eq(run_explore(2, nok), 1);
    const char *seed[] = { "kernels/fig1a.json", "--seed", "3" };
    cr_expect_eq(run_explore(3, seed), 1, "--seed is gone");
    const char *unsup[] = { "tests/specs/sym_unsupported.json", "--quiet", "-o", "/tmp/wh_sx_cli_unsup" };
    cr_expect_eq(run_explore(4, unsup), 0, "an unsupported instruction cuts its path, not the exploration");
}

/* hunt --explore-paths N: a symbolic-stage budget that does not depend on
 * the machine (bfs1 has thousands of paths at X = 2), with saturation off
 * (it is timed). */
Test(symexec_cli, hunt_explore_paths_is_a_path_budget)
{
    char dir[64], res[96], run[128], path[300];
    tmp_dir(dir, sizeof dir);
    results_in(dir, res, sizeof res);
    snprintf(run, sizeof run, "%s/hunt", dir);
    const char *hunt[] = { "kernels/bfs1.json", "--backend", "sim", "--evals", "5", "--explore-paths", "37",
                           "--explore-saturation", "0", "--results", res, "-o", run, "--quiet" };
    cr_assert_eq(run_hunt(14, hunt), 0);
    snprintf(path, sizeof path, "%s/run.json", run);
    json_t *rj = ts_load_json(path);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(rj, "explore"), "paths")), 37);
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(rj, "options"), "explore_paths")), 37);
    json_decref(rj);
    const char *bad[] = { "kernels/bfs1.json", "--explore-paths", "0" };
    cr_expect_eq(run_hunt(3, bad), 1);
    ts_rmtree(dir);
}

/* hunt --order time: the symbolic stage in that order (recorded in
 * run.json, a cache key of its own: the default's exploration is not
 * reused for it); another order is refused. */
Test(symexec_cli, hunt_order_is_the_stages_order)
{
    char dir[64], res[96], run[2][128], path[300];
    tmp_dir(dir, sizeof dir);
    results_in(dir, res, sizeof res);
    const char *key[2] = { NULL, NULL };
    json_t *rj[2];
    for (int k = 0; k < 2; k++) {
        snprintf(run[k], sizeof run[k], "%s/hunt%d", dir, k);
        const char *hunt[] = { "kernels/bfs1.json", "--backend", "sim", "--evals", "5", "--explore-paths", "37",
                               "--explore-saturation", "0", "--results", res, "-o", run[k], "--quiet",
                               "--order", k ? "time" : "random" };
        cr_assert_eq(run_hunt(16, hunt), 0);
        snprintf(path, sizeof path, "%s/run.json", run[k]);
        rj[k] = ts_load_json(path);
        key[k] = json_string_value(json_object_get(json_object_get(rj[k], "explore"), "cache_key"));
        cr_expect_str_eq(json_string_value(json_object_get(json_object_get(rj[k], "options"), "explore_order")),
                         k ? "time" : "random");
    }
    cr_expect(key[0] && key[1] && strcmp(key[0], key[1]), "one cache key per order");
    cr_expect_not(json_is_true(json_object_get(json_object_get(rj[1], "explore"), "cached")),
                  "--order time explores for itself");
    json_decref(rj[0]);
    json_decref(rj[1]);
    const char *bad[] = { "kernels/bfs1.json", "--order", "sideways" };
    cr_expect_eq(run_hunt(3, bad), 1);
    ts_rmtree(dir);
}
