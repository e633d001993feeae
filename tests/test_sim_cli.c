/*
 * test_sim_cli.c — `warphunt measure` end to end (cmd_measure called in the
 * test process with its stdout captured): the JSON summary, saved inputs
 * and outputs, replaying a saved input, a stopped kernel still exiting 0,
 * and option errors.
 */
#include "cli/cli.h"
#include "tests/sim_support.h"
#include "tests/support.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Run cmd_measure with argv; stdout goes to `out_path` (if not NULL). */
static int run_measure(const char *out_path, const char **args, int nargs)
{
    return ts_run_cmd(cmd_measure, "measure", args, nargs, out_path, NULL);
}

static bool ptx_built(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "build/ptx/kernels/%s.ptx", name);
    return access(path, R_OK) == 0;
}

Test(sim_cli, measure_json_outputs_and_replay)
{
    if (!ptx_built("fig1b"))
        cr_skip_test("fig1b PTX not built: run make ptx");
    char dir[] = "/tmp/wh_sim_cliXXXXXX";
    tsim_mkdtemp(dir);
    char outdir[300], js[300], js2[300];
    snprintf(outdir, sizeof outdir, "%s/run", dir);
    snprintf(js, sizeof js, "%s/a.json", dir);
    snprintf(js2, sizeof js2, "%s/b.json", dir);
    const char *a1[] = { "kernels/fig1b.json", "--backend", "sim", "--json", "--quiet", "--reps", "4",
                         "--random", "3", "--outputs", outdir };
    cr_assert_eq(run_measure(js, a1, 11), 0);
    json_t *j = ts_load_json(js);
    static const char *keys[] = { "backend", "device", "unit", "reps", "mean", "min", "median", "max",
                                  "stddev", "status", "cycles", "us", "warp_instructions", "lane_instructions" };
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        cr_assert(json_object_get(j, keys[k]), "no key %s", keys[k]);
    cr_assert_str_eq(json_string_value(json_object_get(j, "backend")), "sim");
    cr_assert_str_eq(json_string_value(json_object_get(j, "unit")), "cycles");
    cr_assert_str_eq(json_string_value(json_object_get(j, "status")), "ok");
    cr_assert_eq(json_integer_value(json_object_get(j, "reps")), 4);
    cr_assert_eq(json_integer_value(json_object_get(j, "seed")), 3);
    json_int_t cycles = json_integer_value(json_object_get(j, "cycles"));
    cr_assert_gt(cycles, 0);
    cr_assert_eq(json_real_value(json_object_get(j, "mean")), (double)cycles);
    cr_assert_gt(json_real_value(json_object_get(j, "wall_s")), 0, "the harness's own wall time is measured");
    json_decref(j);

    char path[400];
    struct stat st;
    snprintf(path, sizeof path, "%s/out.bin", outdir);
    cr_assert(stat(path, &st) == 0 && st.st_size == 128 * 256 * 4, "out.bin");
    snprintf(path, sizeof path, "%s/acc.bin", outdir);
    cr_assert(stat(path, &st) == 0 && st.st_size == 4, "acc.bin");
    snprintf(path, sizeof path, "%s/manifest.json", outdir);
    cr_assert(stat(path, &st) == 0);

    /* the saved input gives the same time */
    const char *a2[] = { "kernels/fig1b.json", "--backend", "sim", "--json", "--quiet", "--input", outdir };
    cr_assert_eq(run_measure(js2, a2, 7), 0);
    j = ts_load_json(js2);
    cr_assert_eq(json_integer_value(json_object_get(j, "cycles")), cycles);
    cr_assert(json_is_null(json_object_get(j, "seed")));
    json_decref(j);

    /* a run directory stands for its best/ (the saved input moved there);
     * --check on the sim is skipped, not a comparison of the sim with itself */
    char best[420], errp[300];
    snprintf(best, sizeof best, "%s/best", outdir);
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    cr_assert_eq(mkdir(best, 0755), 0);
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "mv '%s'/manifest.json '%s'/*.bin '%s'/", outdir, outdir, best);
    cr_assert_eq(system(cmd), 0);
    const char *a3[] = { "kernels/fig1b.json", "--backend", "sim", "--json", "--quiet", "--input", outdir,
                         "--check" };
    cr_assert_eq(ts_run_cmd(cmd_measure, "measure", a3, 8, js2, errp), 0);
    j = ts_load_json(js2);
    cr_expect_eq(json_integer_value(json_object_get(j, "cycles")), cycles);
    cr_expect_null(json_object_get(j, "check"), "no check against itself");
    json_decref(j);
    snprintf(cmd, sizeof cmd, "grep -q 'check skipped: the backend is the sim' '%s'", errp);
    cr_expect_eq(system(cmd), 0, "--check says it was skipped");

    /* replay --json names what it replayed */
    const char *a4[] = { outdir, "--backend", "sim", "--json", "--quiet", "--reps", "2" };
    cr_assert_eq(ts_run_cmd(cmd_replay, "replay", a4, 7, js2, NULL), 0);
    j = ts_load_json(js2);
    cr_expect_str_eq(json_string_value(json_object_get(j, "kernel")), "fig1b");
    cr_expect(strstr(json_string_value(json_object_get(j, "spec")), "fig1b.json"));
    cr_expect_str_eq(json_string_value(json_object_get(j, "input")), best);
    cr_expect_eq(json_real_value(json_object_get(j, "mean")), (double)cycles);
    json_decref(j);
    ts_rmtree(dir);
}

Test(sim_cli, stopped_kernel_exits_zero_with_its_status)
{
    if (!ptx_built("gt_loop"))
        cr_skip_test("gt_loop PTX not built: run make ptx");
    char js[] = "/tmp/wh_sim_cli_jsonXXXXXX";
    int fd = mkstemp(js);
    cr_assert(fd >= 0);
    close(fd);
    const char *a[] = { "kernels/gt_loop.json", "--backend", "sim", "--json", "--quiet", "--step-limit", "1000" };
    cr_assert_eq(run_measure(js, a, 7), 0);
    json_t *j = ts_load_json(js);
    cr_assert_str_eq(json_string_value(json_object_get(j, "status")), "timeout");
    cr_assert(strstr(json_string_value(json_object_get(j, "message")), "step limit of 1000"));
    cr_assert_eq(json_integer_value(json_object_get(j, "reps")), 0);
    json_decref(j);
    unlink(js);
}

Test(sim_cli, option_errors)
{
    const char *help[] = { "--help" };
    cr_assert_eq(run_measure("/dev/null", help, 1), 0);
    const char *none[] = { "--json" };
    cr_assert_eq(run_measure(NULL, none, 1), 1);
    const char *both[] = { "kernels/fig1b.json", "--input", "x", "--random", "2" };
    cr_assert_eq(run_measure(NULL, both, 5), 1);
    const char *reps[] = { "kernels/fig1b.json", "--reps", "zero" };
    cr_assert_eq(run_measure(NULL, reps, 3), 1);
    const char *backend[] = { "kernels/fig1b.json", "--backend", "fpga" };
    cr_assert_eq(run_measure(NULL, backend, 3), 1);
    const char *spec[] = { "kernels/no_such_kernel.json", "--backend", "sim" };
    cr_assert_eq(run_measure(NULL, spec, 3), 1);
    const char *prof[] = { "kernels/fig1b.json", "--backend", "sim", "--profile", "/no/such/profile.json" };
    cr_assert_eq(run_measure(NULL, prof, 5), 1);
    /* counts are whole numbers; the help's own "2e9" notation is one */
    const char *frac[] = { "kernels/fig1b.json", "--backend", "sim", "--step-limit", "1.5" };
    cr_assert_eq(run_measure(NULL, frac, 5), 1);
    const char *warm[] = { "kernels/fig1b.json", "--warmup", "-1" };
    cr_assert_eq(run_measure(NULL, warm, 3), 1);
}

Test(sim_cli, step_limit_in_the_helps_notation)
{
    if (!ptx_built("fig1b"))
        cr_skip_test("fig1b PTX not built: run make ptx");
    char js[] = "/tmp/wh_sim_cli_jsonXXXXXX";
    int fd = mkstemp(js);
    cr_assert(fd >= 0);
    close(fd);
    const char *a[] = { "kernels/fig1b.json", "--backend", "sim", "--json", "--quiet", "--step-limit", "2e9" };
    cr_assert_eq(run_measure(js, a, 7), 0);
    json_t *j = ts_load_json(js);
    cr_assert_str_eq(json_string_value(json_object_get(j, "status")), "ok");
    json_decref(j);
    unlink(js);
}

/* A bundled kernel is found by its name, from any working directory, and
 * an unknown name says where it was looked for. */
Test(sim_cli, a_bundled_kernel_is_found_by_name)
{
    if (!ptx_built("fig1b")) cr_skip_test("fig1b PTX not built: run make ptx");
    wh_error err;
    wh_spec *s = cli_load_spec("fig1b", &err);
    cr_assert(s, "%s", err.msg);
    cr_expect_str_eq(s->name, "fig1b");
    wh_spec_free(s);
    s = cli_load_spec("spmv_scalar", &err);
    cr_assert(s, "the corpus too: %s", err.msg);
    wh_spec_free(s);
    cr_expect_null(cli_load_spec("no_such_kernel", &err));
    cr_expect(strstr(err.msg, "no bundled kernel of that name") && strstr(err.msg, "kernels/corpus/no_such_kernel.json"),
              "%s", err.msg);
}

