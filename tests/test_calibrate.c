/*
 * test_calibrate.c — `warphunt calibrate`: its microbenchmarks, run on the
 * sim, give back the profile the sim runs with (the built-in one, and one
 * with every measured value changed), so its formulas mirror the model;
 * the profile it writes loads and calibrates to itself; a backend that
 * does not run the kernels is an error, not a profile; the command's
 * options and output.
 */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "core/spec.h"
#include "harness/harness.h"
#include "support.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load_specs(wh_spec *specs[HARNESS_CALIB_KERNELS])
{
    ts_need_ptx("build/ptx/kernels/calib/calib.ptx");
    for (int k = 0; k < HARNESS_CALIB_KERNELS; k++) {
        char path[256];
        snprintf(path, sizeof path, "kernels/calib/%s.json", harness_calib_kernels[k]);
        wh_error err;
        wh_error_clear(&err);
        specs[k] = wh_spec_load(path, &err);
        cr_assert(specs[k], "%s: %s", path, err.msg);
    }
}

static void free_specs(wh_spec *specs[HARNESS_CALIB_KERNELS])
{
    for (int k = 0; k < HARNESS_CALIB_KERNELS; k++)
        wh_spec_free(specs[k]);
}

static harness_calibration calibrate_sim(const char *profile)
{
    wh_spec *specs[HARNESS_CALIB_KERNELS];
    load_specs(specs);
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    o.profile_path = profile;
    harness_calibration c;
    wh_error err;
    wh_error_clear(&err);
    cr_assert(harness_calibrate((const wh_spec *const *)specs, HARNESS_SIM, &o, 1, &c, &err), "%s", err.msg);
    free_specs(specs);
    return c;
}

/* What a calibration should measure, and a check of it within 1 % (or
 * 0.05 cycles). */
typedef struct {
    double latency[HARNESS_CALIB_CLASSES], issue[HARNESS_CALIB_CLASSES];
    double global_latency, dram_latency, shared_latency, wavefront_cycles, atomic_cycles_per_op, bar_latency,
        empty_kernel_cycles, lsu_cycles_per_sector, const_cycles_per_address, shared_atomic_cycles_per_op,
        l2_sectors_per_cycle, dram_sectors_per_cycle;
} expected;

#define EXPECT_NEAR(got, want, what) \
    cr_expect(fabs((got) - (want)) <= fmax(0.01 * (want), 0.05), "%s: measured %.3f, the profile says %.3f", \
              what, (double)(got), (double)(want))

static void expect_measured(const harness_calibration *c, const expected *e)
{
    for (int k = 0; k < HARNESS_CALIB_CLASSES; k++) {
        EXPECT_NEAR(c->latency[k], e->latency[k], harness_calib_classes[k]);
        EXPECT_NEAR(c->issue[k], e->issue[k], harness_calib_classes[k]);
    }
    EXPECT_NEAR(c->global_latency, e->global_latency, "global latency");
    EXPECT_NEAR(c->dram_latency, e->dram_latency, "dram latency");
    EXPECT_NEAR(c->shared_latency, e->shared_latency, "shared latency");
    EXPECT_NEAR(c->wavefront_cycles, e->wavefront_cycles, "wavefront");
    EXPECT_NEAR(c->atomic_cycles_per_op, e->atomic_cycles_per_op, "atomic");
    EXPECT_NEAR(c->bar_latency, e->bar_latency, "bar latency");
    EXPECT_NEAR(c->empty_kernel_cycles, e->empty_kernel_cycles, "empty kernel");
    EXPECT_NEAR(c->lsu_cycles_per_sector, e->lsu_cycles_per_sector, "lsu per sector");
    EXPECT_NEAR(c->const_cycles_per_address, e->const_cycles_per_address, "const per address");
    EXPECT_NEAR(c->shared_atomic_cycles_per_op, e->shared_atomic_cycles_per_op, "shared atomic");
    /* the whole grid's streams: within 3 % (the first and last waves) */
    cr_expect(fabs(c->l2_sectors_per_cycle - e->l2_sectors_per_cycle) <= 0.03 * e->l2_sectors_per_cycle,
              "L2 bandwidth: measured %.2f, the profile says %.2f", c->l2_sectors_per_cycle, e->l2_sectors_per_cycle);
    cr_expect(fabs(c->dram_sectors_per_cycle - e->dram_sectors_per_cycle) <= 0.03 * e->dram_sectors_per_cycle,
              "DRAM bandwidth: measured %.2f, the profile says %.2f", c->dram_sectors_per_cycle,
              e->dram_sectors_per_cycle);
}

/* The built-in profile (harness/profiles/default.json's values; an empty
 * kernel costs the launch, one block launch and a cycle). */
Test(calibrate, the_sim_gives_back_its_built_in_profile, .timeout = 60)
{
    harness_calibration c = calibrate_sim(NULL);
    /* latency and issue of alu, fma, fp64, sfu, idiv, fdiv, ddiv */
    expect_measured(&c, &(expected){ { 4, 4, 8, 18, 60, 40, 120 }, { 2, 2, 4, 8, 20, 10, 40 },
                                      200, 250, 24, 1, 1, 20, 500 + 150 + 1, 0.25, 1, 2, 160, 34.5 });
    EXPECT_NEAR(c.clock_mhz, 1410, "clock");
    cr_expect_eq(c.backend, HARNESS_SIM);
    cr_expect_eq(c.sm_count, 0, "the sim has no device description to read the SM count from");
    cr_expect_eq(c.divergence_cycles, 0, "the built-in 2 cycles hide behind a branch's latency of 4: %g",
                 c.divergence_extra);
    cr_expect_eq(c.atomic_unit_bytes, 4, "a queue per word");
}

/* Every measured value changed: the measurements follow the profile, so
 * none is a constant of the kernels. */
Test(calibrate, the_sim_gives_back_a_changed_profile, .timeout = 60)
{
    char dir[] = "/tmp/wh_calib_XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/p.json", dir);
    ts_write_text(path, "{ \"costs\": { \"alu\": { \"issue\": 1, \"latency\": 6 }, \"fma\": { \"issue\": 4, \"latency\": 5 },\n"
          "  \"fp64\": { \"issue\": 16, \"latency\": 30 }, \"sfu\": { \"issue\": 4, \"latency\": 23 },\n"
          "  \"idiv\": { \"issue\": 12, \"latency\": 80 }, \"fdiv\": { \"issue\": 7, \"latency\": 33 },\n"
          "  \"ddiv\": { \"issue\": 50, \"latency\": 140 },\n"
          "  \"global\": { \"latency\": 300 }, \"shared\": { \"latency\": 30 }, \"bar\": { \"latency\": 35 } },\n"
          "  \"memory\": { \"dram_latency\": 400, \"shared_cycles_per_wavefront\": 2, \"atomic_cycles_per_op\": 3,\n"
          "    \"atomic_unit_bytes\": 128,\n"
          "    \"lsu_cycles_per_sector\": 0.5, \"const_cycles_per_address\": 3, \"shared_atomic_cycles_per_op\": 5,\n"
          "    \"l2_sectors_per_cycle\": 100, \"dram_sectors_per_cycle\": 20 },\n"
          "  \"control\": { \"kernel_launch_cycles\": 700, \"divergence_cycles\": 12 } }\n");
    harness_calibration c = calibrate_sim(path);
    cr_expect(fabs(c.divergence_cycles - 12) <= 1, "divergence %g (a divergent if %g cycles dearer)",
              c.divergence_cycles, c.divergence_extra);
    expect_measured(&c, &(expected){ { 6, 5, 30, 23, 80, 33, 140 }, { 1, 4, 16, 4, 12, 7, 50 },
                                      300, 400, 30, 2, 3, 35, 700 + 150 + 1, 0.5, 3, 5, 100, 20 });
    cr_expect_eq(c.atomic_unit_bytes, 128, "a line's words share one queue");
    ts_rmtree(dir);
}

/* The profile written from a calibration loads, and the sim running it
 * measures the same values again (a fixed point). */
Test(calibrate, the_written_profile_loads_and_calibrates_to_itself, .timeout = 60)
{
    harness_calibration c = calibrate_sim(NULL);
    char dir[] = "/tmp/wh_calib_XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/calibrated.json", dir);
    wh_error err;
    wh_error_clear(&err);
    cr_assert(harness_calibration_write_profile(&c, "mine", path, &err), "%s", err.msg);
    json_t *doc = ts_load_json(path);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "name")), "mine");
    cr_expect(json_is_object(json_object_get(doc, "calibration")), "the raw section cycles are kept");
    json_decref(doc);
    harness_calibration again = calibrate_sim(path);
    for (int k = 0; k < HARNESS_CALIB_CLASSES; k++) {
        EXPECT_NEAR(again.latency[k], c.latency[k], harness_calib_classes[k]);
        EXPECT_NEAR(again.issue[k], c.issue[k], harness_calib_classes[k]);
    }
    EXPECT_NEAR(again.global_latency, c.global_latency, "global latency");
    EXPECT_NEAR(again.dram_latency, c.dram_latency, "dram latency");
    EXPECT_NEAR(again.shared_latency, c.shared_latency, "shared latency");
    EXPECT_NEAR(again.atomic_cycles_per_op, c.atomic_cycles_per_op, "atomic");
    EXPECT_NEAR(again.empty_kernel_cycles, c.empty_kernel_cycles, "empty kernel");
    ts_rmtree(dir);
}

/* A pair whose longer section is no longer (on a GPU: extra work done in
 * the shadow of a latency) leaves the quantities it enters unresolved: not
 * written, so the built-in values stay; the rest is calibrated.  A section
 * of no cycles is an error. */
Test(calibrate, an_unresolved_pair_leaves_its_quantities_built_in, .timeout = 60)
{
    harness_calibration c = calibrate_sim(NULL);
    cr_expect_eq(c.unresolved, 0u, "the sim resolves everything: %s", c.unresolved_why);
    harness_calibration u = c;
    u.raw[6][1] = u.raw[6][0];   /* calib_memory: 16 loads no longer than 8 */
    wh_error err;
    wh_error_clear(&err);
    cr_assert(harness_calibration_fit(&u, &err), "%s", err.msg);
    cr_expect_eq(u.unresolved, 1u << HARNESS_CQ_LSU, "only the LSU's cost: %#x", u.unresolved);
    cr_expect(strstr(u.unresolved_why, "calib_memory pair 0"), "%s", u.unresolved_why);
    EXPECT_NEAR(u.global_latency, c.global_latency, "the global latency is still measured");

    char dir[] = "/tmp/wh_calib_XXXXXX";
    cr_assert(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/p.json", dir);
    cr_assert(harness_calibration_write_profile(&u, "gpu", path, &err), "%s", err.msg);
    json_t *doc = ts_load_json(path), *mem = json_object_get(doc, "memory");
    cr_expect_null(json_object_get(mem, "lsu_cycles_per_sector"), "not written: the built-in value stays");
    cr_expect(json_is_number(json_object_get(mem, "dram_latency")), "the others are");
    json_t *names = json_object_get(json_object_get(doc, "calibration"), "unresolved");
    cr_expect(json_array_size(names) == 1 &&
              !strcmp(json_string_value(json_array_get(names, 0)), "memory.lsu_cycles_per_sector"));
    json_decref(doc);
    ts_rmtree(dir);

    /* the ALU's latency enters every chase's hop */
    u = c;
    u.raw[0][1] = u.raw[0][0] - 5;
    cr_assert(harness_calibration_fit(&u, &err), "%s", err.msg);
    unsigned want = 1u << HARNESS_CQ_LATENCY | 1u << HARNESS_CQ_GLOBAL | 1u << HARNESS_CQ_SHARED | 1u << HARNESS_CQ_L1;
    cr_expect_eq(u.unresolved, want, "%#x", u.unresolved);

    /* the grid's atomics: more operations no longer leave the service
     * time and the unit unresolved, the line's alone the unit */
    u = c;
    u.contend_cycles[1] = u.contend_cycles[0];
    cr_assert(harness_calibration_fit(&u, &err), "%s", err.msg);
    want = 1u << HARNESS_CQ_ATOMIC | 1u << HARNESS_CQ_ATOMIC_UNIT;
    cr_expect_eq(u.unresolved, want, "%#x", u.unresolved);
    cr_expect(strstr(u.unresolved_why, "calib_contend_*"), "%s", u.unresolved_why);
    u = c;
    u.contend_cycles[3] = u.contend_cycles[2];
    cr_assert(harness_calibration_fit(&u, &err), "%s", err.msg);
    cr_expect_eq(u.unresolved, 1u << HARNESS_CQ_ATOMIC_UNIT, "%#x", u.unresolved);

    u = c;
    u.raw[3][2] = 0;
    cr_expect_not(harness_calibration_fit(&u, &err), "a section of 0 cycles is not a timing");
    cr_expect(strstr(err.msg, "calib_shared"), "%s", err.msg);
}

/* A driver that cannot run the kernels (the fake one refuses unknown
 * launches) gives an error naming the failure, and no profile. */
Test(calibrate, a_backend_that_does_not_run_the_kernels_is_an_error, .timeout = 120)
{
    char lib[512];
    ts_beside_runner("libfakecuda.so", lib, sizeof lib);
    wh_spec *specs[HARNESS_CALIB_KERNELS];
    load_specs(specs);
    setenv("WARPHUNT_LIBCUDA", lib, 1);
    harness_options o;
    harness_options_init(&o);
    o.quiet = true;
    harness_calibration c;
    wh_error err;
    wh_error_clear(&err);
    cr_expect_not(harness_calibrate((const wh_spec *const *)specs, HARNESS_CUDA, &o, 5, &c, &err));
    cr_expect_eq(err.kind, WH_ERR_DEVICE, "a device failure (exit status 2)");
    cr_expect(strstr(err.msg, "calib") || strstr(err.msg, "Launch") || strstr(err.msg, "launch"), "%s", err.msg);
    unsetenv("WARPHUNT_LIBCUDA");
    free_specs(specs);
}

Test(calibrate, the_command_writes_the_profile_and_its_json, .timeout = 60)
{
    ts_need_ptx("build/ptx/kernels/calib/calib.ptx");
    char dir[] = "/tmp/wh_calib_XXXXXX";
    cr_assert(mkdtemp(dir));
    char prof[300], out[300], errp[300];
    snprintf(prof, sizeof prof, "%s/p.json", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(errp, sizeof errp, "%s/err.txt", dir);
    const char *args[] = { "--backend", "sim", "-o", prof, "--name", "sim-self", "--json" };
    cr_assert_eq(ts_run_cmd(cmd_calibrate, "calibrate", args, 7, out, errp), 0, "%s", ts_read_text(errp));
    json_t *doc = ts_load_json(out);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "backend")), "sim");
    cr_expect_str_eq(json_string_value(json_object_get(doc, "profile")), prof);
    cr_expect(fabs(json_number_value(json_object_get(doc, "global_latency")) - 200) < 1);
    json_decref(doc);
    json_t *p = ts_load_json(prof);
    cr_expect_str_eq(json_string_value(json_object_get(p, "name")), "sim-self");
    cr_expect_eq(json_integer_value(json_object_get(json_object_get(p, "memory"), "atomic_unit_bytes")), 4);
    json_decref(p);
    cr_expect(strstr(ts_read_text(errp), "global load"), "the table on stderr: %s", ts_read_text(errp));
    const char *bad[] = { "--frobnicate" };
    cr_expect_eq(ts_run_cmd(cmd_calibrate, "calibrate", bad, 1, NULL, errp), 1);
    const char *no_reps[] = { "--backend", "sim", "--reps", "102" };
    cr_expect_eq(ts_run_cmd(cmd_calibrate, "calibrate", no_reps, 4, NULL, errp), 1);
    cr_expect(strstr(ts_read_text(errp), "--reps"), "%s", ts_read_text(errp));
    const char *extra[] = { "kernels/fig1a.json" };
    cr_expect_eq(ts_run_cmd(cmd_calibrate, "calibrate", extra, 1, NULL, errp), 1);
    cr_expect(strstr(ts_read_text(errp), "unexpected argument"), "%s", ts_read_text(errp));
    ts_rmtree(dir);
}

/* ---- the sim's caches, seen through the microbenchmarks ---------------------- */

static void write_profile(const char *dir, const char *json, char *path, size_t n)
{
    snprintf(path, n, "%s/p.json", dir);
    ts_write_text(path, json);
}

/* An L1 of 64 KB (4 ways, 30 cycles): calibrate finds its latency and
 * size (chases up to 64 KB hit, from 128 KB an LRU walked in a cycle
 * misses every hop), and the .cg chase of calib_global is not served by
 * it (the L2 and DRAM latencies are the built-in ones). */
Test(calibrate, an_l1_is_found_with_its_latency_and_size, .timeout = 60)
{
    char dir[] = "/tmp/wh_calib_XXXXXX", path[300];
    cr_assert(mkdtemp(dir));
    write_profile(dir, "{ \"memory\": { \"l1_bytes\": 65536, \"l1_ways\": 4, \"l1_latency\": 30 } }", path,
                  sizeof path);
    harness_calibration c = calibrate_sim(path);
    EXPECT_NEAR(c.l1_latency, 30, "l1 latency");
    cr_expect_eq(c.l1_bytes, 65536, "l1 size %llu", (unsigned long long)c.l1_bytes);
    EXPECT_NEAR(c.global_latency, 200, "global latency (.cg: past the L1)");
    EXPECT_NEAR(c.dram_latency, 250, "dram latency");
    harness_calibration none = calibrate_sim(NULL);
    cr_expect_eq(none.l1_bytes, 0, "the built-in profile has no L1");
    cr_expect_eq(none.l1_latency, 0);
    ts_rmtree(dir);
}

/* An L2 of 8 KB (64 lines) cannot hold calib_global's two chases (96
 * lines): its warm walk misses like the cold one, so the DRAM latency
 * seen between them vanishes; with the L2 unbounded (the built-in
 * profile) the warm walk hits. */
Test(calibrate, a_finite_l2_evicts_what_it_cannot_hold, .timeout = 60)
{
    char dir[] = "/tmp/wh_calib_XXXXXX", path[300];
    cr_assert(mkdtemp(dir));
    write_profile(dir, "{ \"memory\": { \"l2_bytes\": 8192 } }", path, sizeof path);
    harness_calibration small = calibrate_sim(path);
    cr_expect(fabs(small.dram_latency - 1) < 1, "warm and cold hops alike: %g", small.dram_latency);
    EXPECT_NEAR(small.global_latency, 200 + 250 - 1, "every hop past the L2");
    write_profile(dir, "{ \"memory\": { \"l2_bytes\": 1048576 } }", path, sizeof path);
    harness_calibration big = calibrate_sim(path);
    EXPECT_NEAR(big.dram_latency, 250, "an L2 that holds the chases: the warm walk hits");
    EXPECT_NEAR(big.global_latency, 200, "global latency");
    ts_rmtree(dir);
}
