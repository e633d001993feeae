/*
 * test_hunt_hygiene.c — a hunt's fitness under noise and throttling
 * (ga/hunt_measure.c): with --noise-rsd, evaluations take more runs until
 * the fitness's relative standard error is under the bound (never past
 * --max-reps, never on an exact sim); on the fake GPU with the fake NVML,
 * a throttled measurement is taken again, and one that stays throttled is
 * ranked last with fitness 0 and said so.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "tests/support.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char base[64], run[128], out[128], err[128], runjson[160];
} fx;

static void fx_make(fx *f)
{
    snprintf(f->base, sizeof f->base, "/tmp/wh_hygiene_XXXXXX");
    cr_assert(mkdtemp(f->base));
    snprintf(f->run, sizeof f->run, "%s/run", f->base);
    snprintf(f->out, sizeof f->out, "%s/stdout", f->base);
    snprintf(f->err, sizeof f->err, "%s/stderr", f->base);
    snprintf(f->runjson, sizeof f->runjson, "%s/run.json", f->run);
}

static long measurement(json_t *run, const char *key)
{
    json_t *v = json_object_get(json_object_get(run, "measurement"), key);
    cr_assert(json_is_integer(v), "run.json has no measurement.%s", key);
    return (long)json_integer_value(v);
}

static json_t *hunt(fx *f, const char *const *extra, int nextra)
{
    const char *args[32] = { "artificial", "--backend", "sim", "--strategy", "random", "--evals", "20", "--reps",
                             "3", "--sim-noise", "0.03", "--no-explain", "--quiet", "-o", f->run };
    int n = 15;
    for (int i = 0; i < nextra; i++) args[n++] = extra[i];
    cr_assert_eq(ts_run_cmd(cmd_hunt, "hunt", args, n, f->out, f->err), 0, "%s", ts_read_text(f->err));
    return ts_load_json(f->runjson);
}

Test(hunt_hygiene, the_noise_criterion_adds_runs_until_the_fitness_is_quiet_and_stops_at_the_cap)
{
    if (access("build/ptx/kernels/artificial.ptx", R_OK) != 0) cr_skip_test("PTX not built: run `make ptx`");
    fx f;
    fx_make(&f);
    /* without the criterion: exactly --reps runs per evaluation */
    json_t *run = hunt(&f, NULL, 0);
    cr_expect_eq(measurement(run, "runs"), 20 * 3);
    cr_expect_eq(measurement(run, "noisy_evals"), 0);
    json_decref(run);
    ts_rmtree(f.run);

    /* 3 % noise per run needs 9 runs for a 1 % standard error: more runs,
     * none stopped by a cap of 30 */
    const char *quiet[] = { "--noise-rsd", "0.01", "--max-reps", "30" };
    run = hunt(&f, quiet, 4);
    long runs = measurement(run, "runs");
    cr_expect_gt(runs, 20 * 6, "runs %ld", runs);
    cr_expect_leq(runs, 20 * 30);
    cr_expect_gt(measurement(run, "noisy_evals"), 10);
    cr_expect_eq(measurement(run, "noisy_evals_at_max_reps"), 0);
    json_t *opt = json_object_get(run, "options");
    cr_expect_float_eq(json_number_value(json_object_get(opt, "noise_rsd")), 0.01, 1e-12);
    cr_expect_eq(json_integer_value(json_object_get(opt, "max_reps")), 30);
    json_decref(run);
    ts_rmtree(f.run);

    /* a bound the cap cannot reach: every noisy evaluation ends at 6 runs */
    const char *capped[] = { "--noise-rsd", "0.0001", "--max-reps", "6" };
    run = hunt(&f, capped, 4);
    cr_expect_eq(measurement(run, "runs"), 20 * 6);
    cr_expect_eq(measurement(run, "noisy_evals_at_max_reps"), 20);
    json_decref(run);
    ts_rmtree(f.base);
}

static json_t *fake_gpu_hunt(fx *f, const char *every)
{
    if (access("build/ptx/tests/ptx/fake_inc.ptx", R_OK) != 0) cr_skip_test("PTX not built: run `make ptx`");
    char lib[PATH_MAX];
    ts_beside_runner("libfakecuda.so", lib, sizeof lib);
    setenv("WARPHUNT_LIBCUDA", lib, 1);
    ts_beside_runner("libfakenvml.so", lib, sizeof lib);
    setenv("WARPHUNT_LIBNVML", lib, 1);
    setenv("WH_FAKENVML_THROTTLE_EVERY", every, 1);
    const char *args[] = { "tests/specs/cuda_fake_inc.json", "--backend", "cuda", "--strategy", "random",
                           "--evals", "5", "--reps", "1", "--final-reps", "2", "-o", f->run };
    int rc = ts_run_cmd(cmd_hunt, "hunt", args, 13, f->out, f->err);
    unsetenv("WH_FAKENVML_THROTTLE_EVERY");
    cr_assert_eq(rc, 0, "%s", ts_read_text(f->err));
    return ts_load_json(f->runjson);
}

Test(hunt_hygiene, a_throttled_measurement_is_taken_again)
{
    fx f;
    fx_make(&f);
    /* every second clock read is throttled: evaluations 2..5 each retry once */
    json_t *run = fake_gpu_hunt(&f, "2");
    cr_expect_eq(measurement(run, "throttle_retries"), 4);
    cr_expect_eq(measurement(run, "throttled_evals"), 0);
    cr_expect_eq(measurement(run, "runs"), 9);
    cr_expect_gt(json_number_value(json_object_get(json_object_get(run, "best"), "fitness")), 0);
    json_decref(run);
    ts_rmtree(f.base);
}

Test(hunt_hygiene, an_evaluation_that_stays_throttled_is_ranked_last_and_said)
{
    fx f;
    fx_make(&f);
    json_t *run = fake_gpu_hunt(&f, "1");
    cr_expect_eq(measurement(run, "throttled_evals"), 5);
    cr_expect_eq(measurement(run, "throttle_retries"), 5 * 3);
    cr_expect_float_eq(json_number_value(json_object_get(json_object_get(run, "best"), "fitness")), 0, 1e-12);
    cr_expect(strstr(ts_read_text(f.err), "5 evaluations stayed throttled after 4 tries"), "%s", ts_read_text(f.err));
    json_decref(run);
    ts_rmtree(f.base);
}
