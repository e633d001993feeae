/*
 * test_explain.c — `warphunt explain` and harness_explain on the sim: on
 * ground-truth kernels the report names the cause their headers give
 * (same-address atomics, divergence, uncoalesced sectors, bank conflicts,
 * loop trip count, probe length); an input against itself adds nothing;
 * --by ptx ranks PTX lines; the JSON has its keys and its counts add up
 * (issued warp instructions to the run's total, every warp's cycles to its
 * life); --backend cuda puts the GPU's times (the fake driver's) beside
 * the sim's and says whether they rank the two inputs alike, or why it
 * cannot; the pictures draw
 * every warp (or, for a large launch, buckets that keep every
 * warp-cycle), outline the critical warp and give each line a row, and
 * --png makes PNGs of them.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "cli/explain_gpu.h"
#include "cli/explain_svg.h"
#include "harness/cuda/api.h"
#include "core/image.h"
#include "harness/harness.h"
#include "tests/support.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A temporary directory with the input and the reference saved in it. */
typedef struct {
    char base[64];
    char input[128], reference[128];
    char out[128], err[128], outdir[128];
} explain_dirs;

static void need_ptx(const char *ptx)
{
    if (access(ptx, R_OK) != 0) cr_skip_test("PTX not built (%s): run `make ptx`", ptx);
}

/* The spec's input (first buffer = input(i)) and reference (reference(i)),
 * saved under a fresh temporary directory; the test skips when the PTX is
 * not built. */
static void make_dirs(explain_dirs *d, const char *spec_path, const char *ptx, int64_t (*input)(uint64_t),
                      int64_t (*reference)(uint64_t))
{
    need_ptx(ptx);
    snprintf(d->base, sizeof d->base, "/tmp/wh_explain_XXXXXX");
    cr_assert(mkdtemp(d->base));
    static const char *const names[] = { "input", "reference", "stdout", "stderr", "report" };
    char *paths[] = { d->input, d->reference, d->out, d->err, d->outdir };
    for (int k = 0; k < 5; k++)
        snprintf(paths[k], sizeof d->input, "%s/%s", d->base, names[k]);
    wh_error err;
    wh_spec *s = wh_spec_load(spec_path, &err);
    cr_assert(s, "%s", err.msg);
    int64_t (*values[2])(uint64_t) = { input, reference };
    for (int k = 0; k < 2; k++) {
        wh_image *img = ts_pattern_image(s, values[k]);
        cr_assert(wh_image_save(img, paths[k], &err), "%s", err.msg);
        wh_image_free(img);
    }
    wh_spec_free(s);
}

/* explain DIR with args; its exit status (stdout, stderr in d->out, d->err). */
static int run_explain(const explain_dirs *d, const char *const *args, int n)
{
    return ts_run_cmd(cmd_explain, "explain", args, n, d->out, d->err);
}

/* explain input(i) against reference(i) of the spec --by BY; the JSON,
 * asserted (done() frees it and the directory). */
static json_t *explain_pair(explain_dirs *d, const char *spec_path, const char *ptx, int64_t (*input)(uint64_t),
                            int64_t (*reference)(uint64_t), const char *by)
{
    make_dirs(d, spec_path, ptx, input, reference);
    const char *args[] = { d->input, "--against", d->reference, "--by", by, "-o", d->outdir, "--json" };
    cr_assert_eq(run_explain(d, args, 8), 0, "%s", ts_read_text(d->err));
    return ts_load_json(d->out);
}

static void done(explain_dirs *d, json_t *doc)
{
    json_decref(doc);
    ts_rmtree(d->base);
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_number(v), "\"%s\" is not a number", key);
    return json_number_value(v);
}

/* rows[i].side.key */
static double row_num(json_t *doc, size_t i, const char *side, const char *key)
{
    return num(json_object_get(json_array_get(json_object_get(doc, "rows"), i), side), key);
}

/* rows[0].key: want in the input, ref_want in the reference */
static void expect_top(json_t *doc, const char *key, double want, double ref_want)
{
    cr_expect_float_eq(row_num(doc, 0, "input", key), want, 1e-9, "%s", key);
    cr_expect_float_eq(row_num(doc, 0, "reference", key), ref_want, 1e-9, "%s in the reference", key);
}

static int64_t all_7(uint64_t i) { (void)i; return 7; }
static int64_t zero(uint64_t i) { (void)i; return 0; }
static int64_t tid(uint64_t i) { return (int64_t)i; }
static int64_t tid_mod32(uint64_t i) { return (int64_t)(i % 32); }
static int64_t stride8(uint64_t i) { return (int64_t)(8 * i); }
static int64_t trips_64(uint64_t i) { (void)i; return 64; }

Test(explain, same_address_atomics_rank_first_on_artificial)
{
    explain_dirs d;
    make_dirs(&d, "kernels/artificial.json", "build/ptx/kernels/artificial.ptx", all_7, zero);
    /* the default reference: a random input (seed 1) */
    const char *args[] = { d.input, "-o", d.outdir, "--json" };
    cr_assert_eq(run_explain(&d, args, 4), 0, "%s", ts_read_text(d.err));
    json_t *doc = ts_load_json(d.out);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(doc, "reference"), "source")),
                     "random (seed 1)");
    cr_expect_gt(num(json_object_get(doc, "input"), "cycles"), num(json_object_get(doc, "reference"), "cycles"));
    /* the atomics' line first: every lane of a block on one address */
    cr_expect_gt(row_num(doc, 0, "input", "atomics"), 0);
    double wait = row_num(doc, 0, "input", "atomic_wait"), ref_wait = row_num(doc, 0, "reference", "atomic_wait");
    cr_expect_gt(wait, 0);
    cr_expect_gt(wait, 100 * ref_wait + 1, "atomic wait %g against the reference's %g", wait, ref_wait);
    cr_expect_str_eq(json_string_value(json_object_get(json_object_get(json_array_get(json_object_get(doc, "rows"), 0),
                                                                       "input"), "dominant_stall")), "memory");
    done(&d, doc);
}

Test(explain, divergence_splits_every_warp_of_gt_paths32)
{
    explain_dirs d;
    json_t *doc = explain_pair(&d, "tests/specs/hunt_paths_small.json", "build/ptx/kernels/gt_paths32.ptx", tid_mod32,
                               zero, "line");
    json_t *rows = json_object_get(doc, "rows");
    double div = 0, ref_div = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        div += row_num(doc, i, "input", "divergent");
        ref_div += row_num(doc, i, "reference", "divergent");
    }
    /* 4 warps, each split at every one of the tree's 31 branches; all
     * lanes on one leaf split none */
    cr_expect_eq(div, 31 * 4, "divergent executions %g", div);
    cr_expect_eq(ref_div, 0);
    cr_expect_gt(row_num(doc, 0, "input", "issued"), row_num(doc, 0, "reference", "issued"));
    done(&d, doc);
}

Test(explain, a_gather_touches_a_sector_per_lane_on_gt_gather)
{
    explain_dirs d;
    json_t *doc = explain_pair(&d, "tests/specs/hunt_gather_small.json", "build/ptx/kernels/gt_gather.ptx", stride8,
                               tid, "ptx");
    /* the first PTX line is the load of data[idx]: 32 sectors per request
     * against 4 for consecutive indices */
    expect_top(doc, "sectors_per_request", 32, 4);
    cr_expect_gt(num(json_array_get(json_object_get(doc, "rows"), 0), "extra_cycles"), 0);
    done(&d, doc);
}

Test(explain, bank_conflicts_rank_first_on_gt_bank)
{
    explain_dirs d;
    json_t *doc = explain_pair(&d, "kernels/gt_bank.json", "build/ptx/kernels/gt_bank.ptx", zero, tid_mod32, "line");
    /* every lane of a warp in one bank, against 32 distinct banks */
    expect_top(doc, "conflict_degree", 32, 1);
    done(&d, doc);
}

Test(explain, a_longer_loop_issues_more_on_gt_loop)
{
    explain_dirs d;
    json_t *doc = explain_pair(&d, "tests/specs/hunt_loop_small.json", "build/ptx/kernels/gt_loop.ptx", trips_64,
                               zero, "ptx");
    /* the top line is in the loop body: issued 64 times per warp, never
     * with no trips */
    double issued = row_num(doc, 0, "input", "issued");
    cr_expect_eq(issued, 64 * 8, "issued %g: 8 warps x 64 iterations", issued);
    cr_expect_eq(row_num(doc, 0, "reference", "issued"), 0);
    done(&d, doc);
}

static int64_t one_home(uint64_t i) { return (int64_t)(5 + 4096 * (i + 1)); }
static int64_t distinct_home(uint64_t i) { return (int64_t)(i + 1); }

Test(explain, long_probe_chains_rank_first_on_gt_hash)
{
    explain_dirs d;
    json_t *doc = explain_pair(&d, "kernels/gt_hash.json", "build/ptx/kernels/gt_hash.ptx", one_home, distinct_home,
                               "line");
    cr_expect_gt(num(json_object_get(doc, "input"), "cycles"), 100 * num(json_object_get(doc, "reference"), "cycles"));
    /* first the CAS (inlined from the header), waiting behind the other
     * keys' CASes on the same slots, which distinct homes never do */
    cr_expect_gt(row_num(doc, 0, "input", "atomics"), 0);
    cr_expect_gt(row_num(doc, 0, "input", "atomic_wait"), 0);
    cr_expect_eq(row_num(doc, 0, "reference", "atomic_wait"), 0);
    /* then the probe loop's lines: chains of about 1000 slots against 1 */
    json_t *rows = json_object_get(doc, "rows");
    size_t loop_lines = 0;
    for (size_t i = 1; i < json_array_size(rows); i++) {
        json_t *row = json_array_get(rows, i);
        const char *file = json_string_value(json_object_get(row, "file"));
        double in = row_num(doc, i, "input", "issued"), ref = row_num(doc, i, "reference", "issued");
        if (file && strstr(file, "gt_hash.cu") && ref > 0 && in > 500 * ref) loop_lines++;
    }
    cr_expect_geq(loop_lines, 3, "the loop's lines issue hundreds of times more");
    done(&d, doc);
}

Test(explain, an_input_against_itself_adds_nothing)
{
    explain_dirs d;
    json_t *doc = explain_pair(&d, "kernels/artificial.json", "build/ptx/kernels/artificial.ptx", all_7, all_7, "line");
    json_t *rows = json_object_get(doc, "rows");
    cr_assert_gt(json_array_size(rows), 0);
    for (size_t i = 0; i < json_array_size(rows); i++)
        cr_expect_eq(num(json_array_get(rows, i), "extra_cycles"), 0, "row %zu", i);
    const char *text = ts_read_text(d.err);
    cr_expect(strstr(text, "1.000x the reference's time (+0 cycles)"), "%s", text);
    done(&d, doc);
}

Test(explain, by_ptx_lists_ptx_lines)
{
    explain_dirs d;
    json_t *doc = explain_pair(&d, "kernels/artificial.json", "build/ptx/kernels/artificial.ptx", all_7, zero, "ptx");
    cr_expect_str_eq(json_string_value(json_object_get(doc, "by")), "ptx");
    json_t *rows = json_object_get(doc, "rows");
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        cr_expect_str_eq(json_string_value(json_object_get(r, "file")), "artificial.ptx");
        cr_expect(json_is_string(json_object_get(r, "what")), "row %zu names no instruction", i);
    }
    /* the first: one of the eight atomics on the block's address */
    cr_expect(strstr(json_string_value(json_object_get(json_array_get(rows, 0), "what")), "atom.global.add"));
    const char *text = ts_read_text(d.err);
    cr_expect(strstr(text, "PTX lines by warp-cycles"), "%s", text);
    cr_expect(strstr(text, "artificial.ptx:"), "%s", text);
    done(&d, doc);
}

static int64_t one(uint64_t i) { (void)i; return 1; }

/* --backend cuda on the fake driver, whose fake_inc takes the same time
 * for any data, as the sim does: both say neither input is slower. */
Test(explain, the_gpu_is_measured_beside_the_sim)
{
    char lib[PATH_MAX];
    ts_beside_runner("libfakecuda.so", lib, sizeof lib);
    if (access(lib, R_OK) != 0) cr_skip_test("%s not built (make test builds it)", lib);
    setenv(WH_CUDA_LIB_ENV, lib, 1);
    explain_dirs d;
    make_dirs(&d, "tests/specs/cuda_fake_inc.json", "build/ptx/tests/ptx/fake_inc.ptx", zero, one);
    const char *args[] = { d.input, "--against", d.reference, "--backend", "cuda", "--reps", "5", "-o", d.outdir,
                           "--json" };
    cr_assert_eq(run_explain(&d, args, 10), 0, "%s", ts_read_text(d.err));
    json_t *doc = ts_load_json(d.out);
    json_t *gpu = json_object_get(doc, "gpu");
    cr_assert(gpu, "no \"gpu\" in explain.json");
    cr_expect(strstr(json_string_value(json_object_get(gpu, "device")), "fake"));
    cr_expect_str_eq(json_string_value(json_object_get(gpu, "unit")), "us");
    cr_expect_eq(json_integer_value(json_object_get(gpu, "rounds")), 5);
    double in = num(json_object_get(gpu, "input"), "median"), ref = num(json_object_get(gpu, "reference"), "median");
    cr_expect_gt(in, 0);
    cr_expect_eq(in, ref, "the fake's time does not depend on the data");
    cr_expect_str_eq(json_string_value(json_object_get(gpu, "gpu_order")), "tie");
    cr_expect_str_eq(json_string_value(json_object_get(gpu, "sim_order")), "tie");
    cr_expect(json_is_true(json_object_get(gpu, "agree")));
    /* the report is still the sim's */
    cr_expect_str_eq(json_string_value(json_object_get(doc, "unit")), "cycles");
    cr_expect(strstr(ts_read_text(d.err), "the GPU and the sim rank the two alike"), "%s", ts_read_text(d.err));
    char md[200];
    snprintf(md, sizeof md, "%s/explain.md", d.outdir);
    cr_expect(strstr(ts_read_text(md), "## The GPU beside the sim"));
    done(&d, doc);
}

Test(explain, without_a_gpu_cuda_says_why_and_writes_nothing)
{
    /* --reps means GPU runs: alone it is a user error, not ignored */
    explain_dirs r;
    make_dirs(&r, "kernels/artificial.json", "build/ptx/kernels/artificial.ptx", all_7, zero);
    const char *reps[] = { r.input, "--reps", "5" };
    cr_expect_eq(run_explain(&r, reps, 3), 1);
    cr_expect(strstr(ts_read_text(r.err), "--reps is the GPU's runs"), "%s", ts_read_text(r.err));
    ts_rmtree(r.base);

    setenv(WH_CUDA_LIB_ENV, "/nonexistent/libcuda.so.1", 1);
    explain_dirs d;
    make_dirs(&d, "kernels/artificial.json", "build/ptx/kernels/artificial.ptx", all_7, zero);
    const char *args[] = { d.input, "--backend", "cuda", "-o", d.outdir };
    cr_expect_eq(run_explain(&d, args, 5), 2);
    const char *text = ts_read_text(d.err);
    cr_expect(strstr(text, "/nonexistent/libcuda.so.1"), "the driver library that failed is named: %s", text);
    cr_expect_eq(access(d.outdir, F_OK), -1, "nothing written");
    ts_rmtree(d.base);
}

/* Which input each backend has slower, and when they agree. */
Test(explain, the_sim_and_the_gpu_orders)
{
    cr_expect_eq(cli_explain_sim_order(1000, 1005), EXPLAIN_ORDER_TIE, "within 1 %");
    cr_expect_eq(cli_explain_sim_order(2000, 1000), EXPLAIN_ORDER_INPUT_SLOWER);
    cr_expect_eq(cli_explain_sim_order(1000, 2000), EXPLAIN_ORDER_REFERENCE_SLOWER);
    cr_expect_eq(cli_explain_sim_order(0, 0), EXPLAIN_ORDER_TIE);
    double slow[8] = { 10, 11, 12, 10, 11, 12, 10, 11 }, fast[8] = { 5, 6, 5, 6, 5, 6, 5, 6 };
    double mixed[8] = { 9, 12, 10, 11, 13, 10, 12, 11 };
    wh_rank_test t;
    cr_assert(wh_rank_test_run(slow, 8, fast, 8, &t));
    cr_expect_eq(cli_explain_gpu_order(&t), EXPLAIN_ORDER_INPUT_SLOWER);
    cr_assert(wh_rank_test_run(fast, 8, slow, 8, &t));
    cr_expect_eq(cli_explain_gpu_order(&t), EXPLAIN_ORDER_REFERENCE_SLOWER);
    cr_assert(wh_rank_test_run(slow, 8, mixed, 8, &t));
    cr_expect_eq(cli_explain_gpu_order(&t), EXPLAIN_ORDER_TIE, "p %g", t.p_value);
}

static void expect_keys(json_t *o, const char *const *keys, size_t n, const char *what)
{
    for (size_t k = 0; k < n; k++)
        cr_expect(json_object_get(o, keys[k]), "no \"%s\" in %s", keys[k], what);
}

/* The run's JSON: keys, issued rows summing to its warp instructions,
 * every warp's cycles to its life, the critical warp the last to finish. */
static void expect_run_adds_up(json_t *doc, const char *side)
{
    static const char *const run_keys[] = { "source", "status", "cycles", "warp_instructions", "lane_instructions",
                                            "critical", "warps", "sm_finish" };
    static const char *const warp_keys[] = { "sm", "block", "ctaid", "warp", "start", "finish", "issued",
                                             "issue_cycles", "stall" };
    json_t *run = json_object_get(doc, side);
    expect_keys(run, run_keys, sizeof run_keys / sizeof *run_keys, side);
    json_t *rows = json_object_get(doc, "rows"), *warps = json_object_get(run, "warps");
    double issued = 0, cycles = 0, life = 0, last = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        issued += row_num(doc, i, side, "issued");
        cycles += row_num(doc, i, side, "cycles");
    }
    for (size_t i = 0; i < json_array_size(warps); i++) {
        json_t *w = json_array_get(warps, i);
        expect_keys(w, warp_keys, sizeof warp_keys / sizeof *warp_keys, "a warp");
        life += num(w, "finish") - num(w, "start");
        last = fmax(last, num(w, "finish"));
    }
    cr_expect_eq(issued, num(run, "warp_instructions"), "%s: rows issue %g", side, issued);
    cr_expect_float_eq(cycles, life, 1e-9 * life, "%s: rows charge %g cycles, warps live %g", side, cycles, life);
    cr_expect_eq(num(json_object_get(run, "critical"), "finish"), last);
    cr_expect_eq(json_array_size(json_object_get(run, "sm_finish")), 108, "one finish per SM of the profile");
}

Test(explain, the_json_has_its_keys_and_adds_up)
{
    explain_dirs d;
    make_dirs(&d, "tests/specs/hunt_paths_small.json", "build/ptx/kernels/gt_paths32.ptx", tid_mod32, zero);
    /* no -o: the report goes to DIR/explain; DIR given as --input DIR */
    const char *args[] = { "--input", d.input, "--top", "3" };
    cr_assert_eq(run_explain(&d, args, 4), 0, "%s", ts_read_text(d.err));
    char json_path[200], md_path[200];
    snprintf(json_path, sizeof json_path, "%s/explain/explain.json", d.input);
    snprintf(md_path, sizeof md_path, "%s/explain/explain.md", d.input);
    json_t *doc = ts_load_json(json_path);
    static const char *const keys[] = { "kernel", "spec", "device", "unit", "by", "top", "input", "reference", "rows" };
    expect_keys(doc, keys, sizeof keys / sizeof *keys, "explain.json");
    static const char *const count_keys[] = { "issued", "lanes", "avg_lanes", "branches", "divergent",
                                              "global_requests", "sectors", "sectors_per_request", "shared_requests",
                                              "wavefronts", "conflict_degree", "atomics", "atomic_wait",
                                              "issue_cycles", "stall", "cycles", "dominant_stall" };
    json_t *row = json_array_get(json_object_get(doc, "rows"), 0);
    expect_keys(json_object_get(row, "input"), count_keys, sizeof count_keys / sizeof *count_keys, "a row");
    expect_keys(json_object_get(row, "reference"), count_keys, sizeof count_keys / sizeof *count_keys, "a row");
    for (int s = 0; s < HARNESS_NSTALLS; s++)
        cr_expect(json_object_get(json_object_get(json_object_get(row, "input"), "stall"),
                                  harness_stall_name((harness_stall)s)));
    expect_run_adds_up(doc, "input");
    expect_run_adds_up(doc, "reference");
    cr_expect_eq(json_integer_value(json_object_get(doc, "top")), 3);
    const char *md = ts_read_text(md_path);
    cr_expect(strstr(md, "| rank | line | +cycles |"), "%s", md);
    cr_expect(strstr(md, "critical warp of the input"), "%s", md);
    done(&d, doc);
}

Test(explain, harness_explain_charges_every_cycle_of_every_warp_once)
{
    need_ptx("build/ptx/kernels/gt_bank.ptx");
    wh_error err;
    wh_spec *s = wh_spec_load("kernels/gt_bank.json", &err);
    cr_assert(s, "%s", err.msg);
    wh_image *img = ts_pattern_image(s, zero);
    harness *h = harness_open(s, HARNESS_SIM, NULL, &err);
    cr_assert(h, "%s", err.msg);
    harness_explain_report r;
    cr_assert(harness_explain(h, img, &r, &err), "%s", err.msg);
    harness_result m;
    cr_assert(harness_measure(h, img, 1, &m, &err), "%s", err.msg);
    cr_expect_eq(r.cycles, m.cycles, "an instrumented run takes the time of a plain one");
    cr_expect_eq(r.warp_instructions, m.warp_instructions);
    cr_expect_eq(r.nwarps, 128 * 8);
    for (uint64_t i = 0; i < r.nwarps; i++) {
        const harness_explain_warp *w = &r.warps[i];
        double charged = w->issue_cycles;
        for (int c = 0; c < HARNESS_NSTALLS; c++)
            charged += w->stall[c];
        cr_assert_float_eq(charged, w->finish - w->start, 1e-6, "warp %llu", (unsigned long long)i);
    }
    /* the block's warps wait for each other at its barrier */
    double barrier = 0;
    for (int i = 0; i < r.nrows; i++)
        barrier += r.rows[i].n.stall[HARNESS_STALL_BARRIER];
    cr_expect_gt(barrier, 0);
    harness_result_free(&m);
    harness_explain_report_free(&r);
    harness_close(h);
    wh_image_free(img);
    wh_spec_free(s);
}

/* ---- the pictures (explain_svg*.c) ---------------------------------------------- */

/* How many times needle occurs in text. */
static size_t occurrences(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The number in attribute `name="…"` of the first element of class cls. */
static double attr_of_first(const char *svg, const char *cls, const char *name)
{
    char key[64], attr[64];
    snprintf(key, sizeof key, "class=\"%s\"", cls);
    snprintf(attr, sizeof attr, " %s=\"", name);
    const char *el = strstr(svg, key);
    cr_assert(el, "no element of class %s", cls);
    const char *a = strstr(el, attr), *end = strchr(el, '>');
    cr_assert(a && a < end, "the %s element has no %s", cls, name);
    return strtod(a + strlen(attr), NULL);
}

/* gt_bank's 1024 warps explained against themselves: the report and view
 * the pictures are drawn from (free with svg_case_free). */
typedef struct {
    wh_spec *spec;
    harness_explain_report r;
    explain_lines lines;
    explain_view v;
    char dir[64];
} svg_case;

static void svg_case_open(svg_case *c)
{
    need_ptx("build/ptx/kernels/gt_bank.ptx");
    wh_error err;
    c->spec = wh_spec_load("kernels/gt_bank.json", &err);
    cr_assert(c->spec, "%s", err.msg);
    wh_image *img = ts_pattern_image(c->spec, zero);
    harness *h = harness_open(c->spec, HARNESS_SIM, NULL, &err);
    cr_assert(h, "%s", err.msg);
    cr_assert(harness_explain(h, img, &c->r, &err), "%s", err.msg);
    harness_close(h);
    wh_image_free(img);
    cli_explain_lines(&c->r, &c->r, EXPLAIN_BY_PTX, "gt_bank.ptx", &c->lines);
    c->v = (explain_view){ .spec = c->spec, .device = "sim", .input = "in", .reference = "in", .in = &c->r,
                           .ref = &c->r, .lines = &c->lines, .by = EXPLAIN_BY_PTX, .top = 10 };
    snprintf(c->dir, sizeof c->dir, "/tmp/wh_svg_XXXXXX");
    cr_assert(mkdtemp(c->dir));
}

static void svg_case_free(svg_case *c)
{
    cli_explain_lines_free(&c->lines);
    harness_explain_report_free(&c->r);
    wh_spec_free(c->spec);
    ts_rmtree(c->dir);
}

/* path's picture with lim; its text (ts_read_text's buffer) */
static const char *draw(svg_case *c, bool timeline, const explain_svg_limits *lim)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s.svg", c->dir, timeline ? "timeline" : "heat");
    wh_error err;
    bool ok = timeline ? cli_explain_svg_timeline(path, &c->v, lim, &err) : cli_explain_svg_heat(path, &c->v, lim, &err);
    cr_assert(ok, "%s", err.msg);
    const char *svg = ts_read_text(path);
    cr_assert(strstr(svg, "<svg ") && strstr(svg, "</svg>"), "%s is not a whole SVG", path);
    return svg;
}

Test(explain, the_timeline_draws_every_warp_and_outlines_the_critical_one)
{
    svg_case c;
    svg_case_open(&c);
    explain_svg_limits lim = cli_explain_svg_default_limits();
    const char *svg = draw(&c, true, &lim);
    cr_expect_eq(occurrences(svg, "class=\"warp\""), c.r.nwarps, "a bar per warp");
    cr_expect_eq(occurrences(svg, "data-critical=\"1\""), 1);
    cr_expect_eq(occurrences(svg, "class=\"critical-mark\""), 1);
    cr_assert_geq(c.r.critical, 0);
    const harness_explain_warp *w = &c.r.warps[c.r.critical];
    cr_expect_eq(attr_of_first(svg, "critical-mark", "data-sm"), w->sm);
    cr_expect_float_eq(attr_of_first(svg, "critical-mark", "data-finish"), w->finish, 1e-6 * w->finish);
    /* a legend entry for each cause a bar is coloured by, and no other */
    int causes = 0;
    bool seen[SVG_NCAUSES] = { false };
    for (uint64_t i = 0; i < c.r.nwarps; i++)
        if (!seen[svg_warp_cause(&c.r.warps[i])]) {
            seen[svg_warp_cause(&c.r.warps[i])] = true;
            causes++;
        }
    cr_expect_eq(occurrences(svg, "class=\"legend\""), (size_t)causes);
    svg_case_free(&c);
}

Test(explain, a_large_launch_is_drawn_as_buckets_that_keep_every_warp_cycle)
{
    svg_case c;
    svg_case_open(&c);
    explain_svg_limits lim = { .max_warps = 100, .buckets = 20, .max_rows = 60 };
    const char *svg = draw(&c, true, &lim);
    cr_expect_eq(occurrences(svg, "class=\"warp\""), 0, "above max_warps no bar per warp");
    cr_expect_eq(occurrences(svg, "class=\"critical\""), 1, "the critical warp is still drawn");
    /* every bucket's mean resident warps times its width, summed: the warps' lives */
    double drawn = 0, lives = 0;
    size_t nb = 0;
    for (const char *p = strstr(svg, "class=\"bucket\""); p; p = strstr(p + 1, "class=\"bucket\""), nb++) {
        double start = strtod(strstr(p, "data-start=\"") + 12, NULL);
        double finish = strtod(strstr(p, "data-finish=\"") + 13, NULL);
        drawn += strtod(strstr(p, "data-warps=\"") + 12, NULL) * (finish - start);
    }
    for (uint64_t i = 0; i < c.r.nwarps; i++)
        lives += c.r.warps[i].finish - c.r.warps[i].start;
    cr_expect_gt(nb, 0);
    cr_expect_leq(nb, 108u * 20u, "at most SMs x buckets cells");
    cr_expect_float_eq(drawn, lives, 1e-3 * lives, "buckets hold %g warp-cycles, warps live %g", drawn, lives);
    svg_case_free(&c);
}

Test(explain, the_heat_strip_has_a_row_per_line_up_to_its_limit)
{
    svg_case c;
    svg_case_open(&c);
    explain_svg_limits lim = cli_explain_svg_default_limits();
    cr_assert_gt(c.lines.n, 3u);
    const char *svg = draw(&c, false, &lim);
    size_t rows = c.lines.n < (size_t)lim.max_rows ? c.lines.n : (size_t)lim.max_rows;
    cr_expect_eq(occurrences(svg, "class=\"line\""), rows);
    cr_expect_eq(occurrences(svg, "class=\"diff\""), rows);
    /* against itself the input adds nothing anywhere */
    cr_expect_eq(occurrences(svg, "data-extra=\"0\""), 2 * rows);
    lim.max_rows = 3;
    svg = draw(&c, false, &lim);
    cr_expect_eq(occurrences(svg, "class=\"line\""), 3);
    svg_case_free(&c);
}

Test(explain, svg_text_escapes_markup_and_bytes_that_are_not_utf8)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert(f);
    svg_text(f, "a<b>&\"c'\x01\xff\xc3\xa9");
    fclose(f);
    cr_expect_str_eq(buf, "a&lt;b&gt;&amp;&quot;c&apos;??\xc3\xa9");
    free(buf);
}

Test(explain, png_asks_a_converter_for_both_pictures)
{
    if (system("command -v rsvg-convert >/dev/null 2>&1") != 0)
        cr_skip_test("rsvg-convert not installed (make deps installs librsvg2-bin)");
    explain_dirs d;
    make_dirs(&d, "tests/specs/hunt_paths_small.json", "build/ptx/kernels/gt_paths32.ptx", tid_mod32, zero);
    const char *args[] = { d.input, "-o", d.outdir, "--png" };
    cr_assert_eq(run_explain(&d, args, 4), 0, "%s", ts_read_text(d.err));
    static const char *const names[] = { "timeline.svg", "heat.svg", "timeline.png", "heat.png" };
    for (int i = 0; i < 4; i++) {
        char path[200];
        snprintf(path, sizeof path, "%s/%s", d.outdir, names[i]);
        FILE *f = fopen(path, "rb");
        cr_assert(f, "no %s: %s", names[i], ts_read_text(d.err));
        unsigned char head[8] = { 0 };
        cr_expect_eq(fread(head, 1, 8, f), 8u);
        fclose(f);
        if (i >= 2) cr_expect(!memcmp(head, "\x89PNG\r\n\x1a\n", 8), "%s is not a PNG", names[i]);
    }
    done(&d, NULL);
}

/* Local memory interleaves a thread's words across its warp's lanes (word
 * w of lane l at w * 128 + l * 4), so an access at one index on every lane
 * touches 4 sectors a word and one at scattered indices more: local_array's
 * insertion sort on equal values keeps its lanes at one index; on
 * scattered values its data-dependent reads (pick[i] = a[in[16i] & 15])
 * scatter them.  A line of local accesses only shows its figure marked L. */
static int64_t scattered(uint64_t i) { return (int64_t)((i * 37) % 101) - 50; }

Test(explain, local_accesses_count_their_interleaved_sectors)
{
    explain_dirs d;
    json_t *doc = explain_pair(&d, "tests/specs/sim_local_array.json", "build/ptx/tests/ptx/local_array.ptx", all_7,
                               scattered, "ptx");
    json_t *rows = json_object_get(doc, "rows");
    int local_rows = 0;
    double widest_ref = 0;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *in = json_object_get(json_array_get(rows, i), "input");
        json_t *ref = json_object_get(json_array_get(rows, i), "reference");
        if (num(in, "local_requests") > 0) {
            local_rows++;
            double per = num(in, "local_sectors_per_request");
            cr_expect(per == 4 || per == 8 || per == 16, "row %zu: 4 sectors a word (v2, v4: 2, 4 words), not %g",
                      i, per);
        }
        if (num(ref, "local_requests") > 0 && num(ref, "local_sectors_per_request") > widest_ref)
            widest_ref = num(ref, "local_sectors_per_request");
    }
    cr_expect_gt(local_rows, 0, "local loads and stores are counted");
    cr_expect_gt(widest_ref, 16.0, "scattered indices touch more sectors than a v4 at one index");
    json_decref(doc);
    const char *all[] = { d.input, "--against", d.reference, "--by", "ptx", "-o", d.outdir, "--top", "1000" };
    cr_assert_eq(run_explain(&d, all, 9), 0, "%s", ts_read_text(d.err));
    cr_expect(strstr(ts_read_text(d.err), " 4.00L "), "a local line's figure is marked: %s", ts_read_text(d.err));
    ts_rmtree(d.base);
}

/* One walker down a chain of union-find parents takes longer than the
 * whole grid walking it together (they halve the path for each other),
 * yet summed over warps the walk's lines cost less in the slower run:
 * only --critical, the critical warp's rows against the reference's,
 * puts the walk's loads on top. */
static json_t *explain_union_find(const char *base, bool critical)
{
    char one[128], tail[128], out[128], outdir[128];
    snprintf(one, sizeof one, "%s/one", base);
    snprintf(tail, sizeof tail, "%s/tail", base);
    snprintf(out, sizeof out, "%s/out.json", base);
    snprintf(outdir, sizeof outdir, "%s/report", base);
    const char *spec = "kernels/holdout/union_find_roots.json";
    const char *mk_one[] = { "import", spec, "-o", one, "--set", "G=4", "--set", "parent=i==0 ? 0 : i-1",
                             "--set", "queries=i==0 ? N-1 : 0", "--quiet" };
    const char *mk_tail[] = { "import", spec, "-o", tail, "--set", "G=4", "--set", "parent=i==0 ? 0 : i-1",
                              "--set", "queries=N-1", "--quiet" };
    cr_assert_eq(ts_run_cmd(cmd_input, "input", mk_one, 11, NULL, NULL), 0);
    cr_assert_eq(ts_run_cmd(cmd_input, "input", mk_tail, 11, NULL, NULL), 0);
    const char *args[] = { one, "--against", tail, "--set", "G=4", "-o", outdir, "--json", "--quiet", "--critical" };
    cr_assert_eq(ts_run_cmd(cmd_explain, "explain", args, critical ? 10 : 9, out, NULL), 0);
    return ts_load_json(out);
}

static double largest_extra(json_t *doc, int *line)
{
    json_t *rows = json_object_get(doc, "rows");
    double best = -1e300;
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        if (num(r, "extra_cycles") > best) {
            best = num(r, "extra_cycles");
            *line = (int)json_integer_value(json_object_get(r, "line"));
        }
    }
    return best;
}

Test(explain, critical_ranks_the_critical_warps_lines, .timeout = 120)
{
    need_ptx("build/ptx/kernels/holdout/union_find_roots.ptx");
    char base[] = "/tmp/wh_explain_XXXXXX";
    cr_assert(mkdtemp(base));
    json_t *summed = explain_union_find(base, false), *critical = explain_union_find(base, true);
    cr_expect(json_is_false(json_object_get(summed, "critical")));
    cr_expect(json_is_true(json_object_get(critical, "critical")));
    cr_expect_gt(num(json_object_get(summed, "input"), "cycles"), num(json_object_get(summed, "reference"), "cycles"),
                 "one walker is slower than all of them");
    int line = 0;
    double top = largest_extra(summed, &line);
    cr_expect_lt(top, 1000, "summed over warps, no line gains much (%g, line %d)", top, line);
    top = largest_extra(critical, &line);
    cr_expect_gt(top, 100000, "the critical warp's walk (%g, line %d)", top, line);
    cr_expect(line >= 68 && line <= 76, "a line of the walk's loop, not %d", line);
    json_decref(summed);
    json_decref(critical);
    ts_rmtree(base);
}
