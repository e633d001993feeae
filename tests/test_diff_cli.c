/*
 * test_diff_cli.c — `warphunt diff`: two saved inputs of one kernel
 * re-measured interleaved on the sim.  The verdict names the slower one,
 * the JSON summary agrees with the CSV of raw times, an input against
 * itself shows no difference, and inputs of two kernels, a missing
 * directory or a faulting input end the diff with a message naming them.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "core/image.h"
#include "tests/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATHS_SPEC "tests/specs/hunt_paths_small.json"

/* fake_inc: 1000000 is an increment, 1000001 stores through a null pointer */
static int64_t no_fault(uint64_t i)
{
    (void)i;
    return 1000000;
}

static int64_t fault_at_0(uint64_t i)
{
    return i == 0 ? 1000001 : 1000000;
}

typedef struct {
    char base[64];
    char fast[128];    /* an input directory */
    char slow_run[128]; /* a run directory: the input is its best/ */
    char slow[160];
    char out[128], err[128], csv[128];
} inputs;

static void make_inputs(inputs *in)
{
    snprintf(in->base, sizeof in->base, "/tmp/wh_diff_XXXXXX");
    cr_assert(mkdtemp(in->base));
    snprintf(in->fast, sizeof in->fast, "%s/fast", in->base);
    snprintf(in->slow_run, sizeof in->slow_run, "%s/run", in->base);
    snprintf(in->slow, sizeof in->slow, "%s/best", in->slow_run);
    snprintf(in->out, sizeof in->out, "%s/stdout", in->base);
    snprintf(in->err, sizeof in->err, "%s/stderr", in->base);
    snprintf(in->csv, sizeof in->csv, "%s/times.csv", in->base);
    ts_save_pattern_input(PATHS_SPEC, in->fast, ts_value_zero);
    ts_save_pattern_input(PATHS_SPEC, in->slow, ts_value_lane);
}

static int run_diff(const inputs *in, const char *const *args, int n)
{
    return ts_run_cmd(cmd_diff, "diff", args, n, in->out, in->err);
}

static double number(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    cr_assert(json_is_number(v), "\"%s\" is not a number", key);
    return json_number_value(v);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The CSV's column col (1: a, 2: b), rows checked in order; their count. */
static int csv_column(const char *path, int col, double *out, int max)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "no CSV at %s", path);
    char line[256];
    cr_assert(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "round,a,b\n");
    int n = 0, round;
    double v[2];
    while (n < max && fscanf(f, "%d,%lf,%lf\n", &round, &v[0], &v[1]) == 3) {
        cr_expect_eq(round, n + 1);
        out[n++] = v[col - 1];
    }
    fclose(f);
    return n;
}

/* The JSON summary of one input against the CSV's column of its times. */
static void expect_side_matches_csv(json_t *side, const char *csv, int col, int reps)
{
    double t[64];
    cr_assert_eq(csv_column(csv, col, t, 64), reps, "one CSV row per round");
    double sum = 0;
    for (int i = 0; i < reps; i++) sum += t[i];
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    double median = reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
    cr_expect_float_eq(number(side, "mean"), sum / reps, 1e-8 * sum / reps);
    cr_expect_float_eq(number(side, "median"), median, 1e-8 * median);
    cr_expect_float_eq(number(side, "min"), t[0], 1e-8 * t[0]);
    cr_expect_float_eq(number(side, "max"), t[reps - 1], 1e-8 * t[reps - 1]);
    cr_expect(json_is_number(json_object_get(side, "stddev")));
}

Test(diff_cli, the_slower_input_is_named_and_the_json_matches_the_csv)
{
    ts_need_ptx("build/ptx/kernels/gt_paths32.ptx");
    inputs in;
    make_inputs(&in);
    const char *args[] = { in.fast, in.slow_run, "--backend", "sim", "--reps", "7", "--json", "--csv", in.csv };
    cr_assert_eq(run_diff(&in, args, 9), 0, "%s", ts_read_text(in.err));
    const char *text = ts_read_text(in.err);
    cr_expect(strstr(text, "B is slower"), "%s", text);
    cr_expect(strstr(text, "the sim is deterministic: one rep each would do"), "%s", text);

    json_t *doc = ts_load_json(in.out);
    static const char *const keys[] = { "kernel", "spec", "backend", "device", "unit", "reps", "a", "b",
                                        "ratio_median", "a12", "p_value", "exact", "alpha", "verdict" };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        cr_expect(json_object_get(doc, keys[k]), "no \"%s\" in the JSON", keys[k]);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "kernel")), "hunt_paths_small");
    cr_expect_str_eq(json_string_value(json_object_get(doc, "backend")), "sim");
    cr_expect_str_eq(json_string_value(json_object_get(doc, "unit")), "cycles");
    cr_expect_eq(json_integer_value(json_object_get(doc, "reps")), 7);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "verdict")), "b_slower");
    /* every run of A is shorter than every run of B: A12 (A against B) 0,
     * and 7 against 7 with no overlap gives the exact p 2 / C(14, 7) */
    cr_expect_float_eq(number(doc, "a12"), 0, 1e-12);
    cr_expect_float_eq(number(doc, "p_value"), 2.0 / 3432, 1e-9);
    cr_expect(json_is_true(json_object_get(doc, "exact")));
    cr_expect_float_eq(number(doc, "alpha"), 0.05, 1e-12);
    json_t *a = json_object_get(doc, "a"), *b = json_object_get(doc, "b");
    cr_expect_str_eq(json_string_value(json_object_get(a, "input")), in.fast);
    cr_expect_str_eq(json_string_value(json_object_get(b, "input")), in.slow, "a run directory stands for its best/");
    expect_side_matches_csv(a, in.csv, 1, 7);
    expect_side_matches_csv(b, in.csv, 2, 7);
    cr_expect_gt(number(b, "median"), number(a, "median"));
    cr_expect_float_eq(number(doc, "ratio_median"), number(b, "median") / number(a, "median"), 1e-8);
    json_decref(doc);

    /* the other way round, the other verdict */
    const char *swapped[] = { in.slow, in.fast, "--backend", "sim", "--reps", "5", "--json" };
    cr_assert_eq(run_diff(&in, swapped, 7), 0, "%s", ts_read_text(in.err));
    cr_expect(strstr(ts_read_text(in.err), "A is slower"), "%s", ts_read_text(in.err));
    doc = ts_load_json(in.out);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "verdict")), "a_slower");
    cr_expect_float_eq(number(doc, "a12"), 1, 1e-12);
    json_decref(doc);
    ts_rmtree(in.base);
}

Test(diff_cli, an_input_against_itself_shows_no_difference)
{
    ts_need_ptx("build/ptx/kernels/gt_paths32.ptx");
    inputs in;
    make_inputs(&in);
    const char *args[] = { in.slow_run, in.slow, "--backend", "sim", "--reps", "5", "--json" };
    cr_assert_eq(run_diff(&in, args, 7), 0, "%s", ts_read_text(in.err));
    const char *text = ts_read_text(in.err);
    cr_expect(strstr(text, "no significant difference at alpha 0.05 (p = 1)"), "%s", text);
    cr_expect(strstr(text, "the sim is deterministic"), "%s", text);
    json_t *doc = ts_load_json(in.out);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "verdict")), "no_difference");
    cr_expect_float_eq(number(doc, "a12"), 0.5, 1e-12);
    cr_expect_float_eq(number(doc, "p_value"), 1, 1e-12);
    cr_expect_float_eq(number(doc, "ratio_median"), 1, 1e-12);
    json_decref(doc);
    ts_rmtree(in.base);
}

/* Inputs of two kernels cannot be ranked against each other unless --spec
 * says how to run both; no harness is opened before that is known. */
Test(diff_cli, inputs_of_two_kernels_need_spec)
{
    inputs in;
    make_inputs(&in);
    char other[128];
    snprintf(other, sizeof other, "%s/loop", in.base);
    ts_save_pattern_input("tests/specs/hunt_loop_small.json", other, ts_value_zero);
    const char *args[] = { in.fast, other, "--backend", "sim" };
    cr_expect_eq(run_diff(&in, args, 4), 1);
    const char *text = ts_read_text(in.err);
    cr_expect(strstr(text, "'hunt_paths_small'") && strstr(text, "'hunt_loop_small'"), "both named: %s", text);
    cr_expect(strstr(text, "give --spec"), "%s", text);
    ts_rmtree(in.base);
}

Test(diff_cli, a_missing_input_and_usage_errors)
{
    inputs in;
    make_inputs(&in);
    char missing[128];
    snprintf(missing, sizeof missing, "%s/nowhere", in.base);
    const char *args[] = { in.fast, missing, "--backend", "sim" };
    cr_expect_eq(run_diff(&in, args, 4), 1);
    const char *text = ts_read_text(in.err);
    cr_expect(strstr(text, missing) && strstr(text, "no saved input"), "the missing one named: %s", text);

    const char *one[] = { in.fast };
    cr_expect_eq(run_diff(&in, one, 1), 1);
    cr_expect(strstr(ts_read_text(in.err), "--help` lists the options"), "%s", ts_read_text(in.err));
    const char *no_reps[] = { in.fast, in.fast, "--reps", "0" };
    cr_expect_eq(run_diff(&in, no_reps, 4), 1);
    const char *help[] = { "--help" };
    cr_expect_eq(run_diff(&in, help, 1), 0);
    cr_expect(strstr(ts_read_text(in.out), "usage: warphunt diff RUN_A RUN_B"), "%s", ts_read_text(in.out));
    ts_rmtree(in.base);
}

/* A fault has no time to rank: the diff ends with the kernel's message,
 * naming the input and the round, exit status 2. */
Test(diff_cli, a_faulting_input_ends_the_diff)
{
    ts_need_ptx("build/ptx/tests/ptx/fake_inc.ptx");
    inputs in;
    make_inputs(&in);
    char ok[128], bad[128];
    snprintf(ok, sizeof ok, "%s/ok", in.base);
    snprintf(bad, sizeof bad, "%s/bad", in.base);
    ts_save_pattern_input("tests/specs/fault_small.json", ok, no_fault);
    ts_save_pattern_input("tests/specs/fault_small.json", bad, fault_at_0);
    const char *args[] = { ok, bad, "--backend", "sim", "--reps", "3", "--json" };
    cr_expect_eq(run_diff(&in, args, 7), 2);
    const char *text = ts_read_text(in.err);
    cr_expect(strstr(text, bad) && strstr(text, "B, round 1: fault"), "%s", text);
    cr_expect_str_eq(ts_read_text(in.out), "", "no summary of a diff that did not finish");
    ts_rmtree(in.base);
}
