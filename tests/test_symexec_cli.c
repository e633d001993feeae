/*
 * test_symexec_cli.c — `warphunt explore`: options, exit statuses, the
 * --json summary and paths.json (paths with formulas, metrics, decisions,
 * atoms validated on the sim, legs, coverage per X).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include "cli/cli.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_explore(int n, const char **args)
{
    char *argv[16];
    argv[0] = (char *)"explore";
    for (int i = 0; i < n && i < 15; i++)
        argv[i + 1] = (char *)args[i];
    return cmd_explore(n + 1, argv);
}

static void tmp_dir(char *buf, size_t size)
{
    snprintf(buf, size, "/tmp/wh_sx_cli_XXXXXX");
    cr_assert(mkdtemp(buf), "mkdtemp");
}

static json_t *load_paths(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/paths.json", dir);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    cr_assert(doc, "%s: %s", path, je.text);
    return doc;
}

static void rm_dir(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/paths.json", dir);
    remove(path);
    rmdir(dir);
}

Test(symexec_cli, fig1a_writes_paths_json_with_valid_atoms)
{
    char dir[64];
    tmp_dir(dir, sizeof dir);
    const char *args[] = { "kernels/fig1a.json", "--threads", "2", "-o", dir, "--quiet" };
    cr_assert_eq(run_explore(6, args), 0);
    json_t *doc = load_paths(dir);
    cr_expect_eq(json_integer_value(json_object_get(doc, "threads")), 2);
    cr_expect_eq(json_integer_value(json_object_get(doc, "legs_total")), 2);
    cr_expect_eq(json_integer_value(json_object_get(doc, "legs_covered")), 2);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "validation")), "sim");
    cr_expect_eq(json_integer_value(json_object_get(doc, "atoms_valid")), 4);
    json_t *paths = json_object_get(doc, "paths");
    cr_assert_eq(json_array_size(paths), 4);
    for (size_t i = 0; i < 4; i++) {
        json_t *p = json_array_get(paths, i);
        const char *f = json_string_value(json_object_get(p, "formula"));
        cr_expect(f && strstr(f, "input[0]"), "formula %zu: %s", i, f ? f : "(none)");
        cr_expect(json_is_number(json_object_get(p, "brdiv")));
        cr_expect(json_integer_value(json_object_get(p, "instr")) > 0);
        cr_expect(json_integer_value(json_object_get(p, "warp_instr")) > 0);
        cr_expect_eq(json_array_size(json_object_get(p, "decisions")), 2);
        cr_expect(json_is_true(json_object_get(p, "atom_valid")));
        json_t *atom = json_object_get(json_object_get(p, "atom"), "input");
        cr_expect_eq(json_array_size(atom), 2);
    }
    json_t *legs = json_object_get(doc, "legs");
    cr_expect_eq(json_array_size(legs), 2);
    cr_expect(json_integer_value(json_object_get(json_array_get(legs, 0), "line")) > 0);
    cr_expect_eq(json_array_size(json_object_get(doc, "coverage_per_x")), 1);
    json_decref(doc);
    rm_dir(dir);
}

Test(symexec_cli, json_summary_on_stdout, .init = cr_redirect_stdout)
{
    char dir[64];
    tmp_dir(dir, sizeof dir);
    const char *args[] = { "kernels/artificial.json", "-o", dir, "--json", "--quiet" };
    cr_assert_eq(run_explore(5, args), 0);
    fflush(stdout);
    FILE *f = cr_get_redirected_stdout();
    char buf[8192] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    json_error_t je;
    json_t *o = json_loads(buf, 0, &je);
    cr_assert(o, "stdout is not JSON: %s (%s)", je.text, buf);
    static const char *keys[] = { "kernel", "threads", "paths", "coverage", "legs_total", "legs_covered",
                                  "atoms_valid", "atoms_invalid", "time_s", "dir" };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        cr_expect(json_object_get(o, keys[k]), "missing key %s", keys[k]);
    cr_expect_str_eq(json_string_value(json_object_get(o, "kernel")), "artificial");
    cr_expect_eq(json_integer_value(json_object_get(o, "paths")), 4);
    cr_expect_float_eq(json_number_value(json_object_get(o, "coverage")), 100.0, 1e-9);
    cr_expect_eq(json_integer_value(json_object_get(o, "atoms_invalid")), 0);
    cr_expect_str_eq(json_string_value(json_object_get(o, "dir")), dir);
    json_decref(o);
    rm_dir(dir);
}

Test(symexec_cli, deepening_stops_at_full_coverage)
{
    char dir[64];
    tmp_dir(dir, sizeof dir);
    /* bfs2 never covers the tid < n guard's other leg: every X is tried */
    const char *args[] = { "kernels/bfs2.json", "-o", dir, "--quiet", "--time", "20" };
    cr_assert_eq(run_explore(6, args), 0);
    json_t *doc = load_paths(dir);
    cr_expect_eq(json_array_size(json_object_get(doc, "coverage_per_x")), 3);
    cr_expect_eq(json_integer_value(json_object_get(doc, "threads")), 4);
    json_decref(doc);
    rm_dir(dir);
    /* fig1a is covered at X = 2 already */
    tmp_dir(dir, sizeof dir);
    const char *args2[] = { "kernels/fig1a.json", "-o", dir, "--quiet" };
    cr_assert_eq(run_explore(4, args2), 0);
    doc = load_paths(dir);
    cr_expect_eq(json_array_size(json_object_get(doc, "coverage_per_x")), 1);
    json_decref(doc);
    rm_dir(dir);
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
    const char *unsup[] = { "tests/specs/sym_unsupported.json", "--quiet", "-o", "/tmp/wh_sx_cli_unsup" };
    cr_expect_eq(run_explore(4, unsup), 1);
}
