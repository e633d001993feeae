/*
 * test_campaign_cli.c — `warphunt campaign` and `warphunt pwcet` end to
 * end: on the sim with emulated noise (a run's top inputs interleaved,
 * every sample in campaign.csv, the summary agreeing with it, then a pWCET
 * report whose fits lie above the measured maximum), and on the fake CUDA
 * driver with the fake NVML (throttled samples flagged and left out,
 * clocks recorded, and said to be unknown when NVML is missing).
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "core/image.h"
#include "tests/fakecuda/fakecuda.h"
#include "tests/support.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PATHS_SPEC "tests/specs/hunt_paths_small.json"
#define FAKE_SPEC "tests/specs/cuda_fake_inc.json"
#define SIM_RUNS 120

typedef struct {
    char base[64], run[128], out[128], err[128], campaign[160];
} fx;

static int64_t increment(uint64_t i)
{
    (void)i;
    return 1000000;
}

static void fx_make(fx *f)
{
    snprintf(f->base, sizeof f->base, "/tmp/wh_campaign_XXXXXX");
    cr_assert(mkdtemp(f->base));
    snprintf(f->run, sizeof f->run, "%s/run", f->base);
    snprintf(f->out, sizeof f->out, "%s/stdout", f->base);
    snprintf(f->err, sizeof f->err, "%s/stderr", f->base);
    snprintf(f->campaign, sizeof f->campaign, "%s/campaign", f->run);
}

/* A run directory as hunt --keep 2 leaves it: best/ = top/01, top/02. */
static void make_sim_run(fx *f)
{
    char dir[200];
    snprintf(dir, sizeof dir, "%s/best", f->run);
    ts_save_pattern_input(PATHS_SPEC, dir, ts_value_lane);
    snprintf(dir, sizeof dir, "%s/top/01", f->run);
    ts_save_pattern_input(PATHS_SPEC, dir, ts_value_lane);
    snprintf(dir, sizeof dir, "%s/top/02", f->run);
    ts_save_pattern_input(PATHS_SPEC, dir, ts_value_zero);
}

typedef struct {
    char input[32], unit[16], flags[16];
    long run, seq;
    double time, sm_mhz, default_mhz;
} row;

/* campaign.csv's rows (header checked). */
static int read_rows(const char *path, row *rows, int max)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "no %s", path);
    char line[512];
    cr_assert(fgets(line, sizeof line, f));
    cr_expect_str_eq(line, "input,run,seq,time,unit,sm_mhz,default_sm_mhz,reasons,temperature_c,flags\n");
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        row *r = &rows[n++];
        memset(r, 0, sizeof *r);
        char *save = NULL, *fields[10];
        int k = 0;
        for (char *p = line, *tok; k < 10 && (tok = strsep(&p, ",\n")) != NULL; k++) fields[k] = tok;
        (void)save;
        cr_assert_eq(k, 10, "row %d: %d fields", n, k);
        snprintf(r->input, sizeof r->input, "%s", fields[0]);
        r->run = atol(fields[1]);
        r->seq = atol(fields[2]);
        r->time = fields[3][0] ? atof(fields[3]) : NAN;
        snprintf(r->unit, sizeof r->unit, "%s", fields[4]);
        r->sm_mhz = fields[5][0] ? atof(fields[5]) : NAN;
        r->default_mhz = fields[6][0] ? atof(fields[6]) : NAN;
        snprintf(r->flags, sizeof r->flags, "%s", fields[9]);
    }
    fclose(f);
    return n;
}

static json_t *input_named(json_t *doc, const char *name)
{
    json_t *inputs = json_object_get(doc, "inputs"), *v;
    size_t i;
    json_array_foreach(inputs, i, v)
        if (!strcmp(json_string_value(json_object_get(v, "name")), name)) return v;
    cr_assert_fail("no input %s in the summary", name);
    return NULL;
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_number(v), "\"%s\" is not a number", key);
    return json_number_value(v);
}

Test(campaign_cli, sim_campaign_interleaves_the_top_inputs_and_pwcet_fits_its_tail)
{
    ts_need_ptx("build/ptx/kernels/gt_paths32.ptx");
    fx f;
    fx_make(&f);
    make_sim_run(&f);
    char runs[16];
    snprintf(runs, sizeof runs, "%d", SIM_RUNS);
    const char *args[] = { f.run, "--backend", "sim", "--sim-noise", "0.02", "--runs", runs, "--json" };
    cr_assert_eq(ts_run_cmd(cmd_campaign, "campaign", args, 8, f.out, f.err), 0, "%s", ts_read_text(f.err));

    static row rows[2 * SIM_RUNS + 8];
    char csv[256];
    snprintf(csv, sizeof csv, "%s/campaign.csv", f.campaign);
    int n = read_rows(csv, rows, 2 * SIM_RUNS + 8);
    cr_assert_eq(n, 2 * SIM_RUNS, "one row per sample: %d", n);
    double sum[2] = { 0, 0 }, max[2] = { 0, 0 };
    for (int i = 0; i < n; i++) {
        cr_expect_eq(rows[i].seq, i + 1);
        cr_expect_eq(rows[i].run, i / 2 + 1, "round %ld at row %d: each round runs every input once", rows[i].run, i);
        int which = !strcmp(rows[i].input, "top/02");
        cr_expect(which || !strcmp(rows[i].input, "top/01"), "input %s", rows[i].input);
        if (i % 2) cr_expect_str_neq(rows[i].input, rows[i - 1].input, "both inputs in round %ld", rows[i].run);
        cr_expect_str_eq(rows[i].unit, "cycles");
        cr_expect_str_eq(rows[i].flags, "");
        cr_expect(rows[i].sm_mhz > 0 && rows[i].sm_mhz == rows[i].default_mhz, "the sim's clock is its profile's");
        sum[which] += rows[i].time;
        if (rows[i].time > max[which]) max[which] = rows[i].time;
    }
    json_t *doc = ts_load_json(f.out);
    cr_expect(json_is_true(json_object_get(doc, "clocks_known")));
    cr_expect(json_is_true(json_object_get(doc, "interleave")));
    json_t *a = input_named(doc, "top/01"), *b = input_named(doc, "top/02");
    cr_expect_eq(num(a, "samples"), SIM_RUNS);
    cr_expect_float_eq(num(a, "mean"), sum[0] / SIM_RUNS, 1e-6 * sum[0] / SIM_RUNS);
    cr_expect_float_eq(num(b, "max"), max[1], 1e-6 * max[1]);
    cr_expect_gt(num(a, "mean"), num(b, "mean"), "all lanes on their own leaves are slower");
    cr_expect(num(a, "rsd") > 0.005 && num(a, "rsd") < 0.05, "noise 0.02 gives rsd near 2 %%: %g", num(a, "rsd"));
    json_decref(doc);

    /* pwcet of the campaign: the hardest input by default */
    const char *pargs[] = { f.campaign, "--bootstrap", "50", "--json" };
    cr_assert_eq(ts_run_cmd(cmd_pwcet, "pwcet", pargs, 4, f.out, f.err), 0, "%s", ts_read_text(f.err));
    doc = ts_load_json(f.out);
    json_t *inputs = json_object_get(doc, "inputs");
    cr_assert_eq(json_array_size(inputs), 1);
    json_t *one = json_array_get(inputs, 0);
    cr_expect_str_eq(json_string_value(json_object_get(one, "name")), "top/01");
    json_t *rep = json_object_get(one, "report");
    cr_expect_eq(num(rep, "n"), SIM_RUNS);
    json_t *fit, *fits = json_object_get(rep, "fits");
    size_t i;
    int ok = 0;
    json_array_foreach(fits, i, fit) {
        if (!json_is_true(json_object_get(fit, "ok"))) continue;
        ok++;
        json_t *curve = json_object_get(fit, "pwcet");
        double prev = 0;
        for (size_t k = 0; k < json_array_size(curve); k++) {
            double v = num(json_array_get(curve, k), "value");
            cr_expect_geq(v, prev, "%s: the pWCET grows as p falls", json_string_value(json_object_get(fit, "name")));
            prev = v;
        }
        /* p = 1e-9 per run lies beyond 120 samples' maximum */
        cr_expect_gt(num(json_array_get(curve, 6), "value"), max[0] * 0.999, "%s",
                     json_string_value(json_object_get(fit, "name")));
    }
    cr_expect_geq(ok, 4, "at least the block-maxima and POT fits succeed on 120 noisy samples");
    json_decref(doc);
    char path[300];
    snprintf(path, sizeof path, "%s/pwcet.md", f.campaign);
    cr_expect(strstr(ts_read_text(path), "| gev-mle |"), "%s", ts_read_text(path));
    snprintf(path, sizeof path, "%s/pwcet-top-01.gp", f.campaign);
    cr_expect(access(path, R_OK) == 0, "the plot's script");
    snprintf(path, sizeof path, "%s/top-01.samples.txt", f.campaign);
    int lines = 0;
    for (const char *t = ts_read_text(path); *t; t++) lines += *t == '\n';
    cr_expect_eq(lines, SIM_RUNS, "one kept time per line");
    ts_rmtree(f.base);
}

Test(campaign_cli, pwcet_refuses_too_few_samples_and_names_a_bad_line)
{
    fx f;
    fx_make(&f);
    char path[200];
    snprintf(path, sizeof path, "%s/times.txt", f.base);
    FILE *t = fopen(path, "w");
    cr_assert(t);
    for (int i = 0; i < 50; i++) fprintf(t, "%d\n", 1000 + i);
    fclose(t);
    const char *args[] = { path };
    cr_expect_eq(ts_run_cmd(cmd_pwcet, "pwcet", args, 1, f.out, f.err), 1);
    cr_expect(strstr(ts_read_text(f.err), "100 samples"), "%s", ts_read_text(f.err));

    t = fopen(path, "a");
    fprintf(t, "12x\n");
    fclose(t);
    cr_expect_eq(ts_run_cmd(cmd_pwcet, "pwcet", args, 1, f.out, f.err), 1);
    char want[256];
    snprintf(want, sizeof want, "%s:51", path);
    cr_expect(strstr(ts_read_text(f.err), want) && strstr(ts_read_text(f.err), "12x"), "%s", ts_read_text(f.err));
    ts_rmtree(f.base);
}

static void fake_gpu(fx *f, const char *nvml)
{
    ts_need_ptx("build/ptx/tests/ptx/fake_inc.ptx");
    char lib[PATH_MAX];
    ts_beside_runner("libfakecuda.so", lib, sizeof lib);
    setenv("WARPHUNT_LIBCUDA", lib, 1);
    if (nvml) {
        ts_beside_runner(nvml, lib, sizeof lib);
        setenv("WARPHUNT_LIBNVML", lib, 1);
    } else {
        setenv("WARPHUNT_LIBNVML", "/nonexistent/libnvidia-ml.so.1", 1);
    }
    unsetenv(FAKECUDA_LOG_ENV);
    fx_make(f);
    char dir[200];
    snprintf(dir, sizeof dir, "%s/best", f->run);
    ts_save_pattern_input(FAKE_SPEC, dir, increment);
}

/* The fake's launches vary by up to 2 us (WH_FAKECUDA_JITTER_NS) and every
 * fifth clock read is throttled: 125 runs keep 100, enough for pwcet, whose
 * report and exported samples hold the kept ones only. */
Test(campaign_cli, fake_gpu_throttled_samples_are_flagged_and_left_out_of_the_pwcet)
{
    fx f;
    fake_gpu(&f, "libfakenvml.so");
    setenv("WH_FAKENVML_THROTTLE_EVERY", "5", 1);
    setenv(FAKECUDA_JITTER_ENV, "2000", 1);
    const char *args[] = { f.run, "--backend", "cuda", "--runs", "125", "--warmup", "0", "--json" };
    int rc = ts_run_cmd(cmd_campaign, "campaign", args, 8, f.out, f.err);
    unsetenv("WH_FAKENVML_THROTTLE_EVERY");
    unsetenv(FAKECUDA_JITTER_ENV);
    cr_assert_eq(rc, 0, "%s", ts_read_text(f.err));
    static row rows[160];
    char csv[256];
    snprintf(csv, sizeof csv, "%s/campaign.csv", f.campaign);
    cr_assert_eq(read_rows(csv, rows, 160), 125);
    int throttled = 0;
    double lo = 1e300, hi = 0;
    for (int i = 0; i < 125; i++) {
        bool want = (i + 1) % 5 == 0;
        throttled += want;
        cr_expect_str_eq(rows[i].flags, want ? "throttled" : "", "sample %d", i + 1);
        cr_expect_float_eq(rows[i].default_mhz, FAKECUDA_CLOCK_KHZ / 1000, 1e-9);
        cr_expect(want ? rows[i].sm_mhz < 0.75 * rows[i].default_mhz : rows[i].sm_mhz == rows[i].default_mhz);
        cr_expect_str_eq(rows[i].unit, "us");
        if (rows[i].time < lo) lo = rows[i].time;
        if (rows[i].time > hi) hi = rows[i].time;
    }
    cr_expect(hi - lo > 0.5 && hi - lo <= 2.0 + 1e-3, "the fake's jitter spreads the times: %g..%g us", lo, hi);
    json_t *doc = ts_load_json(f.out);
    json_t *in = input_named(doc, "best");
    cr_expect_eq(num(in, "throttled"), throttled);
    cr_expect_eq(num(in, "samples"), 125 - throttled, "throttled samples are not in the statistics");
    cr_expect(json_is_true(json_object_get(doc, "clocks_known")));
    json_decref(doc);

    const char *pargs[] = { f.campaign, "--json", "--bootstrap", "20" };
    cr_assert_eq(ts_run_cmd(cmd_pwcet, "pwcet", pargs, 4, f.out, f.err), 0, "%s", ts_read_text(f.err));
    doc = ts_load_json(f.out);
    json_t *one = json_array_get(json_object_get(doc, "inputs"), 0);
    cr_expect_eq(num(one, "throttled_left_out"), 25);
    json_t *rep = json_object_get(one, "report");
    cr_expect_eq(num(rep, "n"), 100);
    cr_expect_leq(num(rep, "max"), hi);
    json_t *gumbel = json_array_get(json_object_get(rep, "fits"), 2);
    cr_expect_str_eq(json_string_value(json_object_get(gumbel, "name")), "gumbel-mle");
    cr_expect(json_is_true(json_object_get(gumbel, "ok")));
    cr_expect_str_eq(json_string_value(json_object_get(doc, "unit")), "us");
    json_decref(doc);
    char path[300];
    snprintf(path, sizeof path, "%s/best.samples.txt", f.campaign);
    int lines = 0;
    for (const char *t = ts_read_text(path); *t; t++) lines += *t == '\n';
    cr_expect_eq(lines, 100, "the kept samples only");
    ts_rmtree(f.base);
}

Test(campaign_cli, fake_gpu_without_nvml_records_no_clocks_and_says_why)
{
    fx f;
    fake_gpu(&f, NULL);
    const char *args[] = { f.run, "--backend", "cuda", "--runs", "3", "--json" };
    cr_assert_eq(ts_run_cmd(cmd_campaign, "campaign", args, 6, f.out, f.err), 0, "%s", ts_read_text(f.err));
    json_t *doc = ts_load_json(f.out);
    cr_expect(json_is_false(json_object_get(doc, "clocks_known")));
    const char *why = json_string_value(json_object_get(doc, "clocks_unknown_why"));
    cr_expect(why && strstr(why, "/nonexistent/libnvidia-ml.so.1") && strstr(why, "WARPHUNT_LIBNVML"), "%s",
              why ? why : "(none)");
    cr_expect(strstr(ts_read_text(f.err), "clocks not recorded"), "%s", ts_read_text(f.err));
    json_decref(doc);
    static row rows[8];
    char csv[256];
    snprintf(csv, sizeof csv, "%s/campaign.csv", f.campaign);
    cr_assert_eq(read_rows(csv, rows, 8), 3);
    for (int i = 0; i < 3; i++) cr_expect(isnan(rows[i].sm_mhz) && rows[i].time > 0);
    ts_rmtree(f.base);
}

Test(campaign_cli, a_directory_without_inputs_is_refused)
{
    fx f;
    fx_make(&f);
    const char *args[] = { f.base, "--backend", "sim", "--runs", "5" };
    cr_expect_eq(ts_run_cmd(cmd_campaign, "campaign", args, 5, f.out, f.err), 1);
    cr_expect(strstr(ts_read_text(f.err), f.base), "%s", ts_read_text(f.err));
    ts_rmtree(f.base);
}
